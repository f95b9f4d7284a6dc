/* hashmap.c - open addressing hash map keyed by strings. */
#include "toolkit/hashmap.h"
#include "toolkit/checksum.h"
#include "toolkit/common.h"

#include <string.h>

#define MIN_CAP 16

void tk_hm_init(tk_hashmap *m)
{
    m->slots = NULL;
    m->cap = 0;
    m->len = 0;
    m->used = 0;
    m->probes = 0;
}

void tk_hm_free(tk_hashmap *m, void (*free_value)(void *))
{
    size_t i;

    for (i = 0; i < m->cap; i++) {
        tk_hm_slot *s = &m->slots[i];

        if (!s->key)
            continue;
        if (free_value && !s->tombstone)
            free_value(s->value);
        tk_free(s->key);
    }
    tk_free(m->slots);
    tk_hm_init(m);
}

/* The slot holding key, or the slot where it would be inserted (the first tombstone seen). */
static tk_hm_slot *find_slot(const tk_hashmap *m, const char *key, uint64_t hash, size_t *probes)
{
    size_t mask = m->cap - 1;
    size_t i = (size_t)hash & mask;
    tk_hm_slot *grave = NULL;

    for (;;) {
        tk_hm_slot *s = &m->slots[i];

        ++*probes;
        if (!s->key)
            return grave ? grave : s;
        if (s->tombstone) {
            if (!grave)
                grave = s;
        } else if (s->hash == hash && strcmp(s->key, key) == 0) {
            return s;
        }
        i = (i + 1) & mask;
    }
}

static void rehash(tk_hashmap *m, size_t new_cap)
{
    tk_hm_slot *old = m->slots;
    size_t old_cap = m->cap, i, probes = 0;

    m->slots = tk_calloc(new_cap, sizeof *m->slots);
    m->cap = new_cap;
    m->used = m->len;
    for (i = 0; i < old_cap; i++) {
        tk_hm_slot *s = &old[i];

        if (!s->key)
            continue;
        if (s->tombstone) {
            tk_free(s->key);
            continue;
        }
        *find_slot(m, s->key, s->hash, &probes) = *s;
    }
    tk_free(old);
}

void **tk_hm_slot_for(tk_hashmap *m, const char *key)
{
    uint64_t hash = tk_mix64(tk_fnv1a64_str(key));
    tk_hm_slot *s;

    if (m->cap == 0)
        rehash(m, MIN_CAP);
    else if ((m->used + 1) * 4 > m->cap * 3)
        rehash(m, m->len * 2 >= m->cap ? m->cap * 2 : m->cap);
    s = find_slot(m, key, hash, &m->probes);
    if (s->key && !s->tombstone)
        return &s->value;
    if (s->key) {
        /* Reuse a tombstone: its key is freed here, the count of used slots does not change. */
        tk_free(s->key);
    } else {
        m->used++;
    }
    s->key = tk_strdup(key);
    s->hash = hash;
    s->tombstone = 0;
    s->value = NULL;
    m->len++;
    return &s->value;
}

void *tk_hm_put(tk_hashmap *m, const char *key, void *value)
{
    void **slot = tk_hm_slot_for(m, key);
    void *old = *slot;

    *slot = value;
    return old;
}

void *tk_hm_get(const tk_hashmap *m, const char *key)
{
    tk_hm_slot *s;
    size_t probes = 0;

    if (m->cap == 0)
        return NULL;
    s = find_slot(m, key, tk_mix64(tk_fnv1a64_str(key)), &probes);
    ((tk_hashmap *)m)->probes += probes;
    return s->key && !s->tombstone ? s->value : NULL;
}

int tk_hm_remove(tk_hashmap *m, const char *key, void **old_value)
{
    tk_hm_slot *s;

    if (m->cap == 0)
        return 0;
    s = find_slot(m, key, tk_mix64(tk_fnv1a64_str(key)), &m->probes);
    if (!s->key || s->tombstone)
        return 0;
    if (old_value)
        *old_value = s->value;
    s->tombstone = 1;
    s->value = NULL;
    m->len--;
    return 1;
}

void tk_hm_iter_init(tk_hm_iter *it, const tk_hashmap *m)
{
    it->map = m;
    it->index = 0;
}

int tk_hm_iter_next(tk_hm_iter *it, const char **key, void **value)
{
    while (it->index < it->map->cap) {
        const tk_hm_slot *s = &it->map->slots[it->index++];

        if (s->key && !s->tombstone) {
            if (key)
                *key = s->key;
            if (value)
                *value = s->value;
            return 1;
        }
    }
    return 0;
}
