/* vec.h - a dynamic array of fixed-size elements. */
#ifndef TOOLKIT_VEC_H
#define TOOLKIT_VEC_H

#include <stddef.h>

typedef struct {
    unsigned char *data;
    size_t elem_size;
    size_t len;
    size_t cap;
} tk_vec;

void tk_vec_init(tk_vec *v, size_t elem_size);
void tk_vec_free(tk_vec *v);
void tk_vec_reserve(tk_vec *v, size_t cap);
void *tk_vec_push(tk_vec *v, const void *elem);
void *tk_vec_at(const tk_vec *v, size_t i);
void tk_vec_insert(tk_vec *v, size_t i, const void *elem);
void tk_vec_remove(tk_vec *v, size_t i);
/* Removes every element for which keep returns 0, keeping the others in order; returns the count removed. */
size_t tk_vec_filter(tk_vec *v, int (*keep)(const void *elem, void *ctx), void *ctx);

#define TK_VEC_GET(v, type, i) (*(type *)tk_vec_at((v), (i)))

#endif
