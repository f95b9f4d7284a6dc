/* prng.c - xoshiro256** (Blackman and Vigna), seeded through splitmix64. */
#include "toolkit/prng.h"


static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);

    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

void tk_prng_seed(tk_prng *r, uint64_t seed)
{
    int i;

    for (i = 0; i < 4; i++)
        r->s[i] = splitmix64(&seed);
}

uint64_t tk_prng_next(tk_prng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;

    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

uint32_t tk_prng_below(tk_prng *r, uint32_t bound)
{
    uint32_t threshold, x;

    if (bound == 0)
        return 0;
    threshold = (uint32_t)(-bound) % bound;
    do {
        x = (uint32_t)(tk_prng_next(r) >> 32);
    } while (x < threshold);
    return x % bound;
}

int tk_prng_range(tk_prng *r, int lo, int hi)
{
    if (hi <= lo)
        return lo;
    return lo + (int)tk_prng_below(r, (uint32_t)(hi - lo) + 1u);
}

double tk_prng_dyadic(tk_prng *r, int k)
{
    uint64_t bits = tk_prng_next(r) >> (64 - k);

    return (double)bits / (double)((uint64_t)1 << k);
}

void tk_prng_word(tk_prng *r, char *buf, size_t min_len, size_t max_len)
{
    static const char letters[] = "etaoinshrdlucmfwypvbgkjqxz";
    size_t len = min_len + tk_prng_below(r, (uint32_t)(max_len - min_len + 1)), i;

    for (i = 0; i < len; i++) {
        /* Skewed towards the frequent letters: min of two draws. */
        uint32_t a = tk_prng_below(r, 26), b = tk_prng_below(r, 26);

        buf[i] = letters[a < b ? a : b];
    }
    buf[len] = '\0';
}
