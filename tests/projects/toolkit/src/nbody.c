/* nbody.c - direct-sum gravity over struct-of-arrays coordinates. */
#include "toolkit/nbody.h"
#include "toolkit/common.h"

#include <math.h>

void tk_bodies_init(tk_bodies *b, int n, tk_prng *rng)
{
    int i;

    b->n = n;
    b->x = tk_malloc((size_t)n * sizeof(double));
    b->y = tk_malloc((size_t)n * sizeof(double));
    b->z = tk_malloc((size_t)n * sizeof(double));
    b->vx = tk_calloc((size_t)n, sizeof(double));
    b->vy = tk_calloc((size_t)n, sizeof(double));
    b->vz = tk_calloc((size_t)n, sizeof(double));
    b->ax = tk_calloc((size_t)n, sizeof(double));
    b->ay = tk_calloc((size_t)n, sizeof(double));
    b->az = tk_calloc((size_t)n, sizeof(double));
    b->mass = tk_malloc((size_t)n * sizeof(double));
    for (i = 0; i < n; i++) {
        b->x[i] = tk_prng_dyadic(rng, 10) * 2.0 - 1.0;
        b->y[i] = tk_prng_dyadic(rng, 10) * 2.0 - 1.0;
        b->z[i] = tk_prng_dyadic(rng, 10) * 0.5 - 0.25;
        b->mass[i] = 1.0 + tk_prng_dyadic(rng, 4);
    }
}

void tk_bodies_free(tk_bodies *b)
{
    tk_free(b->x);
    tk_free(b->y);
    tk_free(b->z);
    tk_free(b->vx);
    tk_free(b->vy);
    tk_free(b->vz);
    tk_free(b->ax);
    tk_free(b->ay);
    tk_free(b->az);
    tk_free(b->mass);
}

static void accelerations(int n, const double *x, const double *y, const double *z, const double *mass,
                          double eps2, double *ax, double *ay, double *az)
{
    int i, j;

    for (i = 0; i < n; i++) {
        ax[i] = 0.0;
        ay[i] = 0.0;
        az[i] = 0.0;
    }
    for (i = 0; i < n; i++) {
        for (j = 0; j < n; j++) {
            double dx = x[j] - x[i], dy = y[j] - y[i], dz = z[j] - z[i];
            double r2 = dx * dx + dy * dy + dz * dz + eps2;
            double inv = mass[j] / (r2 * sqrt(r2));

            ax[i] += dx * inv;
            ay[i] += dy * inv;
            az[i] += dz * inv;
        }
    }
}

void tk_nbody_step(tk_bodies *b, double dt, double softening)
{
    int i, n = b->n;

    accelerations(n, b->x, b->y, b->z, b->mass, softening * softening, b->ax, b->ay, b->az);
    for (i = 0; i < n; i++) {
        b->vx[i] += dt * b->ax[i];
        b->vy[i] += dt * b->ay[i];
        b->vz[i] += dt * b->az[i];
        b->x[i] += dt * b->vx[i];
        b->y[i] += dt * b->vy[i];
        b->z[i] += dt * b->vz[i];
    }
}

double tk_nbody_energy(const tk_bodies *b, double softening)
{
    double kinetic = 0.0, potential = 0.0, eps2 = softening * softening;
    int i, j;

    for (i = 0; i < b->n; i++)
        kinetic += 0.5 * b->mass[i] * (b->vx[i] * b->vx[i] + b->vy[i] * b->vy[i] + b->vz[i] * b->vz[i]);
    for (i = 0; i < b->n; i++) {
        for (j = i + 1; j < b->n; j++) {
            double dx = b->x[j] - b->x[i], dy = b->y[j] - b->y[i], dz = b->z[j] - b->z[i];

            potential -= b->mass[i] * b->mass[j] / sqrt(dx * dx + dy * dy + dz * dz + eps2);
        }
    }
    return kinetic + potential;
}

void tk_nbody_momentum(const tk_bodies *b, double p[3])
{
    int i;

    p[0] = p[1] = p[2] = 0.0;
    for (i = 0; i < b->n; i++) {
        p[0] += b->mass[i] * b->vx[i];
        p[1] += b->mass[i] * b->vy[i];
        p[2] += b->mass[i] * b->vz[i];
    }
}
