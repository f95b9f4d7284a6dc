/* fir: a multichannel FIR low-pass filter with decimation by two, as in a data-acquisition
 * front end, then each channel's RMS level.
 *
 * Shapes: channel-major samples x[ch*len + t] in one malloc'd buffer, a strided input index
 * (2*i + k) in the decimating filter, a float accumulator over the taps, taps designed with sin/cos (windowed sinc), float data,
 * per-channel sum-of-squares reductions and sqrtf.
 *
 * usage: fir [N]   (N output samples per channel, 8 channels, 127 taps, default N = 400000)
 * stdout: a summary line, then the seconds of filtering; stderr: the result dump.
 */
#define _POSIX_C_SOURCE 199309L /* clock_gettime */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define PI 3.14159265358979323846

static void design_lowpass(float *h, int ntaps, double cutoff)
{
    int mid = ntaps / 2;
    double sum = 0.0;
    for (int k = 0; k < ntaps; k++) {
        int m = k - mid;
        double sinc = m == 0 ? 2.0 * cutoff : sin(2.0 * PI * cutoff * m) / (PI * m);
        double window = 0.54 - 0.46 * cos(2.0 * PI * k / (ntaps - 1)); /* Hamming */
        h[k] = (float)(sinc * window);
        sum += h[k];
    }
    for (int k = 0; k < ntaps; k++)
        h[k] = (float)(h[k] / sum);
}

/* y[ch*nout + i] = sum_k h[k] x[ch*nin + 2i + k] */
static void fir_decimate(const float *x, float *y, const float *h, int nin, int nout, int nch, int ntaps)
{
    /* hot */
    for (int ch = 0; ch < nch; ch++)
        for (int i = 0; i < nout; i++) {
            float acc = 0.0f;
            for (int k = 0; k < ntaps; k++)
                acc += h[k] * x[ch * nin + 2 * i + k];
            y[ch * nout + i] = acc;
        }
}

static void channel_rms(const float *y, float *rms, int nout, int nch)
{
    for (int ch = 0; ch < nch; ch++)
        rms[ch] = 0.0f;
    /* hot */
    for (int ch = 0; ch < nch; ch++)
        for (int i = 0; i < nout; i++)
            rms[ch] += y[ch * nout + i] * y[ch * nout + i];
    for (int ch = 0; ch < nch; ch++)
        rms[ch] = sqrtf(rms[ch] / nout);
}

static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

int main(int argc, char **argv)
{
    int nout = argc > 1 ? atoi(argv[1]) : 400000;
    if (nout < 1) {
        fprintf(stderr, "usage: %s [N >= 1]\n", argv[0]);
        return 2;
    }
    const int nch = 8, ntaps = 127;
    int nin = 2 * nout + ntaps;
    float *x = malloc(sizeof(float) * (size_t)nin * nch), *y = malloc(sizeof(float) * (size_t)nout * nch);
    float h[127], rms[8];
    if (!x || !y) {
        perror("malloc");
        return 1;
    }
    design_lowpass(h, ntaps, 0.2);
    for (int ch = 0; ch < nch; ch++)
        for (int t = 0; t < nin; t++)
            x[ch * nin + t] = (float)(sin(0.01 * t * (ch + 1)) + 0.3 * sin(2.9 * t + ch)
                                      + 0.05 * ((t * 31 + ch * 7) % 17 - 8));

    double t0 = seconds();
    fir_decimate(x, y, h, nin, nout, nch, ntaps);
    channel_rms(y, rms, nout, nch);
    double t1 = seconds();

    fprintf(stderr, "==BEGIN DUMP_ARRAYS==\nbegin dump: y\n");
    size_t ny = (size_t)nout * nch, step = ny > 4096 ? ny / 4096 : 1;
    double sum = 0.0, wsum = 0.0;
    for (size_t k = 0; k < ny; k++) {
        sum += y[k];
        wsum += (double)(k % 7 + 1) * y[k];
        if (k % step == 0)
            fprintf(stderr, "%.9g\n", y[k]);
    }
    fprintf(stderr, "end   dump: y\nbegin dump: y_sums\n%.17g %.17g\nend   dump: y_sums\nbegin dump: rms\n", sum, wsum);
    for (int ch = 0; ch < nch; ch++)
        fprintf(stderr, "%.9g\n", rms[ch]);
    fprintf(stderr, "end   dump: rms\n==END   DUMP_ARRAYS==\n");
    printf("fir: %d channels, %d taps, %d outputs each\n%.9f\n", nch, ntaps, nout, t1 - t0);
    free(x);
    free(y);
    return 0;
}
