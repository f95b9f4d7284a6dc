/* strutil.c - string helpers. */
#include "toolkit/strutil.h"
#include "toolkit/strbuf.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

bool tk_str_starts_with(const char *s, const char *prefix)
{
    while (*prefix) {
        if (*s++ != *prefix++)
            return false;
    }
    return true;
}

bool tk_str_ends_with(const char *s, const char *suffix)
{
    size_t ls = strlen(s), lx = strlen(suffix);

    return lx <= ls && memcmp(s + ls - lx, suffix, lx) == 0;
}

int tk_str_casecmp(const char *a, const char *b)
{
    const unsigned char *p = (const unsigned char *)a, *q = (const unsigned char *)b;

    while (*p && tolower(*p) == tolower(*q)) {
        p++;
        q++;
    }
    return tolower(*p) - tolower(*q);
}

char *tk_str_trim(char *s)
{
    char *end;

    while (isspace((unsigned char)*s))
        s++;
    end = s + strlen(s);
    while (end > s && isspace((unsigned char)end[-1]))
        end--;
    *end = '\0';
    return s;
}

void tk_str_lower(char *s)
{
    for (; *s; s++)
        *s = (char)tolower((unsigned char)*s);
}

size_t tk_str_split(char *s, char sep, char **parts, size_t max)
{
    size_t n = 0;

    if (max == 0)
        return 0;
    parts[n++] = s;
    while (*s) {
        if (*s == sep) {
            *s = '\0';
            if (n == max)
                break;
            parts[n++] = s + 1;
        }
        s++;
    }
    return n;
}

size_t tk_str_count(const char *s, const char *needle)
{
    size_t n = 0, len = strlen(needle);
    const char *p = s;

    if (len == 0)
        return 0;
    while ((p = strstr(p, needle)) != NULL) {
        n++;
        p += len;
    }
    return n;
}

char *tk_str_replace(const char *s, const char *from, const char *to)
{
    tk_strbuf sb;
    size_t len = strlen(from);
    const char *hit;

    tk_sb_init(&sb);
    if (len == 0) {
        tk_sb_append(&sb, s);
        return tk_sb_detach(&sb);
    }
    while ((hit = strstr(s, from)) != NULL) {
        tk_sb_append_n(&sb, s, (size_t)(hit - s));
        tk_sb_append(&sb, to);
        s = hit + len;
    }
    tk_sb_append(&sb, s);
    return tk_sb_detach(&sb);
}

tk_status tk_str_to_long(const char *s, long *out)
{
    char *end;
    long v;

    if (!s || !*s)
        return TK_ERR_EMPTY;
    errno = 0;
    v = strtol(s, &end, 0);
    if (errno == ERANGE)
        return TK_ERR_RANGE;
    if (*end != '\0')
        return TK_ERR_PARSE;
    *out = v;
    return TK_OK;
}

tk_status tk_str_to_double(const char *s, double *out)
{
    char *end;
    double v;

    if (!s || !*s)
        return TK_ERR_EMPTY;
    errno = 0;
    v = strtod(s, &end);
    if (errno == ERANGE)
        return TK_ERR_RANGE;
    if (*end != '\0')
        return TK_ERR_PARSE;
    *out = v;
    return TK_OK;
}

bool tk_str_match(const char *pattern, const char *s)
{
    const char *star = NULL, *resume = NULL;

    while (*s) {
        if (*pattern == '?' || *pattern == *s) {
            pattern++;
            s++;
        } else if (*pattern == '*') {
            star = pattern++;
            resume = s;
        } else if (star) {
            pattern = star + 1;
            s = ++resume;
        } else {
            return false;
        }
    }
    while (*pattern == '*')
        pattern++;
    return *pattern == '\0';
}
