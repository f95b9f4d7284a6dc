/* vec.c: vector kernels (loops over heap arrays, a VLA-parameter matrix-vector product). */
#include <stdlib.h>
#include "calc/vec.h"

vec_t vec_new(size_t n)
{
    vec_t v = {n, calloc(n ? n : 1, sizeof(double))};
    return v;
}

void vec_free(vec_t *v)
{
    free(v->data);
    v->data = NULL;
    v->n = 0;
}

void vec_fill_pattern(vec_t *v, int seed)
{
    for (size_t i = 0; i < v->n; i++)
        v->data[i] = (double)(((long)i * 7 + seed * 13) % 19 - 9) / CALC_SCALE;
}

double vec_dot(const vec_t *a, const vec_t *b)
{
    double s = 0.0;
    size_t n = a->n < b->n ? a->n : b->n;
    for (size_t i = 0; i < n; i++)
        s += a->data[i] * b->data[i];
    return s;
}

void vec_axpy(double alpha, const vec_t *x, vec_t *y)
{
    for (size_t i = 0; i < x->n && i < y->n; i++)
        y->data[i] += alpha * x->data[i];
}

void vec_prefix_sum(vec_t *v)
{
    for (size_t i = 1; i < v->n; i++)
        v->data[i] += v->data[i - 1];
}

void mat_vec(size_t n, size_t m, const double a[n][m], const double *x, double *y)
{
    for (size_t i = 0; i < n; i++) {
        double acc = 0.0;
        for (size_t j = 0; j < m; j++)
            acc += a[i][j] * x[j];
        y[i] = acc;
    }
}
