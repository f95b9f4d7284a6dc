/* pointer_loops.c: pointer-increment loops (*p++ = ..., while (p < end)), pointer differences,
 * pointer-to-pointer, 2D arrays passed as double (*A)[N] and as double A[N][N], flat
 * A[i*n+j] linearized access, arrays of pointers (row tables), aliasing through two pointers
 * into the same array (in-place shifts whose direction matters). */
#include <stdio.h>
#include <stdlib.h>

#define N 24

static void fill_rows(double (*A)[N], int n)
{
    for (int i = 0; i < n; i++) {
        double *p = A[i];
        for (int j = 0; j < N; j++)
            *p++ = (double)(i - j) / (1 + i + j);
    }
}

static double sum_fixed(double A[N][N])
{
    double s = 0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            s += A[i][j] * (j + 1);
    return s;
}

static void linear_mm(int n, const double *a, const double *b, double *c)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double acc = 0;
            for (int k = 0; k < n; k++)
                acc += a[i * n + k] * b[k * n + j];
            c[i * n + j] = acc;
        }
}

static size_t copy_until(int *dst, const int *src, int stop)
{
    int *d = dst;
    while (*src != stop)
        *d++ = *src++;
    *d = stop;
    return (size_t)(d - dst);
}

static long sum_range(const long *begin, const long *end)
{
    long s = 0;
    for (const long *p = begin; p != end; ++p)
        s += *p;
    return s;
}

static void shift_right(int *a, int n)
{
    /* in-place: must run backwards */
    for (int *p = a + n - 1; p > a; p--)
        *p = *(p - 1);
    a[0] = -1;
}

static void shift_left(int *a, int n)
{
    for (int *p = a; p < a + n - 1; p++)
        p[0] = p[1];
    a[n - 1] = -2;
}

int main(void)
{
    static double A[N][N];
    fill_rows(A, N);
    printf("sum_fixed=%.17g\n", sum_fixed(A));

    int n = 11;
    double *a = malloc(sizeof(double) * n * n), *b = malloc(sizeof(double) * n * n), *c = malloc(sizeof(double) * n * n);
    if (!a || !b || !c)
        return 1;
    for (int i = 0; i < n * n; i++) {
        a[i] = (i % 7) - 3;
        b[i] = (i % 5) * 0.5;
    }
    linear_mm(n, a, b, c);
    double cs = 0;
    for (double *p = c, *e = c + n * n; p < e; p++)
        cs = cs * 1.0001 + *p;
    printf("linear_mm cs=%.17g c[n+1]=%.17g\n", cs, c[n + 1]);

    int src[30], dst[31];
    for (int i = 0; i < 30; i++)
        src[i] = (i * 5 + 1) % 29;
    src[29] = 0;
    size_t copied = copy_until(dst, src, 0);
    printf("copied=%zu last=%d\n", copied, dst[copied - 1]);

    long lv[50];
    for (long *p = lv; p < lv + 50;) {
        *p = (p - lv) * 3;
        p++;
    }
    printf("sum_range=%ld %ld\n", sum_range(lv, lv + 50), sum_range(lv + 10, lv + 20));

    int sh[10];
    for (int i = 0; i < 10; i++)
        sh[i] = i * i;
    shift_right(sh, 10);
    shift_right(sh, 10);
    shift_left(sh, 10);
    for (int i = 0; i < 10; i++)
        printf("%d ", sh[i]);
    printf("\n");

    double *rows[N];
    for (int i = 0; i < N; i++)
        rows[i] = A[N - 1 - i];
    double **rp = rows;
    double diag = 0;
    for (int i = 0; i < N; i++, rp++)
        diag += (*rp)[i] - rows[i][N - 1 - i];
    printf("diag=%.17g\n", diag);

    /* prefix sum in place through two pointers into the same array */
    int ps[16];
    for (int i = 0; i < 16; i++)
        ps[i] = i % 4 + 1;
    for (int *p = ps + 1, *q = ps; p < ps + 16; p++, q++)
        *p += *q;
    for (int i = 0; i < 16; i++)
        printf("%d%c", ps[i], i == 15 ? '\n' : ' ');
    free(a);
    free(b);
    free(c);
    return 0;
}
