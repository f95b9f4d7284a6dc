/* expr.c - recursive-descent parser and tree-walking evaluator. */
#include "toolkit/expr.h"

#include <math.h>
#include <string.h>

#define MAX_ARGS 8
#define MAX_DEPTH 200

typedef struct {
    tk_expr_ctx *ctx;
    tk_lexer lx;
    int depth;
} parser;

static tk_expr *parse_expr(parser *ps);

static tk_expr *node(parser *ps, tk_expr_kind kind, const tk_token *at)
{
    tk_expr *e = TK_ARENA_NEW(&ps->ctx->arena, tk_expr);

    e->kind = kind;
    e->line = at->line;
    e->column = at->column;
    return e;
}

static int failed(const parser *ps)
{
    return ps->ctx->err.status != TK_OK;
}

static tk_expr *fail(parser *ps, const tk_token *at, const char *what)
{
    tk_error_set(&ps->ctx->err, TK_ERR_PARSE, at->line, at->column, "%s, found %s '%.*s'", what,
                 tk_token_name(at->kind), (int)at->len, at->start);
    return NULL;
}

static int expect(parser *ps, tk_token_kind kind, const char *what)
{
    tk_token t = tk_lexer_next(&ps->lx);

    if (t.kind == kind)
        return 1;
    fail(ps, &t, what);
    return 0;
}

static tk_expr *parse_call(parser *ps, tk_expr *call)
{
    tk_expr *args[MAX_ARGS];
    int n = 0;

    if (tk_lexer_peek(&ps->lx).kind != TOK_RPAREN) {
        do {
            tk_expr *arg;

            if (n == MAX_ARGS) {
                tk_token t = tk_lexer_peek(&ps->lx);

                return fail(ps, &t, "too many arguments");
            }
            arg = parse_expr(ps);
            if (!arg)
                return NULL;
            args[n++] = arg;
        } while (tk_lexer_peek(&ps->lx).kind == TOK_COMMA && (tk_lexer_next(&ps->lx), 1));
    }
    if (!expect(ps, TOK_RPAREN, "expected ')' after arguments"))
        return NULL;
    call->nargs = n;
    call->args = tk_arena_alloc(&ps->ctx->arena, sizeof(tk_expr *) * (size_t)(n ? n : 1));
    memcpy(call->args, args, sizeof(tk_expr *) * (size_t)n);
    return call;
}

static tk_expr *parse_primary(parser *ps)
{
    tk_token t = tk_lexer_next(&ps->lx);
    tk_expr *e;

    switch (t.kind) {
    case TOK_NUMBER:
        e = node(ps, EX_NUM, &t);
        e->number = t.number;
        return e;
    case TOK_IDENT:
        e = node(ps, EX_VAR, &t);
        e->name = tk_arena_strndup(&ps->ctx->arena, t.start, t.len);
        if (tk_lexer_peek(&ps->lx).kind == TOK_LPAREN) {
            tk_lexer_next(&ps->lx);
            e->kind = EX_CALL;
            return parse_call(ps, e);
        }
        return e;
    case TOK_LPAREN:
        e = parse_expr(ps);
        if (e && !expect(ps, TOK_RPAREN, "expected ')'"))
            return NULL;
        return e;
    default:
        return fail(ps, &t, "expected a number, a name or '('");
    }
}

static tk_expr *parse_unary(parser *ps);

static tk_expr *parse_power(parser *ps)
{
    tk_expr *base = parse_primary(ps), *e;
    tk_token t;

    if (!base || tk_lexer_peek(&ps->lx).kind != TOK_CARET)
        return base;
    t = tk_lexer_next(&ps->lx);
    e = node(ps, EX_BINARY, &t);
    e->op = TOK_CARET;
    e->lhs = base;
    e->rhs = parse_unary(ps);   /* right associative, binds tighter than unary minus on its left */
    return e->rhs ? e : NULL;
}

static tk_expr *parse_unary(parser *ps)
{
    tk_token t = tk_lexer_peek(&ps->lx);
    tk_expr *e;

    if (t.kind != TOK_MINUS && t.kind != TOK_NOT && t.kind != TOK_PLUS)
        return parse_power(ps);
    tk_lexer_next(&ps->lx);
    if (++ps->depth > MAX_DEPTH)
        return fail(ps, &t, "expression nested too deeply");
    e = parse_unary(ps);
    ps->depth--;
    if (!e || t.kind == TOK_PLUS)
        return e;
    {
        tk_expr *u = node(ps, EX_UNARY, &t);

        u->op = t.kind;
        u->lhs = e;
        return u;
    }
}

/* One left-associative binary level: ops lists the operators of the level, ending with TOK_EOF. */
static tk_expr *parse_level(parser *ps, const tk_token_kind *ops, tk_expr *(*operand)(parser *))
{
    tk_expr *lhs = operand(ps);

    while (lhs) {
        tk_token t = tk_lexer_peek(&ps->lx);
        const tk_token_kind *op = ops;
        tk_expr *e;

        while (*op != TOK_EOF && *op != t.kind)
            op++;
        if (*op == TOK_EOF)
            break;
        tk_lexer_next(&ps->lx);
        e = node(ps, EX_BINARY, &t);
        e->op = t.kind;
        e->lhs = lhs;
        e->rhs = operand(ps);
        lhs = e->rhs ? e : NULL;
    }
    return lhs;
}

