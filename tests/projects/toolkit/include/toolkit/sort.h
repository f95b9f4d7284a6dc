/* sort.h - generic sorting and searching with a comparator that takes a context. */
#ifndef TOOLKIT_SORT_H
#define TOOLKIT_SORT_H

#include <stddef.h>

typedef int (*tk_cmp_fn)(const void *a, const void *b, void *ctx);

/* Stable merge sort (insertion sort for short runs). */
void tk_sort(void *base, size_t n, size_t size, tk_cmp_fn cmp, void *ctx);
/* Index of the first element not less than key (n if none). */
size_t tk_lower_bound(const void *base, size_t n, size_t size, const void *key, tk_cmp_fn cmp, void *ctx);
int tk_is_sorted(const void *base, size_t n, size_t size, tk_cmp_fn cmp, void *ctx);

int tk_cmp_int(const void *a, const void *b, void *ctx);

#endif
