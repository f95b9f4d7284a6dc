/* opts.h - command-line options: -x, -xVALUE, -x VALUE, bundled -abc, --name, --name=VALUE, --. */
#ifndef TOOLKIT_OPTS_H
#define TOOLKIT_OPTS_H

#include <stddef.h>

#include "toolkit/common.h"
#include "toolkit/strbuf.h"

typedef enum { TK_OPT_FLAG, TK_OPT_VALUE } tk_opt_kind;

typedef struct {
    const char *long_name;   /* without "--"; NULL: none */
    char short_name;         /* 0: none */
    tk_opt_kind kind;
    int id;
    const char *help;
} tk_opt_spec;

typedef struct {
    int id;
    const char *value;       /* NULL for flags */
} tk_opt_hit;

typedef struct {
    tk_opt_hit hits[32];
    size_t nhits;
    const char *positional[32];
    size_t npositional;
    tk_error err;
} tk_opt_result;

tk_status tk_opts_parse(const tk_opt_spec *specs, size_t nspecs, int argc, char **argv, tk_opt_result *res);
/* The value of the last occurrence of option id, or NULL. */
const char *tk_opts_value(const tk_opt_result *res, int id);
int tk_opts_count(const tk_opt_result *res, int id);
void tk_opts_help(tk_strbuf *out, const char *prog, const tk_opt_spec *specs, size_t nspecs);

#endif
