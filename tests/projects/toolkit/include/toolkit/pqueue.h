/* pqueue.h - binary min-heap of pointers ordered by a comparator. */
#ifndef TOOLKIT_PQUEUE_H
#define TOOLKIT_PQUEUE_H

#include <stddef.h>

typedef int (*tk_pq_cmp)(const void *a, const void *b, void *ctx);

typedef struct {
    void **items;
    size_t len;
    size_t cap;
    tk_pq_cmp cmp;
    void *ctx;
} tk_pqueue;

void tk_pq_init(tk_pqueue *q, tk_pq_cmp cmp, void *ctx);
void tk_pq_free(tk_pqueue *q);
void tk_pq_push(tk_pqueue *q, void *item);
void *tk_pq_peek(const tk_pqueue *q);
void *tk_pq_pop(tk_pqueue *q);
/* Builds the heap from an array of items in O(n). */
void tk_pq_heapify(tk_pqueue *q, void **items, size_t n);

#endif
