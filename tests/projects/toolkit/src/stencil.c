/* stencil.c - heat equation and Laplace relaxation on flat arrays. */
#include "toolkit/stencil.h"

#include <math.h>

void tk_heat_1d(int n, int steps, double r, double *u, double *tmp)
{
    int t, i;

    for (t = 0; t < steps; t++) {
        for (i = 1; i < n - 1; i++)
            tmp[i] = u[i] + r * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
        for (i = 1; i < n - 1; i++)
            u[i] = tmp[i];
    }
}

void tk_jacobi_2d(int n, int steps, double *a, double *b)
{
    int t, i, j;

    for (t = 0; t < steps; t++) {
        for (i = 1; i < n - 1; i++)
            for (j = 1; j < n - 1; j++)
                b[i * n + j] = 0.25 * (a[(i - 1) * n + j] + a[(i + 1) * n + j] + a[i * n + j - 1] + a[i * n + j + 1]);
        for (i = 1; i < n - 1; i++)
            for (j = 1; j < n - 1; j++)
                a[i * n + j] = b[i * n + j];
    }
}

void tk_gauss_seidel_2d(int n, int steps, double *a)
{
    int t, i, j;

    for (t = 0; t < steps; t++)
        for (i = 1; i < n - 1; i++)
            for (j = 1; j < n - 1; j++)
                a[i * n + j] = (a[(i - 1) * n + j] + a[i * n + j - 1] + a[i * n + j] +
                                a[i * n + j + 1] + a[(i + 1) * n + j]) / 5.0;
}

double tk_grid_residual(int n, const double *a, const double *b)
{
    double worst = 0.0;
    int i, j;

    for (i = 1; i < n - 1; i++) {
        for (j = 1; j < n - 1; j++) {
            double d = fabs(a[i * n + j] - b[i * n + j]);

            if (d > worst)
                worst = d;
        }
    }
    return worst;
}

double tk_grid_laplacian_norm(int n, const double *a)
{
    double sum = 0.0;
    int i, j;

    for (i = 1; i < n - 1; i++) {
        for (j = 1; j < n - 1; j++) {
            double l = a[(i - 1) * n + j] + a[(i + 1) * n + j] + a[i * n + j - 1] + a[i * n + j + 1] - 4.0 * a[i * n + j];

            sum += l * l;
        }
    }
    return sum;
}
