/* intern.c - string interning backed by an arena and the hash map. */
#include "toolkit/intern.h"
#include "toolkit/common.h"

#include <string.h>

void tk_intern_init(tk_interner *in)
{
    tk_arena_init(&in->arena, 2048);
    tk_hm_init(&in->map);
    in->lookups = 0;
    in->hits = 0;
}

void tk_intern_free(tk_interner *in)
{
    tk_hm_free(&in->map, NULL);
    tk_arena_free(&in->arena);
}

const char *tk_intern(tk_interner *in, const char *s)
{
    void **slot;

    in->lookups++;
    slot = tk_hm_slot_for(&in->map, s);
    if (*slot) {
        in->hits++;
        return *slot;
    }
    *slot = tk_arena_strdup(&in->arena, s);
    return *slot;
}

const char *tk_intern_n(tk_interner *in, const char *s, size_t n)
{
    char small[64];
    const char *result;
    char *tmp;

    if (n < sizeof small) {
        memcpy(small, s, n);
        small[n] = '\0';
        return tk_intern(in, small);
    }
    tmp = tk_strndup(s, n);
    result = tk_intern(in, tmp);
    tk_free(tmp);
    return result;
}

size_t tk_intern_count(const tk_interner *in)
{
    return in->map.len;
}