static tk_expr *parse_term(parser *ps)
{
    static const tk_token_kind ops[] = {TOK_STAR, TOK_SLASH, TOK_PERCENT, TOK_EOF};
    return parse_level(ps, ops, parse_unary);
}

static tk_expr *parse_sum(parser *ps)
{
    static const tk_token_kind ops[] = {TOK_PLUS, TOK_MINUS, TOK_EOF};
    return parse_level(ps, ops, parse_term);
}

static tk_expr *parse_cmp(parser *ps)
{
    static const tk_token_kind ops[] = {TOK_EQ, TOK_NE, TOK_LT, TOK_LE, TOK_GT, TOK_GE, TOK_EOF};
    return parse_level(ps, ops, parse_sum);
}

static tk_expr *parse_and(parser *ps)
{
    static const tk_token_kind ops[] = {TOK_AND, TOK_EOF};
    return parse_level(ps, ops, parse_cmp);
}

static tk_expr *parse_or(parser *ps)
{
    static const tk_token_kind ops[] = {TOK_OR, TOK_EOF};
    return parse_level(ps, ops, parse_and);
}

static tk_expr *parse_expr(parser *ps)
{
    tk_expr *c = parse_or(ps), *e;
    tk_token t;

    if (!c || tk_lexer_peek(&ps->lx).kind != TOK_QUESTION)
        return c;
    t = tk_lexer_next(&ps->lx);
    if (++ps->depth > MAX_DEPTH)
        return fail(ps, &t, "expression nested too deeply");
    e = node(ps, EX_COND, &t);
    e->cond = c;
    e->lhs = parse_expr(ps);
    if (!e->lhs || !expect(ps, TOK_COLON, "expected ':' in a conditional"))
        return NULL;
    e->rhs = parse_expr(ps);
    ps->depth--;
    return e->rhs ? e : NULL;
}

static tk_expr *parse_stmt(parser *ps)
{
    tk_token first = tk_lexer_peek(&ps->lx);
    tk_expr *target, *e;

    target = parse_expr(ps);
    if (!target || tk_lexer_peek(&ps->lx).kind != TOK_ASSIGN)
        return target;
    if (target->kind != EX_VAR)
        return fail(ps, &first, "only a name can be assigned to");
    tk_lexer_next(&ps->lx);
    e = node(ps, EX_ASSIGN, &first);
    e->name = target->name;
    e->rhs = parse_expr(ps);
    return e->rhs ? e : NULL;
}

tk_expr *tk_expr_parse(tk_expr_ctx *ctx, const char *src)
{
    parser ps;
    tk_expr *prog = NULL;

    ps.ctx = ctx;
    ps.depth = 0;
    tk_lexer_init(&ps.lx, src);
    while (!failed(&ps)) {
        tk_token t = tk_lexer_peek(&ps.lx);
        tk_expr *stmt;

        if (t.kind == TOK_EOF)
            break;
        if (t.kind == TOK_SEMI) {
            tk_lexer_next(&ps.lx);
            continue;
        }
        stmt = parse_stmt(&ps);
        if (!stmt)
            break;
        t = tk_lexer_peek(&ps.lx);
        if (t.kind != TOK_SEMI && t.kind != TOK_EOF) {
            fail(&ps, &t, "expected ';' between statements");
            break;
        }
        if (!prog) {
            prog = stmt;
        } else {
            tk_expr *seq = node(&ps, EX_SEQ, &t);

            seq->lhs = prog;
            seq->rhs = stmt;
            prog = seq;
        }
    }
    if (failed(&ps))
        return NULL;
    if (!prog) {
        tk_token t = tk_lexer_peek(&ps.lx);

        tk_error_set(&ctx->err, TK_ERR_EMPTY, t.line, t.column, "empty program");
    }
    return prog;
}

void tk_expr_ctx_init(tk_expr_ctx *ctx)
{
    tk_arena_init(&ctx->arena, 8192);
    tk_hm_init(&ctx->vars);
    tk_error_clear(&ctx->err);
    ctx->evals = 0;
}

void tk_expr_ctx_free(tk_expr_ctx *ctx)
{
    tk_hm_free(&ctx->vars, NULL);
    tk_arena_free(&ctx->arena);
}

void tk_expr_set(tk_expr_ctx *ctx, const char *name, double value)
{
    void **slot = tk_hm_slot_for(&ctx->vars, name);

    if (!*slot)
        *slot = tk_arena_alloc(&ctx->arena, sizeof(double));
    *(double *)*slot = value;
}

int tk_expr_get(const tk_expr_ctx *ctx, const char *name, double *out)
{
    const double *cell = tk_hm_get(&ctx->vars, name);

    if (!cell)
        return 0;
    *out = *cell;
    return 1;
}
