/* json.h - a streaming JSON writer with pretty printing and proper string escaping. */
#ifndef TOOLKIT_JSON_H
#define TOOLKIT_JSON_H

#include <stdbool.h>
#include <stddef.h>

#include "toolkit/common.h"
#include "toolkit/strbuf.h"

#define TK_JSON_MAX_DEPTH 32

typedef struct {
    tk_strbuf *out;
    int indent;                          /* spaces per level; 0: compact */
    int depth;
    char stack[TK_JSON_MAX_DEPTH];       /* '{' or '[' per open level */
    int count[TK_JSON_MAX_DEPTH];        /* members written per level */
    bool expect_value;                   /* a key was just written */
    tk_status status;
} tk_json;

void tk_json_init(tk_json *j, tk_strbuf *out, int indent);
void tk_json_begin_object(tk_json *j);
void tk_json_end_object(tk_json *j);
void tk_json_begin_array(tk_json *j);
void tk_json_end_array(tk_json *j);
void tk_json_key(tk_json *j, const char *key);
void tk_json_string(tk_json *j, const char *s);
void tk_json_int(tk_json *j, long v);
void tk_json_double(tk_json *j, double v);
void tk_json_bool(tk_json *j, bool v);
void tk_json_null(tk_json *j);
/* TK_OK once every container is closed and no misuse was seen. */
tk_status tk_json_finish(tk_json *j);
void tk_json_escape(tk_strbuf *out, const char *s);

#endif
