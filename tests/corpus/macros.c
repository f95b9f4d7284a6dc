/* macros.c: object-like macros as loop bounds (#define N 64), function-like macros in loop
 * bodies and bounds, macros expanding to whole loops, multi-line macros with backslashes,
 * do { } while (0) macros, stringizing (#), token pasting (##), conditional compilation,
 * macros with side-effect-free arguments evaluated twice (MIN/MAX), __LINE__-free output. */
#include <stdio.h>

#define N 64
#define M (N / 2)
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define SQR(x) ((x) * (x))
#define IDX(i, j) ((i) * N + (j))
#define STR(x) #x
#define XSTR(x) STR(x)
#define CAT(a, b) a##b
#define FOR(i, lo, hi) for (int i = (lo); i < (hi); i++)
#define SWAP(T, a, b) do { \
        T swap_tmp_ = (a);  \
        (a) = (b);          \
        (b) = swap_tmp_;    \
    } while (0)
#define SUM_ARRAY(arr, n, out)          \
    do {                                \
        (out) = 0;                      \
        for (int k_ = 0; k_ < (n); ++k_) \
            (out) += (arr)[k_];          \
    } while (0)
#define DECLARE_SCALE(name, factor)                         \
    static void name(double *v, int n)                      \
    {                                                       \
        for (int i = 0; i < n; i++)                         \
            v[i] *= (factor);                               \
    }

DECLARE_SCALE(scale_by_two, 2.0)
DECLARE_SCALE(scale_by_third, 1.0 / 3.0)

#ifndef USE_FLOAT
typedef double elem;
#define FMT "%.17g"
#else
typedef float elem;
#define FMT "%a"
#endif

#if N > 32
#define BIG 1
#else
#define BIG 0
#endif

static elem a[N * N];
static int CAT(counter_, 1);

int main(void)
{
    printf("N=%s M=%s BIG=%d\n", XSTR(N), STR(M), BIG);
    FOR(i, 0, N)
        FOR(j, 0, N)
            a[IDX(i, j)] = (elem)(SQR(i - j) % 17) * 0.5;

    elem s = 0;
    for (int i = 0; i < MIN(N, 40); i++)
        for (int j = MAX(0, i - 3); j < MIN(N, i + 4); j++)
            s += a[IDX(i, j)] * SQR((elem)j);
    printf("band sum=" FMT "\n", s);

    elem row[N];
    for (int i = 0; i < N; i++)
        row[i] = a[IDX(M, i)] + i;
    for (int i = 0, j = N - 1; i < j; i++, j--)
        SWAP(elem, row[i], row[j]);
    elem rs;
    SUM_ARRAY(row, N, rs);
    printf("row sum=" FMT " row0=" FMT " rowN=" FMT "\n", rs, row[0], row[N - 1]);

    double v[10];
    for (int i = 0; i < 10; i++)
        v[i] = i + 0.5;
    scale_by_two(v, 10);
    scale_by_third(v, 10);
    double vs;
    SUM_ARRAY(v, 10, vs);
    printf("vs=%.17g\n", vs);

    FOR(t, 0, 5)
        CAT(counter_, 1) += t * t;
    printf("counter=%d %s\n", counter_1, STR(a + b  *   c));
    return 0;
}
