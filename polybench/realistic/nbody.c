/* nbody: a few leapfrog steps of a softened gravitational n-body system.
 *
 * Shapes: an array of structs (b[i].x, b[i].m), a struct holding the accelerations as separate
 * arrays (a->ax[i]), size_t counters, a static inline helper with sqrt, a kinetic-energy
 * reduction, and the user's own #pragma omp parallel for on the drift.
 *
 * usage: nbody [N]   (N bodies, 6 steps, default N = 3000)
 * stdout: a summary line, then the seconds of the steps; stderr: the result dump.
 */
#define _POSIX_C_SOURCE 199309L /* clock_gettime */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef struct {
    double x, y, z;
    double vx, vy, vz;
    double m;
} body_t;

typedef struct {
    size_t n;
    double *ax, *ay, *az;
} accel_t;

static inline double inv_dist3(double dx, double dy, double dz, double eps2)
{
    double r2 = dx * dx + dy * dy + dz * dz + eps2;
    double r = sqrt(r2);
    return 1.0 / (r2 * r);
}

static void compute_accel(const body_t *b, size_t n, accel_t *a, double eps2)
{
    /* hot */
    for (size_t i = 0; i < n; i++) {
        double axi = 0.0, ayi = 0.0, azi = 0.0;
        for (size_t j = 0; j < n; j++) {
            double dx = b[j].x - b[i].x;
            double dy = b[j].y - b[i].y;
            double dz = b[j].z - b[i].z;
            double s = b[j].m * inv_dist3(dx, dy, dz, eps2);
            axi += dx * s;
            ayi += dy * s;
            azi += dz * s;
        }
        a->ax[i] = axi;
        a->ay[i] = ayi;
        a->az[i] = azi;
    }
}

static void kick(body_t *b, const accel_t *a, double dt)
{
    /* hot */
    for (size_t i = 0; i < a->n; i++) {
        b[i].vx += dt * a->ax[i];
        b[i].vy += dt * a->ay[i];
        b[i].vz += dt * a->az[i];
    }
}

static void drift(body_t *b, size_t n, double dt)
{
    long count = (long)n;
    /* hot */
#ifdef _OPENMP
#pragma omp parallel for
#endif
    for (long i = 0; i < count; i++) {
        b[i].x += dt * b[i].vx;
        b[i].y += dt * b[i].vy;
        b[i].z += dt * b[i].vz;
    }
}

static double kinetic_energy(const body_t *b, size_t n)
{
    double e = 0.0;
    /* hot */
    for (size_t i = 0; i < n; i++)
        e += 0.5 * b[i].m * (b[i].vx * b[i].vx + b[i].vy * b[i].vy + b[i].vz * b[i].vz);
    return e;
}

static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

int main(int argc, char **argv)
{
    long arg = argc > 1 ? atol(argv[1]) : 3000;
    if (arg < 2) {
        fprintf(stderr, "usage: %s [N >= 2]\n", argv[0]);
        return 2;
    }
    size_t n = (size_t)arg;
    const int steps = 6;
    const double dt = 1e-3, eps2 = 1e-4;
    body_t *b = malloc(n * sizeof *b);
    accel_t a = {n, malloc(n * sizeof(double)), malloc(n * sizeof(double)), malloc(n * sizeof(double))};
    if (!b || !a.ax || !a.ay || !a.az) {
        perror("malloc");
        return 1;
    }
    unsigned long long seed = 42;
    for (size_t i = 0; i < n; i++) {
        double u[7];
        for (int k = 0; k < 7; k++) {
            seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
            u[k] = (double)(seed >> 11) / 9007199254740992.0;
        }
        b[i] = (body_t){u[0] - 0.5, u[1] - 0.5, u[2] - 0.5, 0.1 * (u[3] - 0.5), 0.1 * (u[4] - 0.5),
                        0.1 * (u[5] - 0.5), (0.5 + u[6]) / n};
    }

    double e[2 * 6];
    double t0 = seconds();
    compute_accel(b, n, &a, eps2);
    for (int s = 0; s < steps; s++) {
        kick(b, &a, 0.5 * dt);
        drift(b, n, dt);
        compute_accel(b, n, &a, eps2);
        kick(b, &a, 0.5 * dt);
        e[2 * s] = kinetic_energy(b, n);
        e[2 * s + 1] = a.ax[s % n];
    }
    double t1 = seconds();

    fprintf(stderr, "==BEGIN DUMP_ARRAYS==\nbegin dump: bodies\n");
    size_t step = n > 1024 ? n / 1024 : 1;
    for (size_t i = 0; i < n; i += step)
        fprintf(stderr, "%.17g %.17g %.17g %.17g %.17g %.17g\n", b[i].x, b[i].y, b[i].z, b[i].vx, b[i].vy, b[i].vz);
    fprintf(stderr, "end   dump: bodies\nbegin dump: energy\n");
    for (int k = 0; k < 2 * steps; k++)
        fprintf(stderr, "%.17g\n", e[k]);
    fprintf(stderr, "end   dump: energy\n==END   DUMP_ARRAYS==\n");
    printf("nbody: %zu bodies, %d steps\n%.9f\n", n, steps, t1 - t0);
    free(b);
    free(a.ax);
    free(a.ay);
    free(a.az);
    return 0;
}
