/* alloc.c - allocation wrappers that never return NULL and count live blocks. */
#include "toolkit/common.h"

#include <stdlib.h>
#include <string.h>

static long live_blocks;

void *tk_malloc(size_t size)
{
    void *p = malloc(size ? size : 1);

    if (!p)
        tk_fatal("out of memory allocating %zu bytes", size);
    live_blocks++;
    return p;
}

void *tk_calloc(size_t count, size_t size)
{
    void *p;

    if (count && size > (size_t)-1 / count)
        tk_fatal("allocation of %zu x %zu bytes overflows", count, size);
    p = calloc(count ? count : 1, size ? size : 1);
    if (!p)
        tk_fatal("out of memory allocating %zu x %zu bytes", count, size);
    live_blocks++;
    return p;
}

void *tk_realloc(void *ptr, size_t size)
{
    void *p;

    if (!ptr)
        return tk_malloc(size);
    p = realloc(ptr, size ? size : 1);
    if (!p)
        tk_fatal("out of memory growing a block to %zu bytes", size);
    return p;
}

char *tk_strdup(const char *s)
{
    return tk_strndup(s, strlen(s));
}

char *tk_strndup(const char *s, size_t n)
{
    const char *end = memchr(s, '\0', n);
    size_t len = end ? (size_t)(end - s) : n;
    char *copy = tk_malloc(len + 1);

    memcpy(copy, s, len);
    copy[len] = '\0';
    return copy;
}

void tk_free(void *ptr)
{
    if (!ptr)
        return;
    live_blocks--;
    free(ptr);
}

long tk_live_allocations(void)
{
    return live_blocks;
}
