/* pragmas.c: #pragma lines before and inside functions and loops: OpenMP pragmas compiled
 * without -fopenmp (ignored, the code must still be serial and correct), #pragma GCC ivdep,
 * #pragma GCC unroll, #pragma scop / endscop around a kernel, #pragma once-free header-like
 * pragmas (GCC diagnostic push/pop), and _Pragma("...") from a macro. */
#include <stdio.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunknown-pragmas"

#define N 48
#define UNROLL4 _Pragma("GCC unroll 4")

static double A[N][N], B[N][N], C[N][N];

static void kernel(void)
{
#pragma scop
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            C[i][j] *= 0.5;
            for (int k = 0; k < N; k++)
                C[i][j] += A[i][k] * B[k][j];
        }
#pragma endscop
}

int main(void)
{
#pragma omp parallel for
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            A[i][j] = (double)((i * j) % 7) / 7.0;
            B[i][j] = (double)((i + 2 * j) % 5) - 2.0;
            C[i][j] = 1.0;
        }
    kernel();
    double s = 0;
#pragma omp parallel for reduction(+ : s)
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            s += C[i][j] * (i + 1);
    printf("s=%.17g\n", s);

    double v[N];
#pragma GCC ivdep
    for (int i = 0; i < N; i++)
        v[i] = A[i][i] + B[i][N - 1 - i];
    double prefix = 0;
#pragma GCC unroll 8
    for (int i = 0; i < N; i++) {
        prefix = prefix * 0.75 + v[i];
        v[i] = prefix;
    }
    UNROLL4
    for (int i = 1; i < N; i++)
        v[i] -= v[i - 1] * 0.125;
    double vs = 0;
    for (int i = 0; i < N; i++) {
#pragma omp atomic
        vs += v[i];
    }
    printf("prefix=%.17g vs=%.17g\n", prefix, vs);

    int cnt = 0;
#pragma omp parallel
    {
#pragma omp for
        for (int i = 0; i < 100; i++)
            if (i % 7 == 3) {
#pragma omp critical
                cnt++;
            }
    }
    printf("cnt=%d\n", cnt);
    return 0;
}

#pragma GCC diagnostic pop
