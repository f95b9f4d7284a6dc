/* scalar_recurrences.c: loop-carried scalars that the regenerated code must keep in order:
 * prefix sums (in place and out of place), first- and second-order recurrences, "previous
 * value" wraparound variables, secondary induction variables (j += 2 inside an i loop),
 * conditional scalar updates, scalars written in a loop and read after it, reductions into a
 * single array element a[0] += ..., loop-invariant subexpressions, and running min with index. */
#include <stdio.h>

#define N 120

int main(void)
{
    double a[N], p[N];
    for (int i = 0; i < N; i++)
        a[i] = ((i * 17) % 11) * 0.25 - 1.0;

    p[0] = a[0];
    for (int i = 1; i < N; i++)
        p[i] = p[i - 1] + a[i];
    for (int i = 1; i < N; i++)
        a[i] += a[i - 1] * 0.5; /* in-place first-order recurrence */
    printf("prefix last=%.17g mid=%.17g rec last=%.17g\n", p[N - 1], p[N / 2], a[N - 1]);

    /* second order: Fibonacci-like, and a tridiagonal-style forward sweep */
    double f[N];
    f[0] = 1.0;
    f[1] = 0.5;
    for (int i = 2; i < N; i++)
        f[i] = 0.6 * f[i - 1] + 0.39 * f[i - 2] + 0.001 * i;
    printf("f last=%.17g\n", f[N - 1]);

    /* wraparound variable: prev holds the previous iteration's value */
    double prev = 0.0, smooth = 0.0;
    for (int i = 0; i < N; i++) {
        double cur = p[i];
        smooth += (cur + prev) * 0.5;
        prev = cur;
    }
    int iprev = -1, iprev2 = -2;
    long chain = 0;
    for (int i = 0; i < 40; i++) {
        chain += (long)i * iprev - iprev2;
        iprev2 = iprev;
        iprev = i;
    }
    printf("smooth=%.17g prev=%.17g chain=%ld\n", smooth, prev, chain);

    /* secondary induction variable */
    int j = 0, k = N - 1;
    double mix = 0;
    for (int i = 0; i < N / 4; i++) {
        mix += p[j] * f[k];
        j += 2;
        k -= 3;
    }
    printf("mix=%.17g j=%d k=%d\n", mix, j, k);

    /* conditional updates and last-value semantics */
    int last_pos = -1, npos = 0;
    double lastv = 0;
    for (int i = 0; i < N; i++) {
        if (p[i] > 0) {
            last_pos = i;
            lastv = p[i];
            npos++;
        }
    }
    double mn = p[0];
    int imn = 0;
    for (int i = 1; i < N; i++)
        if (p[i] <= mn) { /* <=: ties resolve to the LAST index, order-dependent */
            mn = p[i];
            imn = i;
        }
    printf("last_pos=%d lastv=%.17g npos=%d mn=%.17g imn=%d\n", last_pos, lastv, npos, mn, imn);

    /* reduction into an array element, invariant subexpressions */
    double acc[3] = {0, 0, 0};
    double alpha = 1.5, beta = -0.25;
    for (int i = 0; i < N; i++) {
        acc[0] += p[i] * (alpha * beta + 1.0);
        acc[i % 3] -= f[i] * alpha;
    }
    printf("acc=%.17g %.17g %.17g\n", acc[0], acc[1], acc[2]);

    /* a scalar defined in one loop nest and used in the next */
    double t = 0;
    int ti;
    for (ti = 0; ti < N && t < 10.0; ti++)
        t += f[ti] * f[ti];
    double u[N];
    for (int i = 0; i < N; i++)
        u[i] = t * i - ti;
    double us = 0;
    for (int i = N - 1; i >= 0; i -= 7)
        us += u[i];
    printf("t=%.17g ti=%d us=%.17g\n", t, ti, us);

    /* 2D recurrence along both dimensions (summed-area table) */
    static double s[N / 4][N / 4];
    for (int x = 0; x < N / 4; x++)
        for (int y = 0; y < N / 4; y++) {
            double v = ((x * 3 + y * y + x * y) % 7) - 2.5;
            if (x > 0)
                v += s[x - 1][y];
            if (y > 0)
                v += s[x][y - 1];
            if (x > 0 && y > 0)
                v -= s[x - 1][y - 1];
            s[x][y] = v;
        }
    printf("sat corner=%.17g mid=%.17g\n", s[N / 4 - 1][N / 4 - 1], s[N / 8][N / 6]);
    return 0;
}
