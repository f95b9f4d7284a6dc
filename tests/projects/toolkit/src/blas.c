/* blas.c - the dense kernels behind matrix.c, on flat row-major arrays (BLAS-like, unchecked). */
#include "toolkit/matrix.h"

void tk_dgemm(int n, int m, int p, const double *a, const double *b, double *c)
{
    int i, j, k;

    for (i = 0; i < n; i++)
        for (j = 0; j < p; j++)
            c[i * p + j] = 0.0;
    /* i-k-j order: the innermost loop walks rows of b and c contiguously. */
    for (i = 0; i < n; i++)
        for (k = 0; k < m; k++)
            for (j = 0; j < p; j++)
                c[i * p + j] += a[i * m + k] * b[k * p + j];
}

void tk_dgemm_scaled(int n, int m, int p, double alpha, const double *a, const double *b, double beta, double *c)
{
    int i, j, k;

    for (i = 0; i < n; i++) {
        for (j = 0; j < p; j++)
            c[i * p + j] *= beta;
        for (k = 0; k < m; k++)
            for (j = 0; j < p; j++)
                c[i * p + j] += alpha * a[i * m + k] * b[k * p + j];
    }
}

void tk_transpose(int n, int m, const double *a, double *t)
{
    int i, j;

    for (i = 0; i < n; i++)
        for (j = 0; j < m; j++)
            t[j * n + i] = a[i * m + j];
}

void tk_matvec(int n, int m, const double *a, const double *x, double *y)
{
    int i, j;

    for (i = 0; i < n; i++) {
        y[i] = 0.0;
        for (j = 0; j < m; j++)
            y[i] += a[i * m + j] * x[j];
    }
}
