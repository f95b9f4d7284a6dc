/* base64.c - base64 encoding and decoding (standard alphabet, '=' padding). */
#include "toolkit/codec.h"

#include <ctype.h>
#include <string.h>

static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

size_t tk_base64_encoded_len(size_t n)
{
    return (n + 2) / 3 * 4;
}

void tk_base64_encode(tk_strbuf *out, const void *data, size_t n)
{
    const unsigned char *p = data;
    char quad[4];

    tk_sb_reserve(out, tk_base64_encoded_len(n));
    while (n >= 3) {
        quad[0] = alphabet[p[0] >> 2];
        quad[1] = alphabet[((p[0] & 0x03) << 4) | (p[1] >> 4)];
        quad[2] = alphabet[((p[1] & 0x0F) << 2) | (p[2] >> 6)];
        quad[3] = alphabet[p[2] & 0x3F];
        tk_sb_append_n(out, quad, 4);
        p += 3;
        n -= 3;
    }
    if (n == 0)
        return;
    quad[0] = alphabet[p[0] >> 2];
    if (n == 1) {
        quad[1] = alphabet[(p[0] & 0x03) << 4];
        quad[2] = '=';
    } else {
        quad[1] = alphabet[((p[0] & 0x03) << 4) | (p[1] >> 4)];
        quad[2] = alphabet[(p[1] & 0x0F) << 2];
    }
    quad[3] = '=';
    tk_sb_append_n(out, quad, 4);
}

static int decode_char(int c)
{
    const char *hit;

    if (c == '\0')
        return -1;
    hit = strchr(alphabet, c);
    return hit ? (int)(hit - alphabet) : -1;
}

tk_status tk_base64_decode(const char *text, unsigned char *out, size_t *out_len)
{
    unsigned acc = 0;
    int bits = 0, pad = 0;
    size_t n = 0, cap = *out_len;

    for (; *text; text++) {
        int v;

        if (isspace((unsigned char)*text))
            continue;
        if (*text == '=') {
            pad++;
            continue;
        }
        if (pad)
            return TK_ERR_PARSE;   /* data after padding */
        v = decode_char(*text);
        if (v < 0)
            return TK_ERR_PARSE;
        acc = (acc << 6) | (unsigned)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            if (n == cap)
                return TK_ERR_OVERFLOW;
            out[n++] = (unsigned char)(acc >> bits);
            acc &= (1u << bits) - 1;
        }
    }
    if (pad > 2 || bits >= 6)
        return TK_ERR_PARSE;
    *out_len = n;
    return TK_OK;
}
