/* matmul_flat: dense matrix products on flat double arrays, as a simulation code writes them
 * without BLAS: C = alpha A B + beta C with an index macro, then D = A B^T through a dot
 * product helper.
 *
 * Shapes: malloc'd double * matrices with linearized subscripts a[i*n + k] spelled through a
 * macro IDX(i, j, n), size_t counters, a scalar accumulator, a static inline helper that takes
 * row pointers (dot(a + i*n, b + j*n, n)).
 *
 * usage: matmul_flat [N]   (N x N matrices, default N = 600)
 * stdout: a summary line, then the seconds of the two products; stderr: the result dump.
 */
#define _POSIX_C_SOURCE 199309L /* clock_gettime */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define IDX(i, j, ld) ((i) * (ld) + (j))

static void gemm(size_t n, double alpha, const double *a, const double *b, double beta, double *c)
{
    /* hot */
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            double s = 0.0;
            for (size_t k = 0; k < n; k++)
                s += a[IDX(i, k, n)] * b[IDX(k, j, n)];
            c[IDX(i, j, n)] = alpha * s + beta * c[IDX(i, j, n)];
        }
}

static inline double dot(const double *x, const double *y, size_t n)
{
    double s = 0.0;
    for (size_t k = 0; k < n; k++)
        s += x[k] * y[k];
    return s;
}

static void gemm_bt(size_t n, const double *a, const double *b, double *d)
{
    /* hot */
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            d[i * n + j] = dot(a + i * n, b + j * n, n);
}

static void dump_doubles(const char *name, const double *v, size_t n)
{
    size_t step = n > 4096 ? n / 4096 : 1;
    double sum = 0.0, asum = 0.0, wsum = 0.0;
    fprintf(stderr, "begin dump: %s\n", name);
    for (size_t i = 0; i < n; i += step)
        fprintf(stderr, "%.17g\n", v[i]);
    fprintf(stderr, "end   dump: %s\n", name);
    for (size_t i = 0; i < n; i++) {
        sum += v[i];
        asum += fabs(v[i]);
        wsum += (double)(i % 7 + 1) * v[i];
    }
    fprintf(stderr, "begin dump: %s_sums\n%.17g %.17g %.17g\nend   dump: %s_sums\n", name, sum, asum, wsum, name);
}

static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

int main(int argc, char **argv)
{
    long arg = argc > 1 ? atol(argv[1]) : 600;
    if (arg < 1) {
        fprintf(stderr, "usage: %s [N >= 1]\n", argv[0]);
        return 2;
    }
    size_t n = (size_t)arg;
    double *a = malloc(n * n * sizeof *a), *b = malloc(n * n * sizeof *b);
    double *c = malloc(n * n * sizeof *c), *d = malloc(n * n * sizeof *d);
    if (!a || !b || !c || !d) {
        perror("malloc");
        return 1;
    }
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            a[IDX(i, j, n)] = (double)((i * j + 1) % n) / n;
            b[IDX(i, j, n)] = (double)((i * (j + 1) + 2) % n) / n;
            c[IDX(i, j, n)] = (double)((i + j) % 13) / 13.0;
        }

    double t0 = seconds();
    gemm(n, 1.5, a, b, 0.5, c);
    gemm_bt(n, a, c, d);
    double t1 = seconds();

    fprintf(stderr, "==BEGIN DUMP_ARRAYS==\n");
    dump_doubles("C", c, n * n);
    dump_doubles("D", d, n * n);
    fprintf(stderr, "==END   DUMP_ARRAYS==\n");
    printf("matmul_flat: %zux%zu\n%.9f\n", n, n, t1 - t0);
    free(a);
    free(b);
    free(c);
    free(d);
    return 0;
}
