/* strutil.h - small string helpers that the C library lacks. */
#ifndef TOOLKIT_STRUTIL_H
#define TOOLKIT_STRUTIL_H

#include <stdbool.h>
#include <stddef.h>

#include "toolkit/common.h"

bool tk_str_starts_with(const char *s, const char *prefix);
bool tk_str_ends_with(const char *s, const char *suffix);
int tk_str_casecmp(const char *a, const char *b);
/* Trims ASCII white space in place; returns s advanced past the leading blanks. */
char *tk_str_trim(char *s);
void tk_str_lower(char *s);
/* Splits s at every sep; fills at most max pointers into s (modified) and returns the count. */
size_t tk_str_split(char *s, char sep, char **parts, size_t max);
size_t tk_str_count(const char *s, const char *needle);
/* A newly allocated copy of s with every `from` replaced by `to`. */
char *tk_str_replace(const char *s, const char *from, const char *to);
tk_status tk_str_to_long(const char *s, long *out);
tk_status tk_str_to_double(const char *s, double *out);
/* Glob match with '*' and '?'. */
bool tk_str_match(const char *pattern, const char *s);

#endif
