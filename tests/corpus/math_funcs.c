/* math_funcs.c: <math.h> in loop bodies (sin, cos, exp, log, sqrt, pow, fabs, floor, ceil,
 * fmin, fmax, fmod, isnan, isinf, NAN/INFINITY) and floating-point reductions whose order
 * matters; every result is printed with %.17g so any reassociation shows. */
#include <stdio.h>
#include <math.h>

#define N 200

static double xs[N];

int main(void)
{
    int i;
    for (i = 0; i < N; i++)
        xs[i] = (i - N / 2) * 0.037 + 0.001;

    double s_sin = 0.0, s_exp = 0.0, s_sqrt = 0.0, s_pow = 0.0, s_abs = 0.0;
    for (i = 0; i < N; i++) {
        s_sin += sin(xs[i]) * cos(xs[i] * 0.5);
        s_exp += exp(xs[i] / 4.0);
        s_sqrt += sqrt(fabs(xs[i]));
        s_pow += pow(fabs(xs[i]) + 1.0, 1.5);
        s_abs += fabs(xs[i]) - floor(xs[i]) + ceil(xs[i] * 0.25);
    }
    printf("s_sin=%.17g\ns_exp=%.17g\ns_sqrt=%.17g\ns_pow=%.17g\ns_abs=%.17g\n",
           s_sin, s_exp, s_sqrt, s_pow, s_abs);

    double lo = INFINITY, hi = -INFINITY;
    for (i = 0; i < N; i++) {
        lo = fmin(lo, sin(xs[i] * 3.0));
        hi = fmax(hi, cos(xs[i] * 2.0) * xs[i]);
    }
    printf("lo=%.17g hi=%.17g\n", lo, hi);

    /* NaN handling: log of negatives produces NaN, count them and sum the rest */
    int nans = 0, infs = 0;
    double slog = 0.0;
    for (i = 0; i < N; i++) {
        double v = log(xs[i]);
        if (isnan(v))
            nans++;
        else if (isinf(v))
            infs++;
        else
            slog += v;
    }
    double big = 1e300;
    printf("nans=%d infs=%d slog=%.17g isinf=%d\n", nans, infs, slog, isinf(big * big) ? 1 : 0);

    /* order-sensitive: alternating series with huge and tiny terms */
    double acc = 0.0;
    for (i = 1; i <= 1000; i++)
        acc += (i % 2 ? 1.0 : -1.0) / ((double)i * i) + (i % 97 == 0 ? 1e16 : 0.0) - (i % 97 == 0 ? 1e16 : 0.0);
    printf("acc=%.17g\n", acc);

    double m = 0.0;
    for (i = 0; i < N; i++)
        m = fmod(m + xs[i] * 7.0 + 100.0, 3.3);
    printf("fmod=%.17g hypot=%.17g atan2=%.17g\n", m, hypot(3.0, 4.0), atan2(-1.0, -1.0));

    /* a product reduction in reverse order */
    double prod = 1.0;
    for (i = N - 1; i >= 0; i--)
        prod *= 1.0 + xs[i] * 1e-3;
    printf("prod=%.17g\n", prod);
    return 0;
}
