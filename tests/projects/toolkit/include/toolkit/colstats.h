/* colstats.h - per-column statistics of a row-major table of doubles. */
#ifndef TOOLKIT_COLSTATS_H
#define TOOLKIT_COLSTATS_H

/* mean[j] and var[j] (sample variance, n - 1) of the m columns of an n x m table. */
void tk_col_mean_var(int n, int m, const double *x, double *mean, double *var);
/* z-scores: out[i][j] = (x[i][j] - mean[j]) / sd[j] (sd 0: out 0). */
void tk_col_standardize(int n, int m, const double *x, const double *mean, const double *var, double *out);
/* m x m sample covariance matrix. */
void tk_col_covariance(int n, int m, const double *x, const double *mean, double *cov);
/* Min-max scaling of every column into [0, 1]; lo and hi receive the column ranges. */
void tk_col_minmax(int n, int m, const double *x, double *lo, double *hi, double *out);
/* Pearson correlation from a covariance matrix. */
void tk_col_correlation(int m, const double *cov, double *corr);

#endif
