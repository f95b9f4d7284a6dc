/* globals_statics_recursion.c: global and static arrays modified across functions, static
 * locals (counters, memo tables), const globals, extern declaration before definition,
 * several functions calling each other from loop bodies, direct and mutual recursion. */
#include <stdio.h>

#define N 40

extern int gtab[N];
int gtab[N];
static double sgrid[N][N];
const int weights[5] = {3, 1, 4, 1, 5};
static const double cscale = 0.5;
long gcalls;

static int next_id(void)
{
    static int id = 100;
    gcalls++;
    return id++;
}

static long fib(int n)
{
    static long memo[64];
    if (n < 2)
        return n;
    if (memo[n])
        return memo[n];
    return memo[n] = fib(n - 1) + fib(n - 2);
}

static int ackermann(int m, int n)
{
    if (m == 0)
        return n + 1;
    if (n == 0)
        return ackermann(m - 1, 1);
    return ackermann(m - 1, ackermann(m, n - 1));
}

static int is_even(unsigned n);
static int is_odd(unsigned n) { return n == 0 ? 0 : is_even(n - 1); }
static int is_even(unsigned n) { return n == 0 ? 1 : is_odd(n - 1); }

static void fill(void)
{
    for (int i = 0; i < N; i++)
        gtab[i] = next_id() * weights[i % 5];
}

static double row_value(int i)
{
    double s = 0;
    for (int j = 0; j < N; j++)
        s += sgrid[i][j];
    return s * cscale;
}

static void smooth(void)
{
    for (int i = 1; i < N - 1; i++)
        for (int j = 1; j < N - 1; j++)
            sgrid[i][j] = (sgrid[i - 1][j] + sgrid[i][j - 1] + sgrid[i][j] + sgrid[i + 1][j] + sgrid[i][j + 1]) / 5.0;
}

static void hanoi(int n, int from, int to, int via, int *moves, int *check)
{
    if (n == 0)
        return;
    hanoi(n - 1, from, via, to, moves, check);
    ++*moves;
    *check = (*check * 7 + from * 3 + to) % 100003;
    hanoi(n - 1, via, to, from, moves, check);
}

int main(void)
{
    fill();
    fill();
    long s = 0;
    for (int i = 0; i < N; i++)
        s += (long)gtab[i] * (i + 1);
    printf("gtab s=%ld calls=%ld\n", s, gcalls);

    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            sgrid[i][j] = gtab[(i * j) % N] * 1e-3;
    for (int t = 0; t < 3; t++)
        smooth();
    double rv = 0;
    for (int i = 0; i < N; i += 3)
        rv += row_value(i) * (i % 2 ? -1 : 1);
    printf("rv=%.17g\n", rv);

    for (int i = 0; i < 60; i += 7)
        printf("fib(%d)=%ld\n", i, fib(i));
    for (int m = 0; m <= 2; m++)
        for (int n = 0; n <= 3; n++)
            printf("A(%d,%d)=%d%s", m, n, ackermann(m, n), n == 3 ? "\n" : " ");
    int ev = 0;
    for (unsigned k = 0; k < 50; k++)
        ev += is_even(k) * (int)k - is_odd(k);
    printf("ev=%d\n", ev);
    int moves = 0, check = 1;
    hanoi(10, 1, 3, 2, &moves, &check);
    printf("hanoi moves=%d check=%d\n", moves, check);
    return 0;
}
