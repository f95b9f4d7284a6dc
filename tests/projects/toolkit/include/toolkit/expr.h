/* expr.h - parse and evaluate a small expression language:
 *
 *   program := stmt (';' stmt)* [';']
 *   stmt    := NAME '=' expr | expr
 *   expr    := or ['?' expr ':' expr]       (right associative)
 *   or      := and ('||' and)*    and := cmp ('&&' cmp)*
 *   cmp     := sum (('=='|'!='|'<'|'<='|'>'|'>=') sum)*
 *   sum     := term (('+'|'-') term)*       term := unary (('*'|'/'|'%') unary)*
 *   unary   := ('-'|'!'|'+') unary | power  power := primary ['^' unary]
 *   primary := NUMBER | NAME | NAME '(' args ')' | '(' expr ')'
 */
#ifndef TOOLKIT_EXPR_H
#define TOOLKIT_EXPR_H

#include "toolkit/arena.h"
#include "toolkit/common.h"
#include "toolkit/hashmap.h"
#include "toolkit/lexer.h"
#include "toolkit/strbuf.h"

typedef enum { EX_NUM, EX_VAR, EX_UNARY, EX_BINARY, EX_COND, EX_CALL, EX_ASSIGN, EX_SEQ } tk_expr_kind;

typedef struct tk_expr {
    tk_expr_kind kind;
    tk_token_kind op;
    double number;
    const char *name;
    struct tk_expr *lhs, *rhs, *cond;
    struct tk_expr **args;
    int nargs;
    int line, column;
} tk_expr;

typedef struct {
    tk_arena arena;      /* AST nodes, names, variable cells */
    tk_hashmap vars;     /* name -> double * (in the arena) */
    tk_error err;
    unsigned long evals; /* nodes evaluated */
} tk_expr_ctx;

void tk_expr_ctx_init(tk_expr_ctx *ctx);
void tk_expr_ctx_free(tk_expr_ctx *ctx);
tk_expr *tk_expr_parse(tk_expr_ctx *ctx, const char *src);
tk_status tk_expr_eval(tk_expr_ctx *ctx, const tk_expr *e, double *out);
/* Parses and evaluates src; the value of the last statement goes to *out. */
tk_status tk_expr_run(tk_expr_ctx *ctx, const char *src, double *out);
void tk_expr_set(tk_expr_ctx *ctx, const char *name, double value);
int tk_expr_get(const tk_expr_ctx *ctx, const char *name, double *out);
/* Fully parenthesized form of e. */
void tk_expr_print(tk_strbuf *out, const tk_expr *e);

#endif
