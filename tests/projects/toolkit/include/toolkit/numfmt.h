/* numfmt.h - human-friendly number formatting. */
#ifndef TOOLKIT_NUMFMT_H
#define TOOLKIT_NUMFMT_H

#include <stddef.h>
#include <stdint.h>

/* 1234567 -> "1,234,567" */
const char *tk_fmt_thousands(long long v, char *buf, size_t size);
/* Fixed-point value / 10^scale with exactly `scale` decimals, no floating point. */
const char *tk_fmt_fixed(long long value, int scale, char *buf, size_t size);
/* Integer square root (floor). */
uint64_t tk_isqrt(uint64_t n);

#endif
