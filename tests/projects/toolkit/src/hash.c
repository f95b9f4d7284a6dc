/* hash.c - FNV-1a and a 64-bit finalizer for hash tables. */
#include "toolkit/checksum.h"

#define FNV32_OFFSET 2166136261u
#define FNV32_PRIME 16777619u
#define FNV64_OFFSET 14695981039346656037ull
#define FNV64_PRIME 1099511628211ull

uint32_t tk_fnv1a32(const void *data, size_t len)
{
    const unsigned char *p = data, *end = p + len;
    uint32_t h = FNV32_OFFSET;

    while (p < end) {
        h ^= *p++;
        h *= FNV32_PRIME;
    }
    return h;
}

uint64_t tk_fnv1a64_str(const char *s)
{
    uint64_t h = FNV64_OFFSET;

    while (*s) {
        h ^= (unsigned char)*s++;
        h *= FNV64_PRIME;
    }
    return h;
}

/* The splitmix64 finalizer: spreads every input bit over the whole word. */
uint64_t tk_mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 27;
    x *= 0x94D049BB133111EBull;
    x ^= x >> 31;
    return x;
}
