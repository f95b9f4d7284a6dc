/* strbuf.h - a growable, always NUL-terminated string buffer. */
#ifndef TOOLKIT_STRBUF_H
#define TOOLKIT_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

#include "toolkit/common.h"

typedef struct {
    char *data;
    size_t len;
    size_t cap;
} tk_strbuf;

void tk_sb_init(tk_strbuf *sb);
void tk_sb_free(tk_strbuf *sb);
void tk_sb_reset(tk_strbuf *sb);
void tk_sb_reserve(tk_strbuf *sb, size_t extra);
void tk_sb_putc(tk_strbuf *sb, char c);
void tk_sb_append(tk_strbuf *sb, const char *s);
void tk_sb_append_n(tk_strbuf *sb, const char *s, size_t n);
void tk_sb_appendf(tk_strbuf *sb, const char *fmt, ...) TK_PRINTF(2, 3);
void tk_sb_vappendf(tk_strbuf *sb, const char *fmt, va_list ap);
void tk_sb_repeat(tk_strbuf *sb, char c, size_t count);
/* Takes the string out of the buffer (caller frees with tk_free); the buffer is left empty. */
char *tk_sb_detach(tk_strbuf *sb);
const char *tk_sb_cstr(const tk_strbuf *sb);

#endif
