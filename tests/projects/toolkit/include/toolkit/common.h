/* common.h - status codes, error reporting and checked allocation shared by every module. */
#ifndef TOOLKIT_COMMON_H
#define TOOLKIT_COMMON_H

#include <stddef.h>
#include <stdint.h>

#define TK_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define TK_MIN(a, b) ((a) < (b) ? (a) : (b))
#define TK_MAX(a, b) ((a) > (b) ? (a) : (b))
#define TK_UNUSED(x) ((void)(x))

#if defined(__GNUC__)
#define TK_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#define TK_NORETURN __attribute__((noreturn))
#else
#define TK_PRINTF(fmt, args)
#define TK_NORETURN
#endif

typedef enum {
    TK_OK = 0,
    TK_ERR_NOMEM,
    TK_ERR_PARSE,
    TK_ERR_RANGE,
    TK_ERR_NOTFOUND,
    TK_ERR_INVALID,
    TK_ERR_OVERFLOW,
    TK_ERR_EMPTY,
    TK_ERR__COUNT
} tk_status;

/* An error with a position and a message, filled in by the parsers. */
typedef struct {
    tk_status status;
    int line;
    int column;
    char message[128];
} tk_error;

const char *tk_strerror(tk_status s);
void tk_error_clear(tk_error *err);
tk_status tk_error_set(tk_error *err, tk_status s, int line, int column, const char *fmt, ...) TK_PRINTF(5, 6);
/* "line L:C: message (status)" into buf; returns buf. */
const char *tk_error_format(const tk_error *err, char *buf, size_t size);
void tk_fatal(const char *fmt, ...) TK_PRINTF(1, 2) TK_NORETURN;

/* Checked allocation: abort with a message instead of returning NULL. */
void *tk_malloc(size_t size);
void *tk_calloc(size_t count, size_t size);
void *tk_realloc(void *ptr, size_t size);
char *tk_strdup(const char *s);
char *tk_strndup(const char *s, size_t n);
void tk_free(void *ptr);
/* Number of blocks obtained from tk_malloc and friends and not yet freed. */
long tk_live_allocations(void);

#endif
