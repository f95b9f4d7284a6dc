/* vec.h: small dense vector and matrix kernels of libcalc. */
#ifndef CALC_VEC_H
#define CALC_VEC_H

#include <stddef.h>

#ifndef CALC_SCALE
#error "CALC_SCALE must be defined by the build (-DCALC_SCALE=...)"
#endif

typedef struct {
    size_t n;
    double *data;
} vec_t;

vec_t vec_new(size_t n);
void vec_free(vec_t *v);
void vec_fill_pattern(vec_t *v, int seed);
double vec_dot(const vec_t *a, const vec_t *b);
void vec_axpy(double alpha, const vec_t *x, vec_t *y);
void vec_prefix_sum(vec_t *v);
void mat_vec(size_t n, size_t m, const double a[n][m], const double *x, double *y);

#endif
