/* prng.h - a small deterministic pseudo-random generator (xoshiro256**, seeded by splitmix64). */
#ifndef TOOLKIT_PRNG_H
#define TOOLKIT_PRNG_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint64_t s[4];
} tk_prng;

void tk_prng_seed(tk_prng *r, uint64_t seed);
uint64_t tk_prng_next(tk_prng *r);
/* Uniform in [0, bound) without modulo bias. */
uint32_t tk_prng_below(tk_prng *r, uint32_t bound);
int tk_prng_range(tk_prng *r, int lo, int hi);   /* inclusive */
/* A multiple of 1/2^k in [0, 1), k <= 52: exact in double. */
double tk_prng_dyadic(tk_prng *r, int k);
/* Fills buf with a pseudo-random word of lowercase letters, NUL-terminated. */
void tk_prng_word(tk_prng *r, char *buf, size_t min_len, size_t max_len);

#endif
