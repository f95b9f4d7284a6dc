/* arena.h - a bump allocator over a list of chunks, freed all at once. */
#ifndef TOOLKIT_ARENA_H
#define TOOLKIT_ARENA_H

#include <stddef.h>

typedef struct tk_arena_chunk tk_arena_chunk;

typedef struct {
    tk_arena_chunk *head;
    size_t chunk_size;
    size_t bytes_used;
    size_t chunks;
} tk_arena;

typedef struct {
    tk_arena_chunk *chunk;
    size_t used;
    size_t bytes_used;
} tk_arena_mark;

void tk_arena_init(tk_arena *a, size_t chunk_size);
void *tk_arena_alloc(tk_arena *a, size_t size);
void *tk_arena_zalloc(tk_arena *a, size_t size);
char *tk_arena_strdup(tk_arena *a, const char *s);
char *tk_arena_strndup(tk_arena *a, const char *s, size_t n);
tk_arena_mark tk_arena_save(const tk_arena *a);
void tk_arena_restore(tk_arena *a, tk_arena_mark mark);
void tk_arena_free(tk_arena *a);

#define TK_ARENA_NEW(a, type) ((type *)tk_arena_zalloc((a), sizeof(type)))

#endif
