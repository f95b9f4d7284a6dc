/* stats.c: one-pass summary (Welford), histogram, and a median by insertion sort. */
#include <math.h>
#include "calc/stats.h"

struct summary summarize(const double *x, size_t n)
{
    struct summary s = {0.0, 0.0, INFINITY, -INFINITY, 0, {0}};
    double m2 = 0.0;
    for (size_t i = 0; i < n; i++) {
        double d = x[i] - s.mean;
        s.count++;
        s.mean += d / (double)s.count;
        m2 += d * (x[i] - s.mean);
        if (x[i] < s.min)
            s.min = x[i];
        if (x[i] > s.max)
            s.max = x[i];
    }
    s.var = n > 1 ? m2 / (double)(n - 1) : 0.0;
    double width = (s.max - s.min) / STATS_BINS;
    for (size_t i = 0; i < n; i++) {
        int b = width > 0 ? (int)((x[i] - s.min) / width) : 0;
        if (b >= STATS_BINS)
            b = STATS_BINS - 1;
        s.hist[b]++;
    }
    return s;
}

double median_inplace(double *x, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        double key = x[i];
        size_t j = i;
        while (j > 0 && x[j - 1] > key) {
            x[j] = x[j - 1];
            j--;
        }
        x[j] = key;
    }
    if (n == 0)
        return NAN;
    return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}
