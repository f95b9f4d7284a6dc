/* colstats: per-column statistics of a row-major table of measurements: mean, standard
 * deviation, z-score normalization in place, then the covariance of the normalized columns.
 *
 * Shapes: a table struct (t->v[i*t->ncols + j]) with long counters, local copies of its
 * members, reductions into per-column arrays, sqrt, a division guarded with fmax, and the
 * user's own #pragma omp parallel for on the normalization.
 *
 * usage: colstats [N]   (N rows of 160 columns, default N = 20000)
 * stdout: a summary line, then the seconds of the statistics; stderr: the result dump.
 */
#define _POSIX_C_SOURCE 199309L /* clock_gettime */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef struct {
    long nrows, ncols;
    double *v; /* nrows x ncols, row-major */
} table_t;

static void column_means(const table_t *t, double *mean)
{
    for (long j = 0; j < t->ncols; j++)
        mean[j] = 0.0;
    /* hot */
    for (long i = 0; i < t->nrows; i++)
        for (long j = 0; j < t->ncols; j++)
            mean[j] += t->v[i * t->ncols + j];
    for (long j = 0; j < t->ncols; j++)
        mean[j] /= (double)t->nrows;
}

static void column_stddevs(const table_t *t, const double *mean, double *sd)
{
    const long nr = t->nrows, nc = t->ncols;
    const double *v = t->v;
    for (long j = 0; j < nc; j++)
        sd[j] = 0.0;
    /* hot */
    for (long i = 0; i < nr; i++)
        for (long j = 0; j < nc; j++) {
            double d = v[i * nc + j] - mean[j];
            sd[j] += d * d;
        }
    for (long j = 0; j < nc; j++)
        sd[j] = sqrt(sd[j] / (double)(nr - 1));
}

static void normalize(table_t *t, const double *mean, const double *sd)
{
    const long nr = t->nrows, nc = t->ncols;
    double *v = t->v;
    /* hot */
#ifdef _OPENMP
#pragma omp parallel for
#endif
    for (long i = 0; i < nr; i++)
        for (long j = 0; j < nc; j++)
            v[i * nc + j] = (v[i * nc + j] - mean[j]) / fmax(sd[j], 1e-12);
}

/* cov[a*nc + b] = sum_i z[i][a] z[i][b] / (nr - 1), upper triangle */
static void covariance(const table_t *t, double *cov)
{
    const long nr = t->nrows, nc = t->ncols;
    const double *v = t->v;
    /* hot */
    for (long a = 0; a < nc; a++)
        for (long b = a; b < nc; b++) {
            double s = 0.0;
            for (long i = 0; i < nr; i++)
                s += v[i * nc + a] * v[i * nc + b];
            cov[a * nc + b] = s / (double)(nr - 1);
        }
}

static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 20000;
    if (n < 4) {
        fprintf(stderr, "usage: %s [N >= 4]\n", argv[0]);
        return 2;
    }
    table_t t = {n, 160, NULL};
    t.v = malloc(sizeof(double) * t.nrows * t.ncols);
    double *mean = malloc(sizeof(double) * t.ncols), *sd = malloc(sizeof(double) * t.ncols);
    double *cov = calloc((size_t)t.ncols * t.ncols, sizeof(double));
    if (!t.v || !mean || !sd || !cov) {
        perror("malloc");
        return 1;
    }
    for (long i = 0; i < t.nrows; i++)
        for (long j = 0; j < t.ncols; j++)
            t.v[i * t.ncols + j] = (double)(j + 1) * sin(0.001 * (double)(i + 1) * (double)(j % 17 + 1))
                                   + 0.01 * (double)((i * 13 + j * 7) % 29) + 3.0 * (double)j;

    double t0 = seconds();
    column_means(&t, mean);
    column_stddevs(&t, mean, sd);
    normalize(&t, mean, sd);
    covariance(&t, cov);
    double t1 = seconds();

    fprintf(stderr, "==BEGIN DUMP_ARRAYS==\nbegin dump: mean\n");
    for (long j = 0; j < t.ncols; j++)
        fprintf(stderr, "%.17g\n", mean[j]);
    fprintf(stderr, "end   dump: mean\nbegin dump: sd\n");
    for (long j = 0; j < t.ncols; j++)
        fprintf(stderr, "%.17g\n", sd[j]);
    fprintf(stderr, "end   dump: sd\nbegin dump: cov\n");
    for (long a = 0; a < t.ncols; a++)
        for (long b = a; b < t.ncols; b++)
            fprintf(stderr, "%.17g\n", cov[a * t.ncols + b]);
    fprintf(stderr, "end   dump: cov\nbegin dump: z_sample\n");
    for (long k = 0; k < t.nrows * t.ncols; k += (t.nrows * t.ncols) / 2000 + 1)
        fprintf(stderr, "%.17g\n", t.v[k]);
    fprintf(stderr, "end   dump: z_sample\n==END   DUMP_ARRAYS==\n");
    printf("colstats: %ld rows x %ld columns\n%.9f\n", t.nrows, t.ncols, t1 - t0);
    free(t.v);
    free(mean);
    free(sd);
    free(cov);
    return 0;
}
