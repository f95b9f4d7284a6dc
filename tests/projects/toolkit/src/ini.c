/* ini.c - line-oriented INI parsing into a linked list of entries. */
#include "toolkit/ini.h"
#include "toolkit/strutil.h"

#include <ctype.h>
#include <string.h>

static void append(tk_ini *ini, const char *section, const char *key, const char *value, int line)
{
    tk_ini_entry *e = tk_malloc(sizeof *e);

    e->section = tk_strdup(section);
    e->key = tk_strdup(key);
    e->value = tk_strdup(value);
    e->line = line;
    e->next = NULL;
    if (ini->last)
        ini->last->next = e;
    else
        ini->first = e;
    ini->last = e;
    ini->count++;
}

/* Strips an unquoted trailing comment and, for "quoted" values, the quotes (with \" and \\). */
static int clean_value(char *v)
{
    char *r, *w;

    if (*v != '"') {
        char *c = v;

        while (*c && !((*c == ';' || *c == '#') && (c == v || isspace((unsigned char)c[-1]))))
            c++;
        *c = '\0';
        tk_str_trim(v);
        return 1;
    }
    r = v + 1;
    w = v;
    while (*r && *r != '"') {
        if (*r == '\\' && (r[1] == '"' || r[1] == '\\'))
            r++;
        *w++ = *r++;
    }
    if (*r != '"')
        return 0;
    *w = '\0';
    return 1;
}

tk_status tk_ini_parse(tk_ini *ini, const char *text, tk_error *err)
{
    char section[64] = "";
    char *copy = tk_strdup(text), *line = copy;
    int lineno = 0;
    tk_status status = TK_OK;

    ini->first = ini->last = NULL;
    ini->count = 0;
    ini->sections = 0;
    while (line && status == TK_OK) {
        char *next = strchr(line, '\n'), *s, *eq;

        if (next)
            *next++ = '\0';
        lineno++;
        s = tk_str_trim(line);
        line = next;
        if (*s == '\0' || *s == ';' || *s == '#')
            continue;
        if (*s == '[') {
            char *close = strchr(s, ']');

            if (!close || close[1] != '\0') {
                status = tk_error_set(err, TK_ERR_PARSE, lineno, 1, "unterminated section header");
                break;
            }
            *close = '\0';
            s = tk_str_trim(s + 1);
            if (strlen(s) >= sizeof section) {
                status = tk_error_set(err, TK_ERR_RANGE, lineno, 2, "section name too long");
                break;
            }
            strcpy(section, s);
            tk_str_lower(section);
            ini->sections++;
            continue;
        }
        eq = strchr(s, '=');
        if (!eq) {
            status = tk_error_set(err, TK_ERR_PARSE, lineno, 1, "expected key = value");
            break;
        }
        *eq = '\0';
        {
            char *key = tk_str_trim(s), *value = tk_str_trim(eq + 1);

            if (*key == '\0') {
                status = tk_error_set(err, TK_ERR_PARSE, lineno, 1, "empty key");
                break;
            }
            if (!clean_value(value)) {
                status = tk_error_set(err, TK_ERR_PARSE, lineno, (int)(value - s) + 1, "unterminated quoted value");
                break;
            }
            tk_str_lower(key);
            append(ini, section, key, value, lineno);
        }
    }
    tk_free(copy);
    if (status != TK_OK)
        tk_ini_free(ini);
    return status;
}

void tk_ini_free(tk_ini *ini)
{
    tk_ini_entry *e = ini->first;

    while (e) {
        tk_ini_entry *next = e->next;

        tk_free(e->section);
        tk_free(e->key);
        tk_free(e->value);
        tk_free(e);
        e = next;
    }
    ini->first = ini->last = NULL;
    ini->count = 0;
}

const char *tk_ini_get(const tk_ini *ini, const char *section, const char *key)
{
    const tk_ini_entry *e;
    const char *found = NULL;

    for (e = ini->first; e; e = e->next) {
        if (tk_str_casecmp(e->section, section) == 0 && tk_str_casecmp(e->key, key) == 0)
            found = e->value;
    }
    return found;
}

const char *tk_ini_get_default(const tk_ini *ini, const char *section, const char *key, const char *fallback)
{
    const char *v = tk_ini_get(ini, section, key);

    return v ? v : fallback;
}

long tk_ini_get_long(const tk_ini *ini, const char *section, const char *key, long fallback)
{
    const char *v = tk_ini_get(ini, section, key);
    long out;

    if (!v || tk_str_to_long(v, &out) != TK_OK)
        return fallback;
    return out;
}

