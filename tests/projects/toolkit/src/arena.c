/* arena.c - chunked bump allocation; every chunk is released by tk_arena_free. */
#include "toolkit/arena.h"
#include "toolkit/common.h"

#include <string.h>

#define ARENA_ALIGN 16

struct tk_arena_chunk {
    tk_arena_chunk *next;
    size_t size;
    size_t used;
    /* data follows, aligned */
};

static size_t align_up(size_t n)
{
    return (n + (ARENA_ALIGN - 1)) & ~(size_t)(ARENA_ALIGN - 1);
}

static unsigned char *chunk_data(tk_arena_chunk *c)
{
    return (unsigned char *)c + align_up(sizeof *c);
}

static tk_arena_chunk *new_chunk(size_t size)
{
    tk_arena_chunk *c = tk_malloc(align_up(sizeof *c) + size);

    c->next = NULL;
    c->size = size;
    c->used = 0;
    return c;
}

void tk_arena_init(tk_arena *a, size_t chunk_size)
{
    a->head = NULL;
    a->chunk_size = chunk_size ? align_up(chunk_size) : 4096;
    a->bytes_used = 0;
    a->chunks = 0;
}

void *tk_arena_alloc(tk_arena *a, size_t size)
{
    tk_arena_chunk *c = a->head;
    void *p;

    size = align_up(size ? size : 1);
    if (!c || c->size - c->used < size) {
        /* Oversized requests get a chunk of their own. */
        size_t want = size > a->chunk_size ? size : a->chunk_size;

        c = new_chunk(want);
        c->next = a->head;
        a->head = c;
        a->chunks++;
    }
    p = chunk_data(c) + c->used;
    c->used += size;
    a->bytes_used += size;
    return p;
}

void *tk_arena_zalloc(tk_arena *a, size_t size)
{
    void *p = tk_arena_alloc(a, size);

    memset(p, 0, size);
    return p;
}

char *tk_arena_strndup(tk_arena *a, const char *s, size_t n)
{
    char *copy = tk_arena_alloc(a, n + 1);

    memcpy(copy, s, n);
    copy[n] = '\0';
    return copy;
}

char *tk_arena_strdup(tk_arena *a, const char *s)
{
    return tk_arena_strndup(a, s, strlen(s));
}

tk_arena_mark tk_arena_save(const tk_arena *a)
{
    tk_arena_mark m;

    m.chunk = a->head;
    m.used = a->head ? a->head->used : 0;
    m.bytes_used = a->bytes_used;
    return m;
}

void tk_arena_restore(tk_arena *a, tk_arena_mark mark)
{
    /* Drop the chunks allocated after the mark, then rewind the marked one. */
    while (a->head && a->head != mark.chunk) {
        tk_arena_chunk *next = a->head->next;

        tk_free(a->head);
        a->head = next;
        a->chunks--;
    }
    if (a->head)
        a->head->used = mark.used;
    a->bytes_used = mark.bytes_used;
}

void tk_arena_free(tk_arena *a)
{
    tk_arena_chunk *c = a->head;

    while (c) {
        tk_arena_chunk *next = c->next;

        tk_free(c);
        c = next;
    }
    a->head = NULL;
    a->bytes_used = 0;
    a->chunks = 0;
}
