/* eval.c - evaluation, printing and measuring of expression trees built by expr.c. */
#include "toolkit/expr.h"

#include <math.h>
#include <string.h>

typedef struct {
    const char *name;
    int min_args, max_args;
    double (*fn)(const double *args, int n);
} builtin;

static double fn_abs(const double *a, int n) { TK_UNUSED(n); return fabs(a[0]); }
static double fn_sqrt(const double *a, int n) { TK_UNUSED(n); return sqrt(a[0]); }
static double fn_floor(const double *a, int n) { TK_UNUSED(n); return floor(a[0]); }
static double fn_ceil(const double *a, int n) { TK_UNUSED(n); return ceil(a[0]); }
static double fn_hypot(const double *a, int n) { TK_UNUSED(n); return hypot(a[0], a[1]); }

static double fn_min(const double *a, int n)
{
    double m = a[0];

    while (--n > 0)
        if (a[n] < m)
            m = a[n];
    return m;
}

static double fn_max(const double *a, int n)
{
    double m = a[0];

    while (--n > 0)
        if (a[n] > m)
            m = a[n];
    return m;
}

static double fn_clamp(const double *a, int n)
{
    TK_UNUSED(n);
    return a[0] < a[1] ? a[1] : a[0] > a[2] ? a[2] : a[0];
}

static const builtin builtins[] = {
    {"abs", 1, 1, fn_abs},     {"sqrt", 1, 1, fn_sqrt}, {"floor", 1, 1, fn_floor},
    {"ceil", 1, 1, fn_ceil},   {"hypot", 2, 2, fn_hypot}, {"min", 1, 8, fn_min},
    {"max", 1, 8, fn_max},     {"clamp", 3, 3, fn_clamp},
};

static const builtin *find_builtin(const char *name)
{
    size_t i;

    for (i = 0; i < TK_ARRAY_LEN(builtins); i++)
        if (strcmp(builtins[i].name, name) == 0)
            return &builtins[i];
    return NULL;
}

static tk_status eval_error(tk_expr_ctx *ctx, const tk_expr *e, tk_status s, const char *what, const char *name)
{
    return tk_error_set(&ctx->err, s, e->line, e->column, "%s%s%s", what, name ? " " : "", name ? name : "");
}

static tk_status binary(tk_expr_ctx *ctx, const tk_expr *e, double a, double b, double *out)
{
    switch (e->op) {
    case TOK_PLUS: *out = a + b; break;
    case TOK_MINUS: *out = a - b; break;
    case TOK_STAR: *out = a * b; break;
    case TOK_SLASH:
        if (b == 0.0)
            return eval_error(ctx, e, TK_ERR_RANGE, "division by zero", NULL);
        *out = a / b;
        break;
    case TOK_PERCENT:
        if (b == 0.0)
            return eval_error(ctx, e, TK_ERR_RANGE, "modulo by zero", NULL);
        *out = fmod(a, b);
        break;
    case TOK_CARET: *out = pow(a, b); break;
    case TOK_EQ: *out = a == b; break;
    case TOK_NE: *out = a != b; break;
    case TOK_LT: *out = a < b; break;
    case TOK_LE: *out = a <= b; break;
    case TOK_GT: *out = a > b; break;
    case TOK_GE: *out = a >= b; break;
    default:
        return eval_error(ctx, e, TK_ERR_INVALID, "bad operator", tk_token_name(e->op));
    }
    return TK_OK;
}

