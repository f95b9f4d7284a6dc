/* lexer.h - a tokenizer for the expression language (numbers, names, operators). */
#ifndef TOOLKIT_LEXER_H
#define TOOLKIT_LEXER_H

#include <stddef.h>

#include "toolkit/common.h"

typedef enum {
    TOK_EOF,
    TOK_NUMBER,
    TOK_IDENT,
    TOK_PLUS, TOK_MINUS, TOK_STAR, TOK_SLASH, TOK_PERCENT, TOK_CARET,
    TOK_LPAREN, TOK_RPAREN, TOK_COMMA, TOK_SEMI, TOK_ASSIGN, TOK_QUESTION, TOK_COLON,
    TOK_EQ, TOK_NE, TOK_LT, TOK_LE, TOK_GT, TOK_GE,
    TOK_AND, TOK_OR, TOK_NOT,
    TOK_ERROR
} tk_token_kind;

typedef struct {
    tk_token_kind kind;
    const char *start;   /* into the source text */
    size_t len;
    double number;
    int line;
    int column;
} tk_token;

typedef struct {
    const char *src;
    const char *p;
    int line;
    const char *line_start;
    tk_token peeked;
    int has_peeked;
} tk_lexer;

void tk_lexer_init(tk_lexer *lx, const char *src);
tk_token tk_lexer_next(tk_lexer *lx);
tk_token tk_lexer_peek(tk_lexer *lx);
const char *tk_token_name(tk_token_kind kind);

#endif
