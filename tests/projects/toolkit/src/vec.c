/* vec.c - dynamic array. */
#include "toolkit/vec.h"
#include "toolkit/common.h"

#include <string.h>

void tk_vec_init(tk_vec *v, size_t elem_size)
{
    v->data = NULL;
    v->elem_size = elem_size;
    v->len = 0;
    v->cap = 0;
}

void tk_vec_free(tk_vec *v)
{
    tk_free(v->data);
    v->data = NULL;
    v->len = v->cap = 0;
}

void tk_vec_reserve(tk_vec *v, size_t cap)
{
    if (cap <= v->cap)
        return;
    v->data = tk_realloc(v->data, cap * v->elem_size);
    v->cap = cap;
}

static void grow(tk_vec *v)
{
    if (v->len == v->cap)
        tk_vec_reserve(v, v->cap ? v->cap + v->cap / 2 + 1 : 8);
}

void *tk_vec_push(tk_vec *v, const void *elem)
{
    void *slot;

    grow(v);
    slot = v->data + v->len * v->elem_size;
    if (elem)
        memcpy(slot, elem, v->elem_size);
    else
        memset(slot, 0, v->elem_size);
    v->len++;
    return slot;
}

void *tk_vec_at(const tk_vec *v, size_t i)
{
    if (i >= v->len)
        tk_fatal("vector index %zu out of range (length %zu)", i, v->len);
    return v->data + i * v->elem_size;
}

void tk_vec_insert(tk_vec *v, size_t i, const void *elem)
{
    unsigned char *slot;

    if (i > v->len)
        tk_fatal("vector insert at %zu past the end (%zu)", i, v->len);
    grow(v);
    slot = v->data + i * v->elem_size;
    memmove(slot + v->elem_size, slot, (v->len - i) * v->elem_size);
    memcpy(slot, elem, v->elem_size);
    v->len++;
}

void tk_vec_remove(tk_vec *v, size_t i)
{
    unsigned char *slot = tk_vec_at(v, i);

    memmove(slot, slot + v->elem_size, (v->len - i - 1) * v->elem_size);
    v->len--;
}

size_t tk_vec_filter(tk_vec *v, int (*keep)(const void *elem, void *ctx), void *ctx)
{
    unsigned char *src = v->data, *dst = v->data;
    unsigned char *end = v->data + v->len * v->elem_size;
    size_t kept = 0, before = v->len;

    while (src < end) {
        if (keep(src, ctx)) {
            if (dst != src)
                memcpy(dst, src, v->elem_size);
            dst += v->elem_size;
            kept++;
        }
        src += v->elem_size;
    }
    v->len = kept;
    return before - kept;
}

