/* structs_unions.c: arrays of structs, nested structs, struct members in loop bodies and
 * bounds, pointers to structs (->), struct assignment/copy, struct return values, unions
 * (type punning through a union), bitfields, anonymous struct/union members. */
#include <stdio.h>
#include <stdint.h>
#include <string.h>

struct vec3 { double x, y, z; };

struct particle {
    struct vec3 pos;
    struct vec3 vel;
    double mass;
    int id;
};

struct grid {
    int n;
    double cells[16][16];
    struct { int lo, hi; } range;
};

union bits {
    double d;
    uint64_t u;
    unsigned char b[8];
};

struct flags {
    unsigned int a : 3;
    unsigned int b : 5;
    signed int c : 4;
    unsigned int d : 1;
};

struct shape {
    int kind;
    union {
        struct { double r; } circle;
        struct { double w, h; } rect;
    };
};

static struct vec3 vadd(struct vec3 a, struct vec3 b)
{
    struct vec3 r = {a.x + b.x, a.y + b.y, a.z + b.z};
    return r;
}

static void step(struct particle *p, int n, double dt)
{
    for (int i = 0; i < n; i++) {
        struct particle *q = &p[i];
        q->pos.x += q->vel.x * dt;
        q->pos.y += q->vel.y * dt;
        q->pos.z += q->vel.z * dt;
        q->vel.z -= 9.81 * dt / q->mass;
    }
}

int main(void)
{
    struct particle ps[10];
    for (int i = 0; i < 10; i++) {
        ps[i].pos = (struct vec3){i * 1.0, i * 0.5, 0.0};
        ps[i].vel.x = 0.1 * i;
        ps[i].vel.y = -0.2 * i;
        ps[i].vel.z = 1.0;
        ps[i].mass = 1.0 + i;
        ps[i].id = 100 + i;
    }
    for (int t = 0; t < 50; t++)
        step(ps, 10, 0.01);
    struct vec3 c = {0, 0, 0};
    for (int i = 0; i < 10; i++)
        c = vadd(c, ps[i].pos);
    printf("centroid sum: %.17g %.17g %.17g\n", c.x, c.y, c.z);
    printf("p7: id=%d z=%.17g vz=%.17g\n", ps[7].id, ps[7].pos.z, ps[7].vel.z);

    struct grid g;
    memset(&g, 0, sizeof g);
    g.n = 16;
    g.range.lo = 2;
    g.range.hi = 13;
    for (int i = 0; i < g.n; i++)
        for (int j = 0; j < g.n; j++)
            g.cells[i][j] = i * 0.25 - j * 0.125;
    struct grid *gp = &g;
    double s = 0;
    for (int i = gp->range.lo; i < gp->range.hi; i++)
        for (int j = gp->range.lo; j <= gp->range.hi; j++)
            s += gp->cells[i][j] * gp->cells[j][i];
    printf("grid s=%.17g\n", s);

    /* struct copy in a loop (swap) */
    for (int i = 0; i < 5; i++) {
        struct particle tmp = ps[i];
        ps[i] = ps[9 - i];
        ps[9 - i] = tmp;
    }
    for (int i = 0; i < 10; i++)
        printf("%d%c", ps[i].id, i == 9 ? '\n' : ',');

    union bits ub;
    ub.d = 1.5;
    printf("bits of 1.5: %016llx bytes:", (unsigned long long)ub.u);
    for (int i = 0; i < 8; i++)
        printf(" %02x", ub.b[i]);
    printf("\n");

    struct flags f[8];
    for (int i = 0; i < 8; i++) {
        f[i].a = (unsigned)(i * 3);
        f[i].b = (unsigned)(i * 11);
        f[i].c = i - 4;
        f[i].d = (unsigned)(i & 1);
    }
    int fs = 0;
    for (int i = 0; i < 8; i++)
        fs = fs * 7 + f[i].a + f[i].b * 2 + f[i].c * 3 + f[i].d;
    printf("bitfields fs=%d sizeof=%zu\n", fs, sizeof(struct flags));

    struct shape sh[4] = {{0, .circle = {1.0}}, {1, .rect = {2.0, 3.0}}, {0, .circle = {0.5}}, {1, .rect = {1.5, 4.0}}};
    double area = 0;
    for (int i = 0; i < 4; i++)
        area += sh[i].kind == 0 ? 3.14159 * sh[i].circle.r * sh[i].circle.r : sh[i].rect.w * sh[i].rect.h;
    printf("area=%.17g\n", area);
    return 0;
}
