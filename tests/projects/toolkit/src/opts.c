/* opts.c - a getopt_long-style parser that collects results instead of iterating. */
#include "toolkit/opts.h"

#include <string.h>

static const tk_opt_spec *find_long(const tk_opt_spec *specs, size_t n, const char *name, size_t len)
{
    const tk_opt_spec *exact = NULL, *prefix = NULL;
    size_t i, prefix_hits = 0;

    for (i = 0; i < n; i++) {
        const char *ln = specs[i].long_name;

        if (!ln || strncmp(ln, name, len) != 0)
            continue;
        if (ln[len] == '\0')
            exact = &specs[i];
        else {
            prefix = &specs[i];
            prefix_hits++;
        }
    }
    if (exact)
        return exact;
    /* An unambiguous prefix is accepted, as getopt_long does. */
    return prefix_hits == 1 ? prefix : NULL;
}

static const tk_opt_spec *find_short(const tk_opt_spec *specs, size_t n, char c)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (specs[i].short_name == c)
            return &specs[i];
    return NULL;
}

static tk_status add_hit(tk_opt_result *res, int id, const char *value, int argi)
{
    if (res->nhits == TK_ARRAY_LEN(res->hits))
        return tk_error_set(&res->err, TK_ERR_OVERFLOW, argi, 0, "too many options");
    res->hits[res->nhits].id = id;
    res->hits[res->nhits].value = value;
    res->nhits++;
    return TK_OK;
}

static tk_status parse_long(const tk_opt_spec *specs, size_t nspecs, int argc, char **argv, int *i,
                            tk_opt_result *res)
{
    const char *arg = argv[*i] + 2;
    const char *eq = strchr(arg, '=');
    size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
    const tk_opt_spec *spec = find_long(specs, nspecs, arg, len);

    if (!spec)
        return tk_error_set(&res->err, TK_ERR_NOTFOUND, *i, 0, "unknown or ambiguous option --%.*s", (int)len, arg);
    if (spec->kind == TK_OPT_FLAG) {
        if (eq)
            return tk_error_set(&res->err, TK_ERR_INVALID, *i, 0, "option --%s takes no value", spec->long_name);
        return add_hit(res, spec->id, NULL, *i);
    }
    if (eq)
        return add_hit(res, spec->id, eq + 1, *i);
    if (*i + 1 >= argc)
        return tk_error_set(&res->err, TK_ERR_INVALID, *i, 0, "option --%s needs a value", spec->long_name);
    ++*i;
    return add_hit(res, spec->id, argv[*i], *i);
}

static tk_status parse_short(const tk_opt_spec *specs, size_t nspecs, int argc, char **argv, int *i,
                             tk_opt_result *res)
{
    const char *p = argv[*i] + 1;

    while (*p) {
        const tk_opt_spec *spec = find_short(specs, nspecs, *p);
        tk_status s;

        if (!spec)
            return tk_error_set(&res->err, TK_ERR_NOTFOUND, *i, (int)(p - argv[*i]), "unknown option -%c", *p);
        if (spec->kind == TK_OPT_FLAG) {
            if ((s = add_hit(res, spec->id, NULL, *i)) != TK_OK)
                return s;
            p++;
            continue;
        }
        /* A value option ends the bundle: the rest of the word, or the next word, is its value. */
        if (p[1])
            return add_hit(res, spec->id, p + 1, *i);
        if (*i + 1 >= argc)
            return tk_error_set(&res->err, TK_ERR_INVALID, *i, 0, "option -%c needs a value", *p);
        ++*i;
        return add_hit(res, spec->id, argv[*i], *i);
    }
    return TK_OK;
}

tk_status tk_opts_parse(const tk_opt_spec *specs, size_t nspecs, int argc, char **argv, tk_opt_result *res)
{
    int i, only_positional = 0;
    tk_status s = TK_OK;

    res->nhits = 0;
    res->npositional = 0;
    tk_error_clear(&res->err);
    for (i = 1; i < argc && s == TK_OK; i++) {
        const char *arg = argv[i];

        if (only_positional || arg[0] != '-' || arg[1] == '\0') {
            if (res->npositional == TK_ARRAY_LEN(res->positional))
                return tk_error_set(&res->err, TK_ERR_OVERFLOW, i, 0, "too many arguments");
            res->positional[res->npositional++] = arg;
        } else if (strcmp(arg, "--") == 0) {
            only_positional = 1;
        } else if (arg[1] == '-') {
            s = parse_long(specs, nspecs, argc, argv, &i, res);
        } else {
            s = parse_short(specs, nspecs, argc, argv, &i, res);
        }
    }
    return s;
}

const char *tk_opts_value(const tk_opt_result *res, int id)
{
    size_t i = res->nhits;

    while (i-- > 0)
        if (res->hits[i].id == id)
            return res->hits[i].value;
    return NULL;
}

int tk_opts_count(const tk_opt_result *res, int id)
{
    size_t i;
    int n = 0;

    for (i = 0; i < res->nhits; i++)
        n += res->hits[i].id == id;
    return n;
}

void tk_opts_help(tk_strbuf *out, const char *prog, const tk_opt_spec *specs, size_t nspecs)
{
    size_t i, width = 0;

    for (i = 0; i < nspecs; i++) {
        size_t w = specs[i].long_name ? strlen(specs[i].long_name) + 2 : 0;

        if (specs[i].kind == TK_OPT_VALUE)
            w += 6;
        if (w > width)
            width = w;
    }
    tk_sb_appendf(out, "usage: %s [options] [sections...]\n", prog);
    for (i = 0; i < nspecs; i++) {
        const tk_opt_spec *s = &specs[i];
        size_t start = out->len;

        tk_sb_append(out, "  ");
        if (s->short_name)
            tk_sb_appendf(out, "-%c%s", s->short_name, s->long_name ? ", " : "  ");
        else
            tk_sb_append(out, "    ");
        if (s->long_name)
            tk_sb_appendf(out, "--%s%s", s->long_name, s->kind == TK_OPT_VALUE ? "=VALUE" : "");
        /* Pad to a common column before the help text. */
        while (out->len - start < width + 8)
            tk_sb_putc(out, ' ');
        tk_sb_appendf(out, "%s\n", s->help);
    }
}
