/* c99_c11_features.c: designated initializers (arrays and structs, nested, out of order),
 * compound literals (as arguments, as lvalues, in loops), _Bool / bool, inline functions,
 * _Static_assert, _Alignof/_Alignas, _Generic, mixed declarations and code, for-loop
 * declarations, // comments, long long, hexadecimal float literals, flexible array members,
 * __func__, restrict, static array parameter sizes. */
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stdalign.h>

_Static_assert(sizeof(int) >= 4, "need 32-bit int");

struct point { int x, y; };
struct config { const char *name; int levels[4]; struct point origin; _Bool verbose; };
struct buf { size_t len; double data[]; };

static const int primes[10] = {[0] = 2, [1] = 3, [4] = 11, [2] = 5, [3] = 7, [9] = 29};
static const struct config cfg = {.origin = {.y = -3, .x = 4}, .levels = {[3] = 8, [1] = 2}, .name = "cfg", .verbose = 1};

#define TYPE_NAME(x) _Generic((x), int: "int", double: "double", float: "float", default: "other")

static inline int manhattan(struct point a, struct point b)
{
    return abs(a.x - b.x) + abs(a.y - b.y);
}

static double sum4(const double v[static 4])
{
    double s = 0;
    for (int i = 0; i < 4; i++)
        s += v[i];
    return s;
}

static bool all_positive(const int *restrict v, int n)
{
    for (int i = 0; i < n; i++)
        if (v[i] <= 0)
            return false;
    return true;
}

int main(void)
{
    _Static_assert(sizeof primes / sizeof primes[0] == 10, "ten primes");
    int psum = 0;
    for (int i = 0; i < 10; i++)
        psum += primes[i] * (i + 1);
    printf("psum=%d levels=%d,%d,%d,%d origin=(%d,%d) %s verbose=%d\n", psum, cfg.levels[0], cfg.levels[1],
           cfg.levels[2], cfg.levels[3], cfg.origin.x, cfg.origin.y, cfg.name, cfg.verbose);

    int dist = 0;
    for (int i = 0; i < 8; i++)
        dist += manhattan((struct point){i, -i}, (struct point){.x = 3, .y = i % 3});
    printf("dist=%d sum4=%.17g\n", dist, sum4((double[]){0.5, 1.25, 2.0, -0.125}));

    /* compound literal as an lvalue, in a loop */
    int *arr = (int[8]){0};
    for (int i = 0; i < 8; i++)
        arr[i] = i * i - 10;
    bool pos = all_positive(arr, 8), pos2 = all_positive(arr + 4, 4);
    _Bool flags[6] = {0};
    int nflags = 0;
    for (int i = 0; i < 6; i++) {
        flags[i] = arr[i] % 2;
        nflags += flags[i];
    }
    printf("pos=%d pos2=%d nflags=%d bool_of_5=%d\n", pos, pos2, nflags, (int)(_Bool)5);

    alignas(32) double aligned[8];
    for (int i = 0; i < 8; i++)
        aligned[i] = 0x1.8p1 * i; /* hex float literal: 3.0 */
    printf("alignof=%zu aligned7=%.17g ll=%lld\n", alignof(double), aligned[7], 123456789012LL * 3);
    printf("generic: %s %s %s %s\n", TYPE_NAME(1), TYPE_NAME(1.0), TYPE_NAME(1.0f), TYPE_NAME('c' + 0L));

    struct buf *b = malloc(sizeof *b + 10 * sizeof(double));
    if (!b)
        return 1;
    b->len = 10;
    for (size_t i = 0; i < b->len; i++)
        b->data[i] = (double)i / 4;
    double bs = 0;
    for (size_t i = b->len; i-- > 0;)
        bs = bs * 0.5 + b->data[i];
    printf("flex bs=%.17g in %s\n", bs, __func__);
    free(b);
    return 0;
}
