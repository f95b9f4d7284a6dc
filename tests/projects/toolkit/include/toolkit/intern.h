/* intern.h - string interning: equal strings share one pointer, so comparison is ==. */
#ifndef TOOLKIT_INTERN_H
#define TOOLKIT_INTERN_H

#include <stddef.h>

#include "toolkit/arena.h"
#include "toolkit/hashmap.h"

typedef struct {
    tk_arena arena;
    tk_hashmap map;   /* text -> interned copy */
    size_t lookups;
    size_t hits;
} tk_interner;

void tk_intern_init(tk_interner *in);
void tk_intern_free(tk_interner *in);
const char *tk_intern(tk_interner *in, const char *s);
const char *tk_intern_n(tk_interner *in, const char *s, size_t n);
size_t tk_intern_count(const tk_interner *in);

#endif
