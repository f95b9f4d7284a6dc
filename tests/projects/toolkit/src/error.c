/* error.c - status strings and positioned error messages. */
#include "toolkit/common.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static const char *const status_names[TK_ERR__COUNT] = {
    [TK_OK] = "ok",
    [TK_ERR_NOMEM] = "out of memory",
    [TK_ERR_PARSE] = "parse error",
    [TK_ERR_RANGE] = "value out of range",
    [TK_ERR_NOTFOUND] = "not found",
    [TK_ERR_INVALID] = "invalid argument",
    [TK_ERR_OVERFLOW] = "overflow",
    [TK_ERR_EMPTY] = "empty",
};

const char *tk_strerror(tk_status s)
{
    if ((int)s < 0 || s >= TK_ERR__COUNT)
        return "unknown error";
    return status_names[s];
}

void tk_error_clear(tk_error *err)
{
    if (!err)
        return;
    err->status = TK_OK;
    err->line = 0;
    err->column = 0;
    err->message[0] = '\0';
}

tk_status tk_error_set(tk_error *err, tk_status s, int line, int column, const char *fmt, ...)
{
    va_list ap;

    if (!err)
        return s;
    /* Keep the first error: later ones are usually consequences of it. */
    if (err->status != TK_OK)
        return err->status;
    err->status = s;
    err->line = line;
    err->column = column;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    return s;
}

const char *tk_error_format(const tk_error *err, char *buf, size_t size)
{
    if (!err || err->status == TK_OK) {
        snprintf(buf, size, "no error");
        return buf;
    }
    if (err->line > 0)
        snprintf(buf, size, "line %d:%d: %s (%s)", err->line, err->column, err->message,
                 tk_strerror(err->status));
    else
        snprintf(buf, size, "%s (%s)", err->message, tk_strerror(err->status));
    return buf;
}

void tk_fatal(const char *fmt, ...)
{
    va_list ap;

    fflush(stdout);
    fputs("toolkit: fatal: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(2);
}
