/* enums_typedefs_switch.c: enums (implicit and explicit values, used as array bounds and loop
 * bounds), typedefs of scalars/structs/arrays/function types, switch/case with fallthrough,
 * default in the middle, nested switch in loops, case ranges are NOT used (plain C). */
#include <stdio.h>

enum color { RED, GREEN, BLUE, NCOLORS };
enum op { OP_ADD = 1, OP_SUB = 2, OP_MUL = 4, OP_DIV = 8, OP_NEG = -1 };
typedef enum { ST_IDLE, ST_RUN, ST_STOP } state_t;

typedef double real;
typedef int idx_t;
typedef real vec4[4];
typedef struct { idx_t n; real w[NCOLORS]; } weights_t;
typedef long (*binop_t)(long, long);

static long apply(enum op o, long a, long b)
{
    switch (o) {
    case OP_ADD:
        return a + b;
    case OP_SUB:
        return a - b;
    case OP_MUL:
        return a * b;
    case OP_DIV:
        return b ? a / b : 0;
    default:
        return -a;
    }
}

static int fallthrough(int x)
{
    int r = 0;
    switch (x % 6) {
    case 0:
        r += 1;
        /* fall through */
    case 1:
        r += 10;
        /* fall through */
    case 2:
        r += 100;
        break;
    default:
        r += 1000;
        /* fall through */
    case 4:
        r += 10000;
        break;
    case 5:
        r = -r - 1;
    }
    return r;
}

int main(void)
{
    real hist[NCOLORS] = {0};
    for (idx_t i = 0; i < 30; i++) {
        enum color c = (enum color)(i % NCOLORS);
        switch (c) {
        case RED:
            hist[RED] += 1.5;
            break;
        case GREEN:
            hist[GREEN] += i;
            break;
        case BLUE:
            hist[BLUE] -= 0.25 * i;
            break;
        default:
            hist[0] = -1;
        }
    }
    printf("hist: %.17g %.17g %.17g\n", hist[RED], hist[GREEN], hist[BLUE]);

    long acc = 7;
    enum op ops[] = {OP_ADD, OP_MUL, OP_SUB, OP_DIV, OP_NEG, OP_MUL};
    for (unsigned k = 0; k < sizeof ops / sizeof ops[0]; k++)
        for (int j = 1; j <= 3; j++)
            acc = apply(ops[k], acc, j + (int)k);
    printf("acc=%ld\n", acc);

    int ft = 0;
    for (int x = 0; x < 24; x++)
        ft += fallthrough(x);
    printf("fallthrough sum=%d\n", ft);

    state_t s = ST_IDLE;
    int ticks = 0, runs = 0;
    for (int t = 0; t < 40 && s != ST_STOP; t++) {
        ticks++;
        switch (s) {
        case ST_IDLE:
            if (t % 3 == 2)
                s = ST_RUN;
            break;
        case ST_RUN:
            runs++;
            if (runs % 5 == 0)
                s = ST_IDLE;
            if (runs > 12)
                s = ST_STOP;
            break;
        case ST_STOP:
            break;
        }
    }
    printf("ticks=%d runs=%d state=%d\n", ticks, runs, (int)s);

    vec4 v = {1, 2, 3, 4};
    weights_t wt = {.n = NCOLORS, .w = {0.5, 0.25, 0.125}};
    real dot = 0;
    for (idx_t i = 0; i < wt.n; i++)
        dot += v[i] * wt.w[i];
    printf("dot=%.17g sizeof(vec4)=%zu OP_NEG=%d\n", dot, sizeof(vec4), OP_NEG);
    return 0;
}
