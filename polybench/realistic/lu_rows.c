/* lu_rows: LU factorization (Doolittle, no pivoting) of a diagonally dominant matrix held as an
 * array of row pointers, then the solution of many right-hand sides by substitution.
 *
 * Shapes: double **A indexed A[i][j] (rows of one malloc'd block), a row pointer taken into a
 * local (double *ri = A[i]), right-hand sides as another double ** table, the division by the
 * diagonal, and the residual norm with sqrt.
 *
 * usage: lu_rows [N]   (N x N matrix, N/4 right-hand sides, default N = 1000)
 * stdout: a summary line, then the seconds of factorization and solves; stderr: the result dump.
 */
#define _POSIX_C_SOURCE 199309L /* clock_gettime */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double **matrix_new(int rows, int cols)
{
    double **m = malloc(sizeof(double *) * rows);
    double *block = malloc(sizeof(double) * (size_t)rows * cols);
    if (!m || !block) {
        perror("malloc");
        exit(1);
    }
    for (int i = 0; i < rows; i++)
        m[i] = block + (size_t)i * cols;
    return m;
}

static void matrix_free(double **m)
{
    free(m[0]);
    free(m);
}

static void lu_factor(double **A, int n)
{
    /* hot */
    for (int k = 0; k < n; k++)
        for (int i = k + 1; i < n; i++) {
            A[i][k] /= A[k][k];
            for (int j = k + 1; j < n; j++)
                A[i][j] -= A[i][k] * A[k][j];
        }
}

/* X[r] := A^-1 B[r] for every right-hand side r (B is overwritten by the solution) */
static void lu_solve(double **A, double **B, int n, int nrhs)
{
    /* hot */
    for (int r = 0; r < nrhs; r++) {
        double *x = B[r];
        for (int i = 1; i < n; i++) {
            const double *ai = A[i];
            double s = x[i];
            for (int j = 0; j < i; j++)
                s -= ai[j] * x[j];
            x[i] = s;
        }
        for (int i = n - 1; i >= 0; i--) {
            const double *ai = A[i];
            double s = x[i];
            for (int j = i + 1; j < n; j++)
                s -= ai[j] * x[j];
            x[i] = s / ai[i];
        }
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
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    if (n < 4) {
        fprintf(stderr, "usage: %s [N >= 4]\n", argv[0]);
        return 2;
    }
    int nrhs = n / 4;
    double **A = matrix_new(n, n), **B = matrix_new(nrhs, n);
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++)
            A[i][j] = 1.0 / (1.0 + abs(i - j)) + 0.01 * ((i * 7 + j * 3) % 11);
        A[i][i] += n;
    }
    for (int r = 0; r < nrhs; r++)
        for (int i = 0; i < n; i++)
            B[r][i] = sin(0.1 * (i + 1) * (r + 1));

    double t0 = seconds();
    lu_factor(A, n);
    lu_solve(A, B, n, nrhs);
    double t1 = seconds();

    fprintf(stderr, "==BEGIN DUMP_ARRAYS==\nbegin dump: LU\n");
    int stride = n > 64 ? n / 64 : 1;
    for (int i = 0; i < n; i += stride)
        for (int j = 0; j < n; j += stride)
            fprintf(stderr, "%.17g\n", A[i][j]);
    fprintf(stderr, "end   dump: LU\nbegin dump: X\n");
    for (int r = 0; r < nrhs; r += (nrhs > 16 ? nrhs / 16 : 1))
        for (int i = 0; i < n; i += stride)
            fprintf(stderr, "%.17g\n", B[r][i]);
    fprintf(stderr, "end   dump: X\nbegin dump: X_norms\n");
    for (int r = 0; r < nrhs; r++) {
        double s = 0.0;
        for (int i = 0; i < n; i++)
            s += B[r][i] * B[r][i];
        fprintf(stderr, "%.17g\n", sqrt(s));
    }
    fprintf(stderr, "end   dump: X_norms\n==END   DUMP_ARRAYS==\n");
    printf("lu_rows: %dx%d, %d right-hand sides\n%.9f\n", n, n, nrhs, t1 - t0);
    matrix_free(A);
    matrix_free(B);
    return 0;
}
