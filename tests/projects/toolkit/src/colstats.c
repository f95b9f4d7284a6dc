/* colstats.c - column statistics, the way a data-processing tool computes them. */
#include "toolkit/colstats.h"

#include <math.h>

void tk_col_mean_var(int n, int m, const double *x, double *mean, double *var)
{
    int i, j;

    for (j = 0; j < m; j++) {
        mean[j] = 0.0;
        var[j] = 0.0;
    }
    for (i = 0; i < n; i++)
        for (j = 0; j < m; j++)
            mean[j] += x[i * m + j];
    for (j = 0; j < m; j++)
        mean[j] /= n;
    for (i = 0; i < n; i++)
        for (j = 0; j < m; j++)
            var[j] += (x[i * m + j] - mean[j]) * (x[i * m + j] - mean[j]);
    for (j = 0; j < m; j++)
        var[j] /= n - 1;
}

void tk_col_standardize(int n, int m, const double *x, const double *mean, const double *var, double *out)
{
    int i, j;

    for (i = 0; i < n; i++) {
        for (j = 0; j < m; j++) {
            double sd = sqrt(var[j]);

            out[i * m + j] = sd > 0.0 ? (x[i * m + j] - mean[j]) / sd : 0.0;
        }
    }
}

void tk_col_covariance(int n, int m, const double *x, const double *mean, double *cov)
{
    int i, j1, j2;

    for (j1 = 0; j1 < m; j1++)
        for (j2 = 0; j2 < m; j2++)
            cov[j1 * m + j2] = 0.0;
    for (i = 0; i < n; i++)
        for (j1 = 0; j1 < m; j1++)
            for (j2 = 0; j2 < m; j2++)
                cov[j1 * m + j2] += (x[i * m + j1] - mean[j1]) * (x[i * m + j2] - mean[j2]);
    for (j1 = 0; j1 < m; j1++)
        for (j2 = 0; j2 < m; j2++)
            cov[j1 * m + j2] /= n - 1;
}

void tk_col_minmax(int n, int m, const double *x, double *lo, double *hi, double *out)
{
    int i, j;

    for (j = 0; j < m; j++) {
        lo[j] = x[j];
        hi[j] = x[j];
    }
    for (i = 1; i < n; i++) {
        for (j = 0; j < m; j++) {
            double v = x[i * m + j];

            if (v < lo[j])
                lo[j] = v;
            if (v > hi[j])
                hi[j] = v;
        }
    }
    for (i = 0; i < n; i++)
        for (j = 0; j < m; j++)
            out[i * m + j] = hi[j] > lo[j] ? (x[i * m + j] - lo[j]) / (hi[j] - lo[j]) : 0.0;
}

void tk_col_correlation(int m, const double *cov, double *corr)
{
    int a, b;

    for (a = 0; a < m; a++) {
        for (b = 0; b < m; b++) {
            double d = sqrt(cov[a * m + a] * cov[b * m + b]);

            corr[a * m + b] = d > 0.0 ? cov[a * m + b] / d : 0.0;
        }
    }
}
