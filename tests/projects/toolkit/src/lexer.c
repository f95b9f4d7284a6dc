/* lexer.c - hand-written scanner: skips blanks and '#' comments, tracks lines and columns. */
#include "toolkit/lexer.h"

#include <ctype.h>
#include <stdlib.h>

static const char *const token_names[] = {
    "eof", "number", "identifier",
    "'+'", "'-'", "'*'", "'/'", "'%'", "'^'",
    "'('", "')'", "','", "';'", "'='", "'?'", "':'",
    "'=='", "'!='", "'<'", "'<='", "'>'", "'>='",
    "'&&'", "'||'", "'!'",
    "error",
};

const char *tk_token_name(tk_token_kind kind)
{
    if ((size_t)kind >= TK_ARRAY_LEN(token_names))
        return "?";
    return token_names[kind];
}

void tk_lexer_init(tk_lexer *lx, const char *src)
{
    lx->src = src;
    lx->p = src;
    lx->line = 1;
    lx->line_start = src;
    lx->has_peeked = 0;
}

static void skip_space(tk_lexer *lx)
{
    for (;;) {
        char c = *lx->p;

        if (c == '\n') {
            lx->p++;
            lx->line++;
            lx->line_start = lx->p;
        } else if (c == ' ' || c == '\t' || c == '\r') {
            lx->p++;
        } else if (c == '#') {
            while (*lx->p && *lx->p != '\n')
                lx->p++;
        } else {
            return;
        }
    }
}

static tk_token make(tk_lexer *lx, tk_token_kind kind, const char *start, size_t len)
{
    tk_token t;

    t.kind = kind;
    t.start = start;
    t.len = len;
    t.number = 0.0;
    t.line = lx->line;
    t.column = (int)(start - lx->line_start) + 1;
    lx->p = start + len;
    return t;
}

static tk_token two_char(tk_lexer *lx, const char *s, char second, tk_token_kind both, tk_token_kind one)
{
    if (s[1] == second)
        return make(lx, both, s, 2);
    return make(lx, one, s, 1);
}

static tk_token scan(tk_lexer *lx)
{
    const char *s;

    skip_space(lx);
    s = lx->p;
    if (*s == '\0')
        return make(lx, TOK_EOF, s, 0);
    if (isdigit((unsigned char)*s) || (*s == '.' && isdigit((unsigned char)s[1]))) {
        char *end;
        double v = strtod(s, &end);
        tk_token t = make(lx, TOK_NUMBER, s, (size_t)(end - s));

        t.number = v;
        return t;
    }
    if (isalpha((unsigned char)*s) || *s == '_') {
        const char *e = s;

        while (isalnum((unsigned char)*e) || *e == '_')
            e++;
        return make(lx, TOK_IDENT, s, (size_t)(e - s));
    }
    switch (*s) {
    case '+': return make(lx, TOK_PLUS, s, 1);
    case '-': return make(lx, TOK_MINUS, s, 1);
    case '*': return make(lx, TOK_STAR, s, 1);
    case '/': return make(lx, TOK_SLASH, s, 1);
    case '%': return make(lx, TOK_PERCENT, s, 1);
    case '^': return make(lx, TOK_CARET, s, 1);
    case '(': return make(lx, TOK_LPAREN, s, 1);
    case ')': return make(lx, TOK_RPAREN, s, 1);
    case ',': return make(lx, TOK_COMMA, s, 1);
    case ';': return make(lx, TOK_SEMI, s, 1);
    case '?': return make(lx, TOK_QUESTION, s, 1);
    case ':': return make(lx, TOK_COLON, s, 1);
    case '=': return two_char(lx, s, '=', TOK_EQ, TOK_ASSIGN);
    case '!': return two_char(lx, s, '=', TOK_NE, TOK_NOT);
    case '<': return two_char(lx, s, '=', TOK_LE, TOK_LT);
    case '>': return two_char(lx, s, '=', TOK_GE, TOK_GT);
    case '&':
        if (s[1] == '&')
            return make(lx, TOK_AND, s, 2);
        break;
    case '|':
        if (s[1] == '|')
            return make(lx, TOK_OR, s, 2);
        break;
    default:
        break;
    }
    return make(lx, TOK_ERROR, s, 1);
}

tk_token tk_lexer_next(tk_lexer *lx)
{
    if (lx->has_peeked) {
        lx->has_peeked = 0;
        return lx->peeked;
    }
    return scan(lx);
}

/* The scanner's state is already past the peeked token: next() just hands it over. */
tk_token tk_lexer_peek(tk_lexer *lx)
{
    if (!lx->has_peeked) {
        lx->peeked = scan(lx);
        lx->has_peeked = 1;
    }
    return lx->peeked;
}

