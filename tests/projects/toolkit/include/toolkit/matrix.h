/* matrix.h - dense row-major double matrices. */
#ifndef TOOLKIT_MATRIX_H
#define TOOLKIT_MATRIX_H

#include "toolkit/common.h"

typedef struct {
    int rows;
    int cols;
    double *data;   /* rows * cols, element (i, j) at data[i * cols + j] */
} tk_matrix;

tk_matrix *tk_mat_new(int rows, int cols);
void tk_mat_free(tk_matrix *m);
void tk_mat_fill(tk_matrix *m, double (*gen)(void *ctx, int i, int j), void *ctx);

/* c = a * b on flat arrays: a is n x m, b is m x p, c is n x p. */
void tk_dgemm(int n, int m, int p, const double *a, const double *b, double *c);
/* c = alpha * a * b + beta * c */
void tk_dgemm_scaled(int n, int m, int p, double alpha, const double *a, const double *b, double beta, double *c);
void tk_transpose(int n, int m, const double *a, double *t);
void tk_matvec(int n, int m, const double *a, const double *x, double *y);

tk_status tk_mat_mul(const tk_matrix *a, const tk_matrix *b, tk_matrix *c);
tk_status tk_mat_transpose(const tk_matrix *a, tk_matrix *t);
double tk_mat_trace(const tk_matrix *m);
double tk_mat_sum(const tk_matrix *m);
double tk_mat_max_abs_diff(const tk_matrix *a, const tk_matrix *b);

#endif
