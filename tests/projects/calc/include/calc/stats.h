/* stats.h: descriptive statistics over arrays of doubles. */
#ifndef CALC_STATS_H
#define CALC_STATS_H

#include <stddef.h>

#define STATS_BINS 8

struct summary {
    double mean, var, min, max;
    size_t count;
    unsigned hist[STATS_BINS];
};

struct summary summarize(const double *x, size_t n);
double median_inplace(double *x, size_t n);

#endif
