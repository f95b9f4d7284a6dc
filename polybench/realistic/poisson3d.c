/* poisson3d: Jacobi iterations for the 3-D Poisson equation -lap(u) = f on the unit cube,
 * in flat buffers of (n+2)^3 points (a layer of boundary points around the n^3 unknowns),
 * the two iterates swapped by pointer, the residual's norm every few sweeps.
 *
 * Shapes: a flat 3-D grid addressed through an index macro, IDX(i, j, k) = (k*ny + j)*nx + i,
 * and in the residual through the point's offset in a local (c = k*sz + j*sy + i) and strides
 * kept in locals before the loops (sz = nx*ny); the extents are function parameters; a sum of
 * squares into a scalar; sqrt; a pointer swap between sweeps.
 *
 * usage: poisson3d [N]   (N^3 unknowns, 40 sweeps, default N = 160)
 * stdout: a summary line, then the seconds of the sweeps; stderr: the result dump.
 */
#define _POSIX_C_SOURCE 199309L /* clock_gettime */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define PI 3.14159265358979323846
#define IDX(i, j, k) (((k) * ny + (j)) * nx + (i))

/* one Jacobi sweep over the interior: unew = (sum of the six neighbours + h^2 f) / 6 */
static void jacobi_sweep(int nx, int ny, int nz, double h2, const double *f, const double *u, double *unew)
{
    /* hot */
    for (int k = 1; k < nz - 1; k++)
        for (int j = 1; j < ny - 1; j++)
            for (int i = 1; i < nx - 1; i++)
                unew[IDX(i, j, k)] = (u[IDX(i - 1, j, k)] + u[IDX(i + 1, j, k)] + u[IDX(i, j - 1, k)]
                                      + u[IDX(i, j + 1, k)] + u[IDX(i, j, k - 1)] + u[IDX(i, j, k + 1)]
                                      + h2 * f[IDX(i, j, k)]) * (1.0 / 6.0);
}

/* ||f + lap(u)||_2 over the interior */
static double residual_norm(int nx, int ny, int nz, double h2, const double *f, const double *u)
{
    const long sy = nx, sz = (long)nx * ny; /* strides of a row and a plane */
    double sum = 0.0;
    /* hot */
    for (int k = 1; k < nz - 1; k++)
        for (int j = 1; j < ny - 1; j++)
            for (int i = 1; i < nx - 1; i++) {
                const long c = k * sz + j * sy + i;
                double r = f[c] + (u[c - 1] + u[c + 1] + u[c - sy] + u[c + sy] + u[c - sz] + u[c + sz] - 6.0 * u[c]) / h2;
                sum += r * r;
            }
    return sqrt(sum);
}

static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 160;
    if (n < 2) {
        fprintf(stderr, "usage: %s [N >= 2]\n", argv[0]);
        return 2;
    }
    enum { sweeps = 40, every = 10 };
    const int nx = n + 2, ny = n + 2, nz = n + 2;
    const size_t np = (size_t)nx * ny * nz;
    double *f = malloc(np * sizeof *f), *u = calloc(np, sizeof *u), *v = calloc(np, sizeof *v);
    if (!f || !u || !v)
        return 1;
    const double h = 1.0 / (n + 1), h2 = h * h;
    for (int k = 0; k < nz; k++)
        for (int j = 0; j < ny; j++)
            for (int i = 0; i < nx; i++) {
                double x = i * h, y = j * h, z = k * h;
                f[IDX(i, j, k)] = 3.0 * PI * PI * sin(PI * x) * sin(PI * y) * sin(PI * z);
                /* boundary values of the exact solution's neighbour, in both iterates */
                u[IDX(i, j, k)] = v[IDX(i, j, k)] = (i == 0 || j == 0 || k == 0) ? 0.01 * (x + y + z) : 0.0;
            }

    double norms[sweeps / every];
    double t0 = seconds();
    for (int s = 0; s < sweeps; s++) {
        jacobi_sweep(nx, ny, nz, h2, f, u, v);
        double *t = u;
        u = v;
        v = t;
        if (s % every == every - 1)
            norms[s / every] = residual_norm(nx, ny, nz, h2, f, u);
    }
    double t1 = seconds();

    fprintf(stderr, "==BEGIN DUMP_ARRAYS==\nbegin dump: u\n");
    size_t step = np > 4096 ? np / 4096 : 1;
    double sum = 0.0, wsum = 0.0;
    for (size_t q = 0; q < np; q++) {
        sum += u[q];
        wsum += (double)(q % 7 + 1) * u[q];
        if (q % step == 0)
            fprintf(stderr, "%.17g\n", u[q]);
    }
    fprintf(stderr, "end   dump: u\nbegin dump: sums\n%.17g %.17g\nend   dump: sums\nbegin dump: norms\n", sum, wsum);
    for (int q = 0; q < sweeps / every; q++)
        fprintf(stderr, "%.17g\n", norms[q]);
    fprintf(stderr, "end   dump: norms\n==END   DUMP_ARRAYS==\n");
    printf("poisson3d: %d^3, %d sweeps, last residual %.6g\n%.9f\n", n, sweeps, norms[sweeps / every - 1], t1 - t0);
    free(f);
    free(u);
    free(v);
    return 0;
}