tk_status tk_expr_eval(tk_expr_ctx *ctx, const tk_expr *e, double *out)
{
    double a, b, args[8];
    const builtin *fn;
    tk_status s;
    int i;

    ctx->evals++;
    switch (e->kind) {
    case EX_NUM:
        *out = e->number;
        return TK_OK;
    case EX_VAR:
        if (!tk_expr_get(ctx, e->name, out))
            return eval_error(ctx, e, TK_ERR_NOTFOUND, "undefined variable", e->name);
        return TK_OK;
    case EX_UNARY:
        if ((s = tk_expr_eval(ctx, e->lhs, &a)) != TK_OK)
            return s;
        *out = e->op == TOK_NOT ? (a == 0.0) : -a;
        return TK_OK;
    case EX_BINARY:
        if ((s = tk_expr_eval(ctx, e->lhs, &a)) != TK_OK)
            return s;
        /* && and || short-circuit. */
        if (e->op == TOK_AND && a == 0.0) {
            *out = 0.0;
            return TK_OK;
        }
        if (e->op == TOK_OR && a != 0.0) {
            *out = 1.0;
            return TK_OK;
        }
        if ((s = tk_expr_eval(ctx, e->rhs, &b)) != TK_OK)
            return s;
        if (e->op == TOK_AND || e->op == TOK_OR) {
            *out = b != 0.0;
            return TK_OK;
        }
        return binary(ctx, e, a, b, out);
    case EX_COND:
        if ((s = tk_expr_eval(ctx, e->cond, &a)) != TK_OK)
            return s;
        return tk_expr_eval(ctx, a != 0.0 ? e->lhs : e->rhs, out);
    case EX_CALL:
        fn = find_builtin(e->name);
        if (!fn)
            return eval_error(ctx, e, TK_ERR_NOTFOUND, "unknown function", e->name);
        if (e->nargs < fn->min_args || e->nargs > fn->max_args)
            return eval_error(ctx, e, TK_ERR_INVALID, "wrong number of arguments to", e->name);
        for (i = 0; i < e->nargs; i++)
            if ((s = tk_expr_eval(ctx, e->args[i], &args[i])) != TK_OK)
                return s;
        *out = fn->fn(args, e->nargs);
        return TK_OK;
    case EX_ASSIGN:
        if ((s = tk_expr_eval(ctx, e->rhs, out)) != TK_OK)
            return s;
        tk_expr_set(ctx, e->name, *out);
        return TK_OK;
    case EX_SEQ:
        if ((s = tk_expr_eval(ctx, e->lhs, out)) != TK_OK)
            return s;
        return tk_expr_eval(ctx, e->rhs, out);
    }
    return eval_error(ctx, e, TK_ERR_INVALID, "bad node", NULL);
}

tk_status tk_expr_run(tk_expr_ctx *ctx, const char *src, double *out)
{
    tk_expr *prog;

    tk_error_clear(&ctx->err);
    prog = tk_expr_parse(ctx, src);
    if (!prog)
        return ctx->err.status;
    return tk_expr_eval(ctx, prog, out);
}

static const char *op_text(tk_token_kind op)
{
    switch (op) {
    case TOK_PLUS: return "+";
    case TOK_MINUS: return "-";
    case TOK_STAR: return "*";
    case TOK_SLASH: return "/";
    case TOK_PERCENT: return "%";
    case TOK_CARET: return "^";
    case TOK_EQ: return "==";
    case TOK_NE: return "!=";
    case TOK_LT: return "<";
    case TOK_LE: return "<=";
    case TOK_GT: return ">";
    case TOK_GE: return ">=";
    case TOK_AND: return "&&";
    case TOK_OR: return "||";
    case TOK_NOT: return "!";
    default: return "?";
    }
}

void tk_expr_print(tk_strbuf *out, const tk_expr *e)
{
    int i;

    switch (e->kind) {
    case EX_NUM:
        tk_sb_appendf(out, "%g", e->number);
        break;
    case EX_VAR:
        tk_sb_append(out, e->name);
        break;
    case EX_UNARY:
        tk_sb_appendf(out, "(%s", op_text(e->op));
        tk_expr_print(out, e->lhs);
        tk_sb_putc(out, ')');
        break;
    case EX_BINARY:
        tk_sb_putc(out, '(');
        tk_expr_print(out, e->lhs);
        tk_sb_appendf(out, " %s ", op_text(e->op));
        tk_expr_print(out, e->rhs);
        tk_sb_putc(out, ')');
        break;
    case EX_COND:
        tk_sb_putc(out, '(');
        tk_expr_print(out, e->cond);
        tk_sb_append(out, " ? ");
        tk_expr_print(out, e->lhs);
        tk_sb_append(out, " : ");
        tk_expr_print(out, e->rhs);
        tk_sb_putc(out, ')');
        break;
    case EX_CALL:
        tk_sb_appendf(out, "%s(", e->name);
        for (i = 0; i < e->nargs; i++) {
            if (i)
                tk_sb_append(out, ", ");
            tk_expr_print(out, e->args[i]);
        }
        tk_sb_putc(out, ')');
        break;
    case EX_ASSIGN:
        tk_sb_appendf(out, "%s = ", e->name);
        tk_expr_print(out, e->rhs);
        break;
    case EX_SEQ:
        tk_expr_print(out, e->lhs);
        tk_sb_append(out, "; ");
        tk_expr_print(out, e->rhs);
        break;
    }
}

