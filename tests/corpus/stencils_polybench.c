/* stencils_polybench.c: PolyBench-style stencils with the PolyBench macro dialect (DATA_TYPE,
 * POLYBENCH_2D declarators, _PB_N bounds, SCALAR_VAL): jacobi-2d (two arrays, time loop),
 * seidel-2d (in-place, order-dependent: any reordering changes the result), heat-3d, and
 * fdtd-2d (several statements per time step). Checksums printed with %.17g. */
#include <stdio.h>
#include <math.h>

#define TSTEPS 12
#define N 40
#define NZ 14
#define DATA_TYPE double
#define DATA_PRINTF_MODIFIER "%.17g "
#define SCALAR_VAL(x) x
#define POLYBENCH_2D(var, d1, d2, ddim1, ddim2) var[d1][d2]
#define POLYBENCH_3D(var, d1, d2, d3, ddim1, ddim2, ddim3) var[d1][d2][d3]
#define _PB_N n
#define _PB_TSTEPS tsteps

static void init_2d(int n, DATA_TYPE POLYBENCH_2D(A, N, N, n, n), DATA_TYPE POLYBENCH_2D(B, N, N, n, n))
{
    int i, j;
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++) {
            A[i][j] = ((DATA_TYPE)((i * i + 3 * j * j + i * j) % 17) + 2) / n;
            B[i][j] = ((DATA_TYPE)((i * j * j + 5 * i) % 23) + 3) / n;
        }
}

static void kernel_jacobi_2d(int tsteps, int n, DATA_TYPE POLYBENCH_2D(A, N, N, n, n),
                             DATA_TYPE POLYBENCH_2D(B, N, N, n, n))
{
    int t, i, j;
    for (t = 0; t < _PB_TSTEPS; t++) {
        for (i = 1; i < _PB_N - 1; i++)
            for (j = 1; j < _PB_N - 1; j++)
                B[i][j] = SCALAR_VAL(0.2) * (A[i][j] + A[i][j - 1] + A[i][1 + j] + A[1 + i][j] + A[i - 1][j]);
        for (i = 1; i < _PB_N - 1; i++)
            for (j = 1; j < _PB_N - 1; j++)
                A[i][j] = SCALAR_VAL(0.2) * (B[i][j] + B[i][j - 1] + B[i][1 + j] + B[1 + i][j] + B[i - 1][j]);
    }
}

static void kernel_seidel_2d(int tsteps, int n, DATA_TYPE POLYBENCH_2D(A, N, N, n, n))
{
    int t, i, j;
    for (t = 0; t <= _PB_TSTEPS - 1; t++)
        for (i = 1; i <= _PB_N - 2; i++)
            for (j = 1; j <= _PB_N - 2; j++)
                A[i][j] = (A[i - 1][j - 1] + A[i - 1][j] + A[i - 1][j + 1] + A[i][j - 1] + A[i][j] + A[i][j + 1] +
                           A[i + 1][j - 1] + A[i + 1][j] + A[i + 1][j + 1]) /
                          SCALAR_VAL(9.0);
}

static void kernel_heat_3d(int tsteps, int n, DATA_TYPE POLYBENCH_3D(A, NZ, NZ, NZ, n, n, n),
                           DATA_TYPE POLYBENCH_3D(B, NZ, NZ, NZ, n, n, n))
{
    int t, i, j, k;
    for (t = 1; t <= tsteps; t++) {
        for (i = 1; i < _PB_N - 1; i++)
            for (j = 1; j < _PB_N - 1; j++)
                for (k = 1; k < _PB_N - 1; k++)
                    B[i][j][k] = SCALAR_VAL(0.125) * (A[i + 1][j][k] - SCALAR_VAL(2.0) * A[i][j][k] + A[i - 1][j][k]) +
                                 SCALAR_VAL(0.125) * (A[i][j + 1][k] - SCALAR_VAL(2.0) * A[i][j][k] + A[i][j - 1][k]) +
                                 SCALAR_VAL(0.125) * (A[i][j][k + 1] - SCALAR_VAL(2.0) * A[i][j][k] + A[i][j][k - 1]) +
                                 A[i][j][k];
        for (i = 1; i < _PB_N - 1; i++)
            for (j = 1; j < _PB_N - 1; j++)
                for (k = 1; k < _PB_N - 1; k++)
                    A[i][j][k] = SCALAR_VAL(0.125) * (B[i + 1][j][k] - SCALAR_VAL(2.0) * B[i][j][k] + B[i - 1][j][k]) +
                                 SCALAR_VAL(0.125) * (B[i][j + 1][k] - SCALAR_VAL(2.0) * B[i][j][k] + B[i][j - 1][k]) +
                                 SCALAR_VAL(0.125) * (B[i][j][k + 1] - SCALAR_VAL(2.0) * B[i][j][k] + B[i][j][k - 1]) +
                                 B[i][j][k];
    }
}

