/* numfmt.c - number formatting without locale dependence. */
#include "toolkit/numfmt.h"

#include <stdio.h>

const char *tk_fmt_thousands(long long v, char *buf, size_t size)
{
    char digits[32];
    unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
    int n = 0, out = 0, i;

    do {
        digits[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (size < (size_t)(n + n / 3 + 2)) {
        if (size)
            buf[0] = '\0';
        return buf;
    }
    if (v < 0)
        buf[out++] = '-';
    for (i = n - 1; i >= 0; i--) {
        buf[out++] = digits[i];
        if (i > 0 && i % 3 == 0)
            buf[out++] = ',';
    }
    buf[out] = '\0';
    return buf;
}

const char *tk_fmt_fixed(long long value, int scale, char *buf, size_t size)
{
    unsigned long long u = value < 0 ? 0ull - (unsigned long long)value : (unsigned long long)value;
    unsigned long long div = 1;
    int i;

    if (scale > 18)
        scale = 18;   /* 10^19 overflows 64 bits */
    for (i = 0; i < scale; i++)
        div *= 10;
    if (scale <= 0)
        snprintf(buf, size, "%s%llu", value < 0 ? "-" : "", u);
    else
        snprintf(buf, size, "%s%llu.%0*llu", value < 0 ? "-" : "", u / div, scale, u % div);
    return buf;
}

uint64_t tk_isqrt(uint64_t n)
{
    uint64_t x = n, y;

    if (n < 2)
        return n;
    /* Newton's iteration from above converges monotonically to floor(sqrt(n)). */
    y = x / 2 + (x & 1);   /* ceil(x / 2) without overflowing */
    while (y < x) {
        x = y;
        y = (x + n / x) / 2;
    }
    return x;
}
