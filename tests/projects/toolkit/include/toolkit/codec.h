/* codec.h - base64 (RFC 4648). */
#ifndef TOOLKIT_CODEC_H
#define TOOLKIT_CODEC_H

#include <stddef.h>

#include "toolkit/common.h"
#include "toolkit/strbuf.h"

size_t tk_base64_encoded_len(size_t n);
/* Appends the encoding of data to out. */
void tk_base64_encode(tk_strbuf *out, const void *data, size_t n);
/* Decodes text (whitespace ignored) into out (at most *out_len bytes); sets *out_len. */
tk_status tk_base64_decode(const char *text, unsigned char *out, size_t *out_len);

#endif
