/* json.c - JSON writer: tracks nesting so commas, newlines and indentation come out right. */
#include "toolkit/json.h"

#include <math.h>
#include <stdio.h>

void tk_json_init(tk_json *j, tk_strbuf *out, int indent)
{
    j->out = out;
    j->indent = indent;
    j->depth = 0;
    j->expect_value = false;
    j->status = TK_OK;
}

static void newline(tk_json *j)
{
    if (j->indent <= 0)
        return;
    tk_sb_putc(j->out, '\n');
    tk_sb_repeat(j->out, ' ', (size_t)(j->depth * j->indent));
}

/* Everything that starts a value: the separator before it, and a check that it is allowed here. */
static int before_value(tk_json *j)
{
    if (j->status != TK_OK)
        return 0;
    if (j->expect_value) {
        j->expect_value = false;
        return 1;
    }
    if (j->depth > 0) {
        if (j->stack[j->depth - 1] == '{') {
            j->status = TK_ERR_INVALID;   /* a value in an object needs a key first */
            return 0;
        }
        if (j->count[j->depth - 1]++ > 0)
            tk_sb_putc(j->out, ',');
        newline(j);
    }
    return 1;
}

static void open_container(tk_json *j, char c)
{
    if (!before_value(j))
        return;
    if (j->depth == TK_JSON_MAX_DEPTH) {
        j->status = TK_ERR_OVERFLOW;
        return;
    }
    tk_sb_putc(j->out, c);
    j->stack[j->depth] = c;
    j->count[j->depth] = 0;
    j->depth++;
}

static void close_container(tk_json *j, char open_c, char c)
{
    if (j->status != TK_OK)
        return;
    if (j->depth == 0 || j->stack[j->depth - 1] != open_c || j->expect_value) {
        j->status = TK_ERR_INVALID;
        return;
    }
    j->depth--;
    if (j->count[j->depth] > 0)
        newline(j);
    tk_sb_putc(j->out, c);
}

void tk_json_begin_object(tk_json *j) { open_container(j, '{'); }
void tk_json_end_object(tk_json *j) { close_container(j, '{', '}'); }
void tk_json_begin_array(tk_json *j) { open_container(j, '['); }
void tk_json_end_array(tk_json *j) { close_container(j, '[', ']'); }

void tk_json_escape(tk_strbuf *out, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;

    tk_sb_putc(out, '"');
    while (*p) {
        unsigned char c = *p++;

        switch (c) {
        case '"': tk_sb_append(out, "\\\""); break;
        case '\\': tk_sb_append(out, "\\\\"); break;
        case '\n': tk_sb_append(out, "\\n"); break;
        case '\r': tk_sb_append(out, "\\r"); break;
        case '\t': tk_sb_append(out, "\\t"); break;
        case '\b': tk_sb_append(out, "\\b"); break;
        case '\f': tk_sb_append(out, "\\f"); break;
        default:
            if (c < 0x20)
                tk_sb_appendf(out, "\\u%04x", c);
            else
                tk_sb_putc(out, (char)c);   /* UTF-8 passes through */
        }
    }
    tk_sb_putc(out, '"');
}

void tk_json_key(tk_json *j, const char *key)
{
    if (j->status != TK_OK)
        return;
    if (j->depth == 0 || j->stack[j->depth - 1] != '{' || j->expect_value) {
        j->status = TK_ERR_INVALID;
        return;
    }
    if (j->count[j->depth - 1]++ > 0)
        tk_sb_putc(j->out, ',');
    newline(j);
    tk_json_escape(j->out, key);
    tk_sb_append(j->out, j->indent > 0 ? ": " : ":");
    j->expect_value = true;
}

void tk_json_string(tk_json *j, const char *s)
{
    if (before_value(j))
        tk_json_escape(j->out, s);
}

void tk_json_int(tk_json *j, long v)
{
    if (before_value(j))
        tk_sb_appendf(j->out, "%ld", v);
}

void tk_json_double(tk_json *j, double v)
{
    if (!before_value(j))
        return;
    if (isnan(v) || isinf(v))
        tk_sb_append(j->out, "null");   /* JSON has no NaN or infinity */
    else
        tk_sb_appendf(j->out, "%.6g", v);
}

void tk_json_bool(tk_json *j, bool v)
{
    if (before_value(j))
        tk_sb_append(j->out, v ? "true" : "false");
}

void tk_json_null(tk_json *j)
{
    if (before_value(j))
        tk_sb_append(j->out, "null");
}

tk_status tk_json_finish(tk_json *j)
{
    if (j->status == TK_OK && (j->depth != 0 || j->expect_value))
        j->status = TK_ERR_INVALID;
    return j->status;
}
