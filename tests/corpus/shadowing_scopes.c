/* shadowing_scopes.c: variables shadowed in nested blocks (int i redeclared inside a loop
 * body that is itself indexed by i), a global shadowed by a local and a parameter, a loop
 * counter shadowing an outer counter, block-scoped temporaries with the same name in
 * sibling loops, and locals declared in the middle of blocks. */
#include <stdio.h>

int i = 1000;          /* a global named like every loop counter below */
static double t = 0.5; /* global shadowed by locals named t */

static int uses_global(void)
{
    int s = 0;
    for (int k = 0; k < 3; k++)
        s += i + k + (int)(t * 4);
    return s;
}

static double param_shadow(double t, int n)
{
    double acc = 0;
    for (int k = 0; k < n; k++) {
        double t2 = t * k;
        {
            double t = t2 + 1.0; /* shadows the parameter */
            acc += t;
        }
        acc += t;
    }
    return acc;
}

int main(void)
{
    int a[10][10] = {{0}}; /* only some cells are written below; the rest must be defined */
    for (int i = 0; i < 10; i++) {
        for (int j = 0; j < 10; j++) {
            int i = j * 2; /* shadows the outer loop counter */
            a[j][j] = i;
        }
        int j = i * 3; /* declared after the inner loop, same name as its counter */
        a[i][(j + 1) % 10] = j;
    }
    long s = 0;
    for (int i = 0; i < 10; i++)
        for (int j = 0; j < 10; j++)
            s = s * 3 % 100003 + a[i][j];
    printf("s=%ld global i=%d\n", s, i);

    int total = 0;
    for (int i = 0; i < 5; i++) {
        int tmp = i * i;
        for (int i = 0; i < 3; i++) { /* inner i shadows outer i */
            int tmp2 = tmp + i;
            total += tmp2;
        }
        total += i * 100;
    }
    printf("total=%d\n", total);

    int k = 42;
    {
        int k = 7;
        for (int m = 0; m < k; m++)
            total -= m;
    }
    for (int m = 0; m < 3; m++) {
        int k = m * 5;
        total += k;
    }
    printf("k=%d total=%d\n", k, total);

    double t = 0.0; /* shadows the global t */
    for (int q = 0; q < 4; q++) {
        double t_in = t;
        t = t_in + q * 0.25;
    }
    printf("t=%.17g global-user=%d param_shadow=%.17g\n", t, uses_global(), param_shadow(1.5, 6));

    /* same-named temporaries in sibling loops, different types */
    double out = 0;
    for (int r = 0; r < 4; r++) {
        double x = r * 0.1;
        out += x;
    }
    for (int r = 0; r < 4; r++) {
        int x = r * 3;
        out += x;
    }
    for (int r = 0; r < 4; r++) {
        long x = (long)r << 40;
        out += (double)(x >> 38);
    }
    printf("out=%.17g\n", out);
    return 0;
}
