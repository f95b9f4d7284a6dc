/* pqueue.c - binary heap. */
#include "toolkit/pqueue.h"
#include "toolkit/common.h"

#include <string.h>

void tk_pq_init(tk_pqueue *q, tk_pq_cmp cmp, void *ctx)
{
    q->items = NULL;
    q->len = 0;
    q->cap = 0;
    q->cmp = cmp;
    q->ctx = ctx;
}

void tk_pq_free(tk_pqueue *q)
{
    tk_free(q->items);
    q->items = NULL;
    q->len = q->cap = 0;
}

static int less(const tk_pqueue *q, size_t a, size_t b)
{
    return q->cmp(q->items[a], q->items[b], q->ctx) < 0;
}

static void swap(tk_pqueue *q, size_t a, size_t b)
{
    void *tmp = q->items[a];

    q->items[a] = q->items[b];
    q->items[b] = tmp;
}

static void sift_up(tk_pqueue *q, size_t i)
{
    while (i > 0) {
        size_t parent = (i - 1) / 2;

        if (!less(q, i, parent))
            break;
        swap(q, i, parent);
        i = parent;
    }
}

static void sift_down(tk_pqueue *q, size_t i)
{
    for (;;) {
        size_t left = 2 * i + 1, right = left + 1, best = i;

        if (left < q->len && less(q, left, best))
            best = left;
        if (right < q->len && less(q, right, best))
            best = right;
        if (best == i)
            return;
        swap(q, i, best);
        i = best;
    }
}

void tk_pq_push(tk_pqueue *q, void *item)
{
    if (q->len == q->cap) {
        q->cap = q->cap ? q->cap * 2 : 16;
        q->items = tk_realloc(q->items, q->cap * sizeof *q->items);
    }
    q->items[q->len] = item;
    sift_up(q, q->len);
    q->len++;
}

void *tk_pq_peek(const tk_pqueue *q)
{
    return q->len ? q->items[0] : NULL;
}

void *tk_pq_pop(tk_pqueue *q)
{
    void *top;

    if (q->len == 0)
        return NULL;
    top = q->items[0];
    q->items[0] = q->items[--q->len];
    if (q->len)
        sift_down(q, 0);
    return top;
}

void tk_pq_heapify(tk_pqueue *q, void **items, size_t n)
{
    size_t i;

    if (n > q->cap) {
        q->items = tk_realloc(q->items, n * sizeof *q->items);
        q->cap = n;
    }
    memcpy(q->items, items, n * sizeof *items);
    q->len = n;
    i = n / 2;
    while (i-- > 0)
        sift_down(q, i);
}

