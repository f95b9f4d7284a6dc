/* float_precision.c: float vs double vs long double accumulation printed exactly (%a and
 * %.17g / %.21Lg), order-sensitive sums (forward vs backward vs pairwise, Kahan compensated
 * summation, which must NOT be algebraically simplified), float literals (1.0f), mixed
 * float/double expressions and implicit promotions, FMA-prone a*b+c patterns. */
#include <stdio.h>

#define N 1000

static float fv[N];
static double dv[N];

static double kahan(const double *x, int n)
{
    double s = 0.0, c = 0.0;
    for (int i = 0; i < n; i++) {
        double y = x[i] - c;
        double t = s + y;
        c = (t - s) - y;
        s = t;
    }
    return s;
}

static double pairwise(const double *x, int n)
{
    if (n <= 4) {
        double s = 0;
        for (int i = 0; i < n; i++)
            s += x[i];
        return s;
    }
    int h = n / 2;
    return pairwise(x, h) + pairwise(x + h, n - h);
}

int main(void)
{
    for (int i = 0; i < N; i++) {
        dv[i] = 1.0 / (i + 1) * ((i % 3) ? 1.0 : -1e3) + 1e-9 * i;
        fv[i] = (float)dv[i];
    }
    float fs = 0.0f;
    double ds = 0.0;
    long double ls = 0.0L;
    for (int i = 0; i < N; i++) {
        fs += fv[i];
        ds += dv[i];
        ls += dv[i];
    }
    printf("forward: f=%a d=%a ld=%.21Lg\n", (double)fs, ds, ls);
    double back = 0.0;
    for (int i = N - 1; i >= 0; i--)
        back += dv[i];
    printf("backward=%.17g forward=%.17g kahan=%.17g pairwise=%.17g\n", back, ds, kahan(dv, N), pairwise(dv, N));

    /* float-only arithmetic with float literals: must stay in float */
    float fx = 1.0f;
    for (int i = 0; i < 100; i++)
        fx = fx * 1.01f + 0.001f;
    double dx = 1.0;
    for (int i = 0; i < 100; i++)
        dx = dx * 1.01 + 0.001;
    printf("fx=%a dx=%a\n", (double)fx, dx);

    /* mixed promotions */
    float ff = 0.1f;
    double mixed = 0;
    for (int i = 0; i < 50; i++)
        mixed += ff * i + 0.1 * i - (float)(0.1 * i);
    printf("mixed=%.17g\n", mixed);

    /* strided and interleaved reductions; two accumulators must not be merged */
    double even = 0, odd = 0;
    for (int i = 0; i < N; i += 2) {
        even += dv[i];
        odd += dv[i + 1];
    }
    printf("even=%.17g odd=%.17g sum=%.17g\n", even, odd, even + odd);

    /* dot product and a*b+c chains */
    double dot = 0;
    for (int i = 0; i < N; i++)
        dot += dv[i] * dv[N - 1 - i];
    long double ldot = 0;
    for (int i = 0; i < N; i++)
        ldot += (long double)dv[i] * dv[N - 1 - i];
    printf("dot=%.17g ldot=%.21Lg\n", dot, ldot);

    /* catastrophic cancellation that depends on evaluation order */
    double big = 1e16, acc = 0;
    for (int i = 0; i < 10; i++) {
        acc += big;
        acc += 1.0;
        acc -= big;
    }
    printf("cancel=%.17g\n", acc);
    float fmin_ = 1e30f;
    for (int i = 0; i < N; i++)
        if (fv[i] < fmin_)
            fmin_ = fv[i];
    printf("fmin=%a sizeof(long double)=%zu\n", (double)fmin_, sizeof(long double));
    return 0;
}
