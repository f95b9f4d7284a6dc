/* ini.h - a small INI parser: [sections], key = value, ';' and '#' comments, quoted values. */
#ifndef TOOLKIT_INI_H
#define TOOLKIT_INI_H

#include <stdbool.h>
#include <stddef.h>

#include "toolkit/common.h"

typedef struct tk_ini_entry {
    char *section;
    char *key;
    char *value;
    int line;
    struct tk_ini_entry *next;
} tk_ini_entry;

typedef struct {
    tk_ini_entry *first;
    tk_ini_entry *last;
    size_t count;
    size_t sections;
} tk_ini;

tk_status tk_ini_parse(tk_ini *ini, const char *text, tk_error *err);
void tk_ini_free(tk_ini *ini);
/* The last value given for section.key (later lines override earlier ones). */
const char *tk_ini_get(const tk_ini *ini, const char *section, const char *key);
const char *tk_ini_get_default(const tk_ini *ini, const char *section, const char *key, const char *fallback);
long tk_ini_get_long(const tk_ini *ini, const char *section, const char *key, long fallback);

#endif
