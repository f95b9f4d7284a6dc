/* utf8.h - UTF-8 decoding, encoding and validation. */
#ifndef TOOLKIT_UTF8_H
#define TOOLKIT_UTF8_H

#include <stddef.h>
#include <stdint.h>

#define TK_UTF8_REPLACEMENT 0xFFFDu

/* Decodes one code point at s (n bytes available); sets *used (at least 1). Invalid input: U+FFFD. */
uint32_t tk_utf8_decode(const unsigned char *s, size_t n, size_t *used);
/* Encodes cp into out (4 bytes room); returns the length, 0 for an invalid code point. */
size_t tk_utf8_encode(uint32_t cp, unsigned char *out);
/* Offset of the first invalid sequence, or n when all is valid. */
size_t tk_utf8_validate(const unsigned char *s, size_t n);
size_t tk_utf8_length(const char *s);
/* Copies at most max_cp code points of s into out (cap bytes), never splitting a sequence. */
size_t tk_utf8_truncate(const char *s, size_t max_cp, char *out, size_t cap);

#endif
