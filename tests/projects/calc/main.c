/* main.c: the calc program: exercises libcalc and prints deterministic results. */
#include <stdio.h>
#include "calc/vec.h"
#include "calc/stats.h"
#include "calc/rpn.h"

#define N 50

int main(void)
{
    vec_t a = vec_new(N), b = vec_new(N);
    vec_fill_pattern(&a, 1);
    vec_fill_pattern(&b, 2);
    printf("dot=%.17g\n", vec_dot(&a, &b));
    vec_axpy(-0.5, &a, &b);
    vec_prefix_sum(&b);
    printf("b[last]=%.17g b[10]=%.17g\n", b.data[N - 1], b.data[10]);

    static double m[6][N];
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < N; j++)
            m[i][j] = (i + 1) * 0.25 - (j % 5);
    double y[6];
    mat_vec(6, N, m, a.data, y);
    for (int i = 0; i < 6; i++)
        printf("y[%d]=%.17g\n", i, y[i]);

    struct summary s = summarize(b.data, b.n);
    printf("mean=%.17g var=%.17g min=%.17g max=%.17g count=%zu\n", s.mean, s.var, s.min, s.max, s.count);
    for (int k = 0; k < STATS_BINS; k++)
        printf("%u%c", s.hist[k], k + 1 < STATS_BINS ? ' ' : '\n');
    printf("median=%.17g\n", median_inplace(b.data, b.n));

    const char *exprs[] = {"3 4 + 2 *", "1 2 3 4 5 + + + +", "2 10 ^ n", "1 +", "5 1 2 + 4 * + 3 -", "1 2", "4 2 %"};
    for (unsigned i = 0; i < sizeof exprs / sizeof exprs[0]; i++) {
        double r = 0;
        enum rpn_status st = rpn_eval(exprs[i], &r);
        printf("[%s] -> %s %.17g\n", exprs[i], rpn_status_name(st), st == RPN_OK ? r : 0.0);
    }
    vec_free(&a);
    vec_free(&b);
    return 0;
}
