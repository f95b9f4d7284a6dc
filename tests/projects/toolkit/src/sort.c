/* sort.c - stable merge sort and binary search over arrays of any element size. */
#include "toolkit/sort.h"
#include "toolkit/common.h"

#include <string.h>

#define INSERTION_LIMIT 12

static void insertion_sort(unsigned char *base, size_t n, size_t size, tk_cmp_fn cmp, void *ctx,
                           unsigned char *tmp)
{
    size_t i;

    for (i = 1; i < n; i++) {
        size_t j = i;

        memcpy(tmp, base + i * size, size);
        while (j > 0 && cmp(base + (j - 1) * size, tmp, ctx) > 0) {
            memcpy(base + j * size, base + (j - 1) * size, size);
            j--;
        }
        memcpy(base + j * size, tmp, size);
    }
}

static void merge_sort(unsigned char *base, size_t n, size_t size, tk_cmp_fn cmp, void *ctx,
                       unsigned char *scratch)
{
    size_t half = n / 2;
    unsigned char *left, *right, *left_end, *right_end, *out;

    if (n <= INSERTION_LIMIT) {
        insertion_sort(base, n, size, cmp, ctx, scratch);
        return;
    }
    merge_sort(base, half, size, cmp, ctx, scratch);
    merge_sort(base + half * size, n - half, size, cmp, ctx, scratch);
    /* Already in order: nothing to merge. */
    if (cmp(base + (half - 1) * size, base + half * size, ctx) <= 0)
        return;
    memcpy(scratch, base, half * size);
    left = scratch;
    left_end = scratch + half * size;
    right = base + half * size;
    right_end = base + n * size;
    out = base;
    while (left < left_end && right < right_end) {
        if (cmp(right, left, ctx) < 0) {
            memcpy(out, right, size);
            right += size;
        } else {
            memcpy(out, left, size);
            left += size;
        }
        out += size;
    }
    if (left < left_end)
        memcpy(out, left, (size_t)(left_end - left));
}

void tk_sort(void *base, size_t n, size_t size, tk_cmp_fn cmp, void *ctx)
{
    unsigned char *scratch;

    if (n < 2)
        return;
    scratch = tk_malloc((n / 2 + 1) * size);
    merge_sort(base, n, size, cmp, ctx, scratch);
    tk_free(scratch);
}

size_t tk_lower_bound(const void *base, size_t n, size_t size, const void *key, tk_cmp_fn cmp, void *ctx)
{
    const unsigned char *b = base;
    size_t lo = 0, hi = n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (cmp(b + mid * size, key, ctx) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int tk_is_sorted(const void *base, size_t n, size_t size, tk_cmp_fn cmp, void *ctx)
{
    const unsigned char *p = base;
    size_t i;

    for (i = 1; i < n; i++) {
        if (cmp(p + (i - 1) * size, p + i * size, ctx) > 0)
            return 0;
    }
    return 1;
}

int tk_cmp_int(const void *a, const void *b, void *ctx)
{
    int x = *(const int *)a, y = *(const int *)b;

    TK_UNUSED(ctx);
    return (x > y) - (x < y);
}