static void kernel_fdtd_2d(int tmax, int nx, int ny, DATA_TYPE POLYBENCH_2D(ex, N, N, nx, ny),
                           DATA_TYPE POLYBENCH_2D(ey, N, N, nx, ny), DATA_TYPE POLYBENCH_2D(hz, N, N, nx, ny),
                           DATA_TYPE fict[TSTEPS])
{
    int t, i, j;
    for (t = 0; t < tmax; t++) {
        for (j = 0; j < ny; j++)
            ey[0][j] = fict[t];
        for (i = 1; i < nx; i++)
            for (j = 0; j < ny; j++)
                ey[i][j] = ey[i][j] - SCALAR_VAL(0.5) * (hz[i][j] - hz[i - 1][j]);
        for (i = 0; i < nx; i++)
            for (j = 1; j < ny; j++)
                ex[i][j] = ex[i][j] - SCALAR_VAL(0.5) * (hz[i][j] - hz[i][j - 1]);
        for (i = 0; i < nx - 1; i++)
            for (j = 0; j < ny - 1; j++)
                hz[i][j] = hz[i][j] - SCALAR_VAL(0.7) * (ex[i][j + 1] - ex[i][j] + ey[i + 1][j] - ey[i][j]);
    }
}

static double checksum2(int n, DATA_TYPE POLYBENCH_2D(A, N, N, n, n))
{
    double s = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            s += A[i][j] * (1 + (i * n + j) % 13);
    return s;
}

static DATA_TYPE A[N][N], B[N][N], C[N][N];
static DATA_TYPE H1[NZ][NZ][NZ], H2[NZ][NZ][NZ];

int main(void)
{
    int n = N;
    init_2d(n, A, B);
    kernel_jacobi_2d(TSTEPS, n, A, B);
    printf("jacobi: %.17g %.17g\n", checksum2(n, A), checksum2(n, B));

    init_2d(n, A, B);
    kernel_seidel_2d(TSTEPS, n, A);
    printf("seidel: %.17g\n", checksum2(n, A));
    for (int i = 0; i < n; i += 9)
        printf(DATA_PRINTF_MODIFIER, A[i][(i * 7) % n]);
    printf("\n");

    for (int i = 0; i < NZ; i++)
        for (int j = 0; j < NZ; j++)
            for (int k = 0; k < NZ; k++)
                H1[i][j][k] = H2[i][j][k] = (DATA_TYPE)((i * j + (NZ - k) * k) % 11) * 10 / NZ;
    kernel_heat_3d(TSTEPS, NZ, H1, H2);
    double hs = 0;
    for (int i = 0; i < NZ; i++)
        for (int j = 0; j < NZ; j++)
            for (int k = 0; k < NZ; k++)
                hs += H1[i][j][k] * (1 + k) - H2[i][j][k];
    printf("heat: %.17g\n", hs);

    DATA_TYPE fict[TSTEPS];
    for (int i = 0; i < TSTEPS; i++)
        fict[i] = (DATA_TYPE)i;
    init_2d(n, A, B);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            C[i][j] = ((DATA_TYPE)i * (j + 3)) / n;
    kernel_fdtd_2d(TSTEPS, n, n - 3, A, B, C, fict);
    printf("fdtd: %.17g %.17g %.17g isfinite=%d\n", checksum2(n, A), checksum2(n, B), checksum2(n, C),
           isfinite(checksum2(n, C)) ? 1 : 0);
    return 0;
}
