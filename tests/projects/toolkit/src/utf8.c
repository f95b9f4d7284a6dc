/* utf8.c - UTF-8 per RFC 3629: no overlongs, no surrogates, nothing above U+10FFFF. */
#include "toolkit/utf8.h"

#include <string.h>

static int is_cont(unsigned char c)
{
    return (c & 0xC0) == 0x80;
}

uint32_t tk_utf8_decode(const unsigned char *s, size_t n, size_t *used)
{
    unsigned char c = s[0];
    uint32_t cp, min;
    size_t len, i;

    *used = 1;
    if (c < 0x80)
        return c;
    if ((c & 0xE0) == 0xC0) {
        len = 2;
        cp = c & 0x1F;
        min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
        len = 3;
        cp = c & 0x0F;
        min = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
        len = 4;
        cp = c & 0x07;
        min = 0x10000;
    } else {
        return TK_UTF8_REPLACEMENT;
    }
    if (len > n)
        return TK_UTF8_REPLACEMENT;
    for (i = 1; i < len; i++) {
        if (!is_cont(s[i]))
            return TK_UTF8_REPLACEMENT;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return TK_UTF8_REPLACEMENT;
    *used = len;
    return cp;
}

size_t tk_utf8_encode(uint32_t cp, unsigned char *out)
{
    if (cp < 0x80) {
        out[0] = (unsigned char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (unsigned char)(0xC0 | (cp >> 6));
        out[1] = (unsigned char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp >= 0xD800 && cp <= 0xDFFF)
        return 0;
    if (cp < 0x10000) {
        out[0] = (unsigned char)(0xE0 | (cp >> 12));
        out[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (unsigned char)(0x80 | (cp & 0x3F));
        return 3;
    }
    if (cp <= 0x10FFFF) {
        out[0] = (unsigned char)(0xF0 | (cp >> 18));
        out[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
        out[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        out[3] = (unsigned char)(0x80 | (cp & 0x3F));
        return 4;
    }
    return 0;
}

size_t tk_utf8_validate(const unsigned char *s, size_t n)
{
    size_t off = 0;

    while (off < n) {
        size_t used;
        uint32_t cp = tk_utf8_decode(s + off, n - off, &used);

        /* A literal U+FFFD (EF BF BD) is valid; a replacement from a bad sequence is not. */
        if (cp == TK_UTF8_REPLACEMENT && used == 1)
            return off;
        off += used;
    }
    return n;
}

size_t tk_utf8_length(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t n = strlen(s), count = 0;

    while (n > 0) {
        size_t used;

        tk_utf8_decode(p, n, &used);
        p += used;
        n -= used;
        count++;
    }
    return count;
}

size_t tk_utf8_truncate(const char *s, size_t max_cp, char *out, size_t cap)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t n = strlen(s), w = 0, count = 0;

    if (cap == 0)
        return 0;
    while (n > 0 && count < max_cp) {
        size_t used;

        tk_utf8_decode(p, n, &used);
        if (w + used >= cap)
            break;
        memcpy(out + w, p, used);
        w += used;
        p += used;
        n -= used;
        count++;
    }
    out[w] = '\0';
    return w;
}
