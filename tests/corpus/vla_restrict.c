/* vla_restrict.c: variable-length arrays as parameters (double a[n][m], pointer-to-VLA
 * double (*a)[m]) and as locals, sizeof on a VLA, restrict-qualified pointer parameters,
 * loops whose bounds are the VLA dimensions, and VLAs declared inside a loop body. */
#include <stdio.h>
#include <stdlib.h>

static void init(int n, int m, double a[n][m], double scale)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            a[i][j] = scale * ((i * 31 + j * 17) % 23) - 5.0;
}

static void matvec(int n, int m, const double a[n][m], const double *restrict x, double *restrict y)
{
    for (int i = 0; i < n; i++) {
        y[i] = 0.0;
        for (int j = 0; j < m; j++)
            y[i] += a[i][j] * x[j];
    }
}

static void transpose(int n, int m, double (*restrict dst)[n], double (*restrict src)[m])
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            dst[j][i] = src[i][j];
}

static void axpy(int n, double alpha, const double *restrict x, double *restrict y)
{
    for (int i = 0; i < n; ++i)
        y[i] += alpha * x[i];
}

static double trace_local(int n)
{
    double t[n][n];
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            t[i][j] = (i == j) ? i + 0.5 : 1.0 / (i + j + 1);
    double tr = 0;
    for (int i = 0; i < n; i++)
        tr += t[i][i] + t[i][n - 1 - i];
    return tr + (double)(sizeof t / sizeof t[0]);
}

int main(void)
{
    int n = 13, m = 9;
    double (*a)[m] = malloc(sizeof(double[n][m]));
    double (*at)[n] = malloc(sizeof(double[m][n]));
    if (!a || !at)
        return 1;
    init(n, m, a, 0.75);
    double x[m], y[n];
    for (int j = 0; j < m; j++)
        x[j] = 1.0 / (j + 1);
    matvec(n, m, (const double (*)[m])a, x, y);
    double s = 0;
    for (int i = 0; i < n; i++)
        s += y[i];
    printf("matvec sum=%.17g y0=%.17g y12=%.17g\n", s, y[0], y[n - 1]);

    transpose(n, m, at, a);
    double ct = 0;
    for (int j = 0; j < m; j++)
        for (int i = 0; i < n; i++)
            ct = ct * 0.5 + at[j][i];
    printf("transpose ct=%.17g\n", ct);

    double z[n];
    for (int i = 0; i < n; i++)
        z[i] = i;
    axpy(n, -0.5, y, z);
    axpy(n, 2.0, z, y);
    double sy = 0;
    for (int i = 0; i < n; i++)
        sy += y[i] * z[i];
    printf("axpy sy=%.17g\n", sy);

    for (int k = 1; k <= 6; k++) {
        int sz = k * 2;
        int local[sz];
        for (int i = 0; i < sz; i++)
            local[i] = i * k;
        int acc = 0;
        for (int i = sz - 1; i >= 0; i--)
            acc = acc * 2 - local[i];
        printf("k=%d sizeof=%zu acc=%d trace=%.17g\n", k, sizeof local, acc, trace_local(k + 2));
    }
    free(a);
    free(at);
    return 0;
}
