/* nbody.h - a gravitational n-body system in struct-of-arrays layout. */
#ifndef TOOLKIT_NBODY_H
#define TOOLKIT_NBODY_H

#include "toolkit/prng.h"

typedef struct {
    int n;
    double *x, *y, *z;
    double *vx, *vy, *vz;
    double *ax, *ay, *az;
    double *mass;
} tk_bodies;

void tk_bodies_init(tk_bodies *b, int n, tk_prng *rng);
void tk_bodies_free(tk_bodies *b);
/* Accelerations from all pairs (softened), then a leapfrog kick-drift of dt. */
void tk_nbody_step(tk_bodies *b, double dt, double softening);
double tk_nbody_energy(const tk_bodies *b, double softening);
void tk_nbody_momentum(const tk_bodies *b, double p[3]);

#endif
