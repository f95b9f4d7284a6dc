/* strbuf.c - growable string buffer. */
#include "toolkit/strbuf.h"

#include <stdio.h>
#include <string.h>

static char empty_string[1];

void tk_sb_init(tk_strbuf *sb)
{
    sb->data = NULL;
    sb->len = 0;
    sb->cap = 0;
}

void tk_sb_free(tk_strbuf *sb)
{
    tk_free(sb->data);
    tk_sb_init(sb);
}

void tk_sb_reset(tk_strbuf *sb)
{
    sb->len = 0;
    if (sb->data)
        sb->data[0] = '\0';
}

void tk_sb_reserve(tk_strbuf *sb, size_t extra)
{
    size_t need = sb->len + extra + 1;
    size_t cap = sb->cap ? sb->cap : 32;

    if (need <= sb->cap)
        return;
    while (cap < need)
        cap *= 2;
    sb->data = tk_realloc(sb->data, cap);
    if (sb->cap == 0)
        sb->data[0] = '\0';   /* a fresh buffer holds the empty string */
    sb->cap = cap;
}

void tk_sb_putc(tk_strbuf *sb, char c)
{
    tk_sb_reserve(sb, 1);
    sb->data[sb->len++] = c;
    sb->data[sb->len] = '\0';
}

void tk_sb_append_n(tk_strbuf *sb, const char *s, size_t n)
{
    tk_sb_reserve(sb, n);
    memcpy(sb->data + sb->len, s, n);
    sb->len += n;
    sb->data[sb->len] = '\0';
}

void tk_sb_append(tk_strbuf *sb, const char *s)
{
    tk_sb_append_n(sb, s, strlen(s));
}

void tk_sb_vappendf(tk_strbuf *sb, const char *fmt, va_list ap)
{
    va_list copy;
    int n;

    va_copy(copy, ap);
    n = vsnprintf(NULL, 0, fmt, copy);
    va_end(copy);
    if (n < 0)
        return;
    tk_sb_reserve(sb, (size_t)n);
    vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap);
    sb->len += (size_t)n;
}

void tk_sb_appendf(tk_strbuf *sb, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    tk_sb_vappendf(sb, fmt, ap);
    va_end(ap);
}

void tk_sb_repeat(tk_strbuf *sb, char c, size_t count)
{
    tk_sb_reserve(sb, count);
    memset(sb->data + sb->len, c, count);
    sb->len += count;
    sb->data[sb->len] = '\0';
}

char *tk_sb_detach(tk_strbuf *sb)
{
    char *s = sb->data;

    if (!s)
        s = tk_strdup("");
    tk_sb_init(sb);
    return s;
}

const char *tk_sb_cstr(const tk_strbuf *sb)
{
    return sb->data ? sb->data : empty_string;
}
