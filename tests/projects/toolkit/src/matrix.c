/* matrix.c - the checked matrix API over the kernels of blas.c. */
#include "toolkit/matrix.h"

#include <math.h>
#include <string.h>

tk_matrix *tk_mat_new(int rows, int cols)
{
    tk_matrix *m;

    if (rows <= 0 || cols <= 0)
        return NULL;
    m = tk_malloc(sizeof *m);
    m->rows = rows;
    m->cols = cols;
    m->data = tk_calloc((size_t)rows * (size_t)cols, sizeof *m->data);
    return m;
}

void tk_mat_free(tk_matrix *m)
{
    if (!m)
        return;
    tk_free(m->data);
    tk_free(m);
}

void tk_mat_fill(tk_matrix *m, double (*gen)(void *ctx, int i, int j), void *ctx)
{
    double *d = m->data;
    int i, j;

    for (i = 0; i < m->rows; i++)
        for (j = 0; j < m->cols; j++)
            *d++ = gen(ctx, i, j);
}

tk_status tk_mat_mul(const tk_matrix *a, const tk_matrix *b, tk_matrix *c)
{
    if (!a || !b || !c)
        return TK_ERR_INVALID;
    if (a->cols != b->rows || c->rows != a->rows || c->cols != b->cols)
        return TK_ERR_RANGE;
    if (c == a || c == b)
        return TK_ERR_INVALID;   /* the kernel cannot work in place */
    tk_dgemm(a->rows, a->cols, b->cols, a->data, b->data, c->data);
    return TK_OK;
}

tk_status tk_mat_transpose(const tk_matrix *a, tk_matrix *t)
{
    if (!a || !t || t->rows != a->cols || t->cols != a->rows || a == t)
        return TK_ERR_INVALID;
    tk_transpose(a->rows, a->cols, a->data, t->data);
    return TK_OK;
}

double tk_mat_trace(const tk_matrix *m)
{
    double s = 0.0;
    int i;

    for (i = 0; i < m->rows && i < m->cols; i++)
        s += m->data[i * m->cols + i];
    return s;
}

double tk_mat_sum(const tk_matrix *m)
{
    const double *d = m->data, *end = m->data + (size_t)m->rows * (size_t)m->cols;
    double s = 0.0;

    while (d < end)
        s += *d++;
    return s;
}

double tk_mat_max_abs_diff(const tk_matrix *a, const tk_matrix *b)
{
    size_t i, n = (size_t)a->rows * (size_t)a->cols;
    double worst = 0.0;

    if (a->rows != b->rows || a->cols != b->cols)
        return INFINITY;
    for (i = 0; i < n; i++) {
        double d = fabs(a->data[i] - b->data[i]);

        if (d > worst)
            worst = d;
    }
    return worst;
}
