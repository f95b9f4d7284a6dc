/* hashmap.h - string-keyed hash map with open addressing (linear probing, tombstones). */
#ifndef TOOLKIT_HASHMAP_H
#define TOOLKIT_HASHMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    char *key;      /* owned copy; NULL: empty slot */
    void *value;
    uint64_t hash;
    int tombstone;
} tk_hm_slot;

typedef struct {
    tk_hm_slot *slots;
    size_t cap;     /* power of two */
    size_t len;
    size_t used;    /* live entries plus tombstones */
    size_t probes;  /* statistics: slots examined by lookups */
} tk_hashmap;

typedef struct {
    const tk_hashmap *map;
    size_t index;
} tk_hm_iter;

void tk_hm_init(tk_hashmap *m);
/* Frees the keys; values are the caller's (free_value, when given, is called on each). */
void tk_hm_free(tk_hashmap *m, void (*free_value)(void *));
/* Sets key to value; returns the previous value or NULL. */
void *tk_hm_put(tk_hashmap *m, const char *key, void *value);
void *tk_hm_get(const tk_hashmap *m, const char *key);
/* A pointer to the value slot, inserting NULL when missing (for counters and the like). */
void **tk_hm_slot_for(tk_hashmap *m, const char *key);
int tk_hm_remove(tk_hashmap *m, const char *key, void **old_value);
void tk_hm_iter_init(tk_hm_iter *it, const tk_hashmap *m);
int tk_hm_iter_next(tk_hm_iter *it, const char **key, void **value);

#endif
