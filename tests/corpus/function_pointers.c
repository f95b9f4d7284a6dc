/* function_pointers.c: tables of function pointers indexed in loops, callbacks taking a
 * function pointer and a void* context, function pointers in structs, returning function
 * pointers, calling through (*fp)(x) and fp(x) syntax, qsort-free higher-order loops. */
#include <stdio.h>
#include <math.h>

typedef double (*unary_fn)(double);
typedef void (*visit_fn)(int idx, double v, void *ctx);

static double sq(double x) { return x * x; }
static double half(double x) { return x * 0.5; }
static double negate(double x) { return -x; }
static double plus_one(double x) { return x + 1.0; }

static unary_fn table[] = {sq, half, negate, plus_one, sqrt, fabs};
#define NFN (sizeof(table) / sizeof(table[0]))

struct op {
    const char *name;
    int (*combine)(int, int);
};

static int add(int a, int b) { return a + b; }
static int sub(int a, int b) { return a - b; }
static int mul3(int a, int b) { return 3 * a + b; }
static int xorr(int a, int b) { return a ^ b; }

static const struct op ops[] = {{"add", add}, {"sub", sub}, {"mul3", mul3}, {"xor", xorr}};

static void map(double *out, const double *in, int n, unary_fn f)
{
    for (int i = 0; i < n; i++)
        out[i] = f(in[i]);
}

static void for_each(const double *v, int n, visit_fn cb, void *ctx)
{
    for (int i = 0; i < n; ++i)
        (*cb)(i, v[i], ctx);
}

struct stats { double sum; double wsum; int count; };

static void accumulate(int idx, double v, void *ctx)
{
    struct stats *s = ctx;
    s->sum += v;
    s->wsum += v * idx;
    s->count++;
}

static void print_visit(int idx, double v, void *ctx)
{
    (void)ctx;
    if (idx % 5 == 0)
        printf("  v[%d]=%.17g\n", idx, v);
}

static unary_fn pick(int k) { return table[k % NFN]; }

static double compose_apply(unary_fn *fs, int nf, double x)
{
    for (int i = nf - 1; i >= 0; i--)
        x = fs[i](x);
    return x;
}

int main(void)
{
    double in[20], out[20];
    for (int i = 0; i < 20; i++)
        in[i] = (i - 7) * 0.75;
    for (unsigned k = 0; k < NFN; k++) {
        map(out, in, 20, table[k]);
        double s = 0;
        for (int i = 0; i < 20; i++)
            s += isnan(out[i]) ? 1000.0 : out[i];
        printf("fn %u: %.17g\n", k, s);
    }
    struct stats st = {0, 0, 0};
    for_each(in, 20, accumulate, &st);
    printf("stats: %.17g %.17g %d\n", st.sum, st.wsum, st.count);
    for_each(in, 20, print_visit, NULL);

    int acc = 1;
    for (int r = 0; r < 3; r++)
        for (size_t k = 0; k < sizeof ops / sizeof *ops; k++) {
            acc = ops[k].combine(acc, (int)k + r);
            printf("%s->%d ", ops[k].name, acc);
        }
    printf("\n");

    double x = 2.0;
    for (int k = 0; k < 12; k++)
        x = pick(k)(x < 0 ? -x : x) + 0.125;
    printf("pick chain=%.17g\n", x);
    unary_fn chain[] = {plus_one, sq, half, plus_one};
    printf("compose=%.17g\n", compose_apply(chain, 4, 3.0));
    return 0;
}
