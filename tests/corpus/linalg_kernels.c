/* linalg_kernels.c: dense linear algebra in PolyBench style with 2D arrays passed as
 * double (*A)[N] and double A[n][n] (VLA parameter): gemm (alpha/beta, i-k-j order), syrk
 * (triangular j <= i), LU decomposition (in place, triangular, order-dependent), forward
 * substitution (trisolv), a symmetric rank update with a scalar temp (cholesky-like), and
 * 2mm (two chained products through a temporary). */
#include <stdio.h>
#include <math.h>

#define N 36

static void init(int n, double (*A)[N], double (*B)[N], double (*C)[N])
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            A[i][j] = (double)((i * j + 1) % n) / n;
            B[i][j] = (double)(i * (j + 1) % n) / n;
            C[i][j] = (double)((i * (j + 2) + 3) % n) / n;
        }
}

static void gemm(int n, double alpha, double beta, double (*C)[N], double (*A)[N], double (*B)[N])
{
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++)
            C[i][j] *= beta;
        for (int k = 0; k < n; k++)
            for (int j = 0; j < n; j++)
                C[i][j] += alpha * A[i][k] * B[k][j];
    }
}

static void syrk(int n, double alpha, double beta, double C[n][n], double A[n][n])
{
    for (int i = 0; i < n; i++) {
        for (int j = 0; j <= i; j++)
            C[i][j] *= beta;
        for (int k = 0; k < n; k++)
            for (int j = 0; j <= i; j++)
                C[i][j] += alpha * A[i][k] * A[j][k];
    }
}

static void lu(int n, double (*A)[N])
{
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < i; j++) {
            for (int k = 0; k < j; k++)
                A[i][j] -= A[i][k] * A[k][j];
            A[i][j] /= A[j][j];
        }
        for (int j = i; j < n; j++)
            for (int k = 0; k < i; k++)
                A[i][j] -= A[i][k] * A[k][j];
    }
}

static void trisolv(int n, double (*L)[N], double *x, const double *b)
{
    for (int i = 0; i < n; i++) {
        x[i] = b[i];
        for (int j = 0; j < i; j++)
            x[i] -= L[i][j] * x[j];
        x[i] = x[i] / L[i][i];
    }
}

static void cholesky(int n, double A[n][n])
{
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < i; j++) {
            for (int k = 0; k < j; k++)
                A[i][j] -= A[i][k] * A[j][k];
            A[i][j] /= A[j][j];
        }
        for (int k = 0; k < i; k++)
            A[i][i] -= A[i][k] * A[i][k];
        A[i][i] = sqrt(A[i][i]);
    }
}

static void mm2(int n, double alpha, double beta, double (*tmp)[N], double (*A)[N], double (*B)[N], double (*C)[N],
                double (*D)[N])
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            tmp[i][j] = 0.0;
            for (int k = 0; k < n; ++k)
                tmp[i][j] += alpha * A[i][k] * B[k][j];
        }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            D[i][j] *= beta;
            for (int k = 0; k < n; ++k)
                D[i][j] += tmp[i][k] * C[k][j];
        }
}

static double checksum(int n, double (*A)[N])
{
    double s = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            s += A[i][j] * ((i + 2 * j) % 7 + 1);
    return s;
}

static double A[N][N], B[N][N], C[N][N], D[N][N], T[N][N];

int main(void)
{
    int n = N;
    init(n, A, B, C);
    gemm(n, 1.5, 1.2, C, A, B);
    printf("gemm: %.17g\n", checksum(n, C));

    init(n, A, B, C);
    syrk(n, 1.5, 1.2, C, A);
    printf("syrk: %.17g\n", checksum(n, C));

    /* make A diagonally dominant, then LU */
    init(n, A, B, C);
    for (int i = 0; i < n; i++)
        A[i][i] += n;
    lu(n, A);
    printf("lu: %.17g A[n-1][n-1]=%.17g\n", checksum(n, A), A[n - 1][n - 1]);

    double x[N], b[N];
    for (int i = 0; i < n; i++)
        b[i] = i * 0.5 - 3;
    trisolv(n, A, x, b);
    double xs = 0;
    for (int i = 0; i < n; i++)
        xs += x[i] * (i + 1);
    printf("trisolv: %.17g\n", xs);

    /* SPD matrix: B = A0 * A0^T + n I */
    init(n, A, B, C);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double s = 0;
            for (int k = 0; k < n; k++)
                s += A[i][k] * A[j][k];
            B[i][j] = s + (i == j ? n : 0);
        }
    cholesky(n, B);
    printf("cholesky: %.17g\n", checksum(n, B));

    init(n, A, B, C);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            D[i][j] = (double)((i + 1) * (j + 2) % n) / n;
    mm2(n, 1.5, 1.2, T, A, B, C, D);
    printf("2mm: %.17g %.17g\n", checksum(n, T), checksum(n, D));
    return 0;
}
