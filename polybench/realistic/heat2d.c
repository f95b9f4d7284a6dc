/* heat2d: explicit time steps of the 2-D heat equation on a grid struct, the two time levels
 * swapped by pointer after each step, with a convergence residual every few steps.
 *
 * Shapes: a grid struct holding both levels (g->u, g->unew) with linearized subscripts
 * u[i*ny + j], local pointer copies of the members, the pointer swap through the struct,
 * a max-norm residual written directly on the members (g->u[i*g->ny + j]) with fabs/fmax.
 *
 * usage: heat2d [N]   (grid N x N, 200 steps, default N = 1200)
 * stdout: a summary line, then the seconds of the time loop; stderr: the result dump.
 */
#define _POSIX_C_SOURCE 199309L /* clock_gettime */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef struct {
    int nx, ny;
    double alpha;
    double *u;    /* current level */
    double *unew; /* next level */
} grid_t;

static grid_t *grid_new(int nx, int ny, double alpha)
{
    grid_t *g = malloc(sizeof *g);
    if (!g)
        exit(1);
    g->nx = nx;
    g->ny = ny;
    g->alpha = alpha;
    g->u = calloc((size_t)nx * ny, sizeof(double));
    g->unew = calloc((size_t)nx * ny, sizeof(double));
    if (!g->u || !g->unew)
        exit(1);
    return g;
}

static void heat_step(grid_t *g)
{
    const int nx = g->nx, ny = g->ny;
    const double a = g->alpha;
    const double *u = g->u;
    double *un = g->unew;
    /* hot */
    for (int i = 1; i < nx - 1; i++)
        for (int j = 1; j < ny - 1; j++)
            un[i * ny + j] = u[i * ny + j]
                             + a * (u[(i - 1) * ny + j] + u[(i + 1) * ny + j]
                                    + u[i * ny + j - 1] + u[i * ny + j + 1] - 4.0 * u[i * ny + j]);
    double *t = g->u;
    g->u = g->unew;
    g->unew = t;
}

/* max |u - unew| over the interior: how much the last step changed */
static double residual(const grid_t *g)
{
    double r = 0.0;
    /* hot */
    for (int i = 1; i < g->nx - 1; i++)
        for (int j = 1; j < g->ny - 1; j++)
            r = fmax(r, fabs(g->u[i * g->ny + j] - g->unew[i * g->ny + j]));
    return r;
}

static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1200;
    if (n < 4) {
        fprintf(stderr, "usage: %s [N >= 4]\n", argv[0]);
        return 2;
    }
    enum { steps = 200 };
    grid_t *g = grid_new(n, n, 0.2);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double x = (double)i / n, y = (double)j / n;
            g->u[i * n + j] = exp(-40.0 * ((x - 0.3) * (x - 0.3) + (y - 0.6) * (y - 0.6)))
                              + (i == 0 || j == 0 || i == n - 1 || j == n - 1 ? 1.0 : 0.0);
            g->unew[i * n + j] = g->u[i * n + j]; /* the boundary stays fixed in both levels */
        }

    double res[steps / 10];
    double t0 = seconds();
    for (int s = 0; s < steps; s++) {
        heat_step(g);
        if (s % 10 == 9)
            res[s / 10] = residual(g);
    }
    double t1 = seconds();

    fprintf(stderr, "==BEGIN DUMP_ARRAYS==\nbegin dump: u\n");
    size_t np = (size_t)n * n, step = np > 4096 ? np / 4096 : 1;
    double sum = 0.0, wsum = 0.0;
    for (size_t k = 0; k < np; k++) {
        sum += g->u[k];
        wsum += (double)(k % 7 + 1) * g->u[k];
        if (k % step == 0)
            fprintf(stderr, "%.17g\n", g->u[k]);
    }
    fprintf(stderr, "end   dump: u\nbegin dump: sums\n%.17g %.17g\nend   dump: sums\nbegin dump: residual\n", sum, wsum);
    for (int k = 0; k < steps / 10; k++)
        fprintf(stderr, "%.17g\n", res[k]);
    fprintf(stderr, "end   dump: residual\n==END   DUMP_ARRAYS==\n");
    printf("heat2d: %dx%d, %d steps, last residual %.3g\n%.9f\n", n, n, steps, res[steps / 10 - 1], t1 - t0);
    free(g->u);
    free(g->unew);
    free(g);
    return 0;
}
