/* complex_dft.c: C99 <complex.h>: double complex arithmetic in loop bodies (naive DFT with
 * cexp, an iterative radix-2 FFT with bit reversal and in-place butterflies, inverse transform
 * and round-trip error), creal/cimag/cabs/conj, CMPLX construction, float complex. */
#include <stdio.h>
#include <complex.h>
#include <math.h>

#define N 32
#ifndef CMPLX /* clang with glibc: CMPLX/CMPLXF are only provided for GCC */
#define CMPLX(x, y) ((double complex)((double)(x) + I * (double)(y)))
#define CMPLXF(x, y) ((float complex)((float)(x) + I * (float)(y)))
#endif

static const double PI = 3.14159265358979323846;

static void dft(const double complex *in, double complex *out, int n, int sign)
{
    for (int k = 0; k < n; k++) {
        double complex s = 0;
        for (int t = 0; t < n; t++)
            s += in[t] * cexp(CMPLX(0.0, sign * 2.0 * PI * t * k / n));
        out[k] = s;
    }
}

static void fft(double complex *a, int n)
{
    for (int i = 1, j = 0; i < n; i++) {
        int bit = n >> 1;
        for (; j & bit; bit >>= 1)
            j ^= bit;
        j ^= bit;
        if (i < j) {
            double complex t = a[i];
            a[i] = a[j];
            a[j] = t;
        }
    }
    for (int len = 2; len <= n; len <<= 1) {
        double ang = -2.0 * PI / len;
        double complex wl = CMPLX(cos(ang), sin(ang));
        for (int i = 0; i < n; i += len) {
            double complex w = 1.0;
            for (int j = 0; j < len / 2; j++) {
                double complex u = a[i + j], v = a[i + j + len / 2] * w;
                a[i + j] = u + v;
                a[i + j + len / 2] = u - v;
                w *= wl;
            }
        }
    }
}

int main(void)
{
    double complex x[N], X[N], Y[N], back[N];
    for (int i = 0; i < N; i++)
        x[i] = CMPLX(sin(0.3 * i) + (i % 4) * 0.25, cos(0.7 * i) * 0.5);
    dft(x, X, N, -1);
    for (int i = 0; i < N; i++)
        Y[i] = x[i];
    fft(Y, N);
    double maxdiff = 0, energy = 0;
    for (int k = 0; k < N; k++) {
        double d = cabs(X[k] - Y[k]);
        maxdiff = d > maxdiff ? d : maxdiff;
        energy += creal(X[k] * conj(X[k]));
    }
    printf("fft-vs-dft %s energy=%.17g\n", maxdiff < 1e-9 ? "ok" : "MISMATCH", energy);
    for (int k = 0; k < N; k += 5)
        printf("X[%d]=%.17g%+.17gi\n", k, creal(X[k]), cimag(X[k]));

    dft(X, back, N, +1);
    double err = 0;
    for (int i = 0; i < N; i++)
        err += cabs(back[i] / N - x[i]);
    printf("roundtrip %s\n", err < 1e-9 ? "ok" : "BAD");

    float complex fz = 1.0f;
    for (int i = 0; i < 10; i++)
        fz = fz * CMPLXF(0.9f, 0.1f) + CMPLXF(0.01f, -0.02f);
    printf("fz=%a %a\n", (double)crealf(fz), (double)cimagf(fz));
    return 0;
}
