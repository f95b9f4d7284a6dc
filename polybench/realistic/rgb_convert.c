/* rgb_convert: colour conversion of 8-bit interleaved RGB frames to planar YCbCr floats
 * (BT.601), through a gamma lookup table, then the frame's mean luma and contrast.
 *
 * Shapes: unsigned char input rgb[3*i + c] with size_t counters, a lookup table indexed by
 * pixel values (lin[rgb[3*i]]: not affine), fminf/fmaxf clamping, planar outputs held in a
 * struct (f->y[i], f->cb[i]), the user's own #pragma omp parallel for, and a two-value
 * reduction (sum and sum of squares).
 *
 * usage: rgb_convert [N]   (6 frames of N x N pixels, default N = 2048)
 * stdout: a summary line, then the seconds of the conversions; stderr: the result dump.
 */
#define _POSIX_C_SOURCE 199309L /* clock_gettime */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef struct {
    size_t npix;
    float *y, *cb, *cr;
} ycc_frame_t;

static inline float clamp01(float v)
{
    return fminf(fmaxf(v, 0.0f), 1.0f);
}

/* straight conversion of gamma-encoded values */
static void rgb_to_ycc(const unsigned char *rgb, ycc_frame_t *f)
{
    const float s = 1.0f / 255.0f;
    /* hot */
    for (size_t i = 0; i < f->npix; i++) {
        float r = rgb[3 * i] * s, g = rgb[3 * i + 1] * s, b = rgb[3 * i + 2] * s;
        f->y[i] = 0.299f * r + 0.587f * g + 0.114f * b;
        f->cb[i] = clamp01(0.5f - 0.168736f * r - 0.331264f * g + 0.5f * b);
        f->cr[i] = clamp01(0.5f + 0.5f * r - 0.418688f * g - 0.081312f * b);
    }
}

/* linear-light luma through the decoding table: the subscript is pixel data */
static void linear_luma(const unsigned char *rgb, const float *lin, float *luma, size_t npix)
{
    /* hot: not affine (lin[] indexed by pixel values) */
#ifdef _OPENMP
#pragma omp parallel for
#endif
    for (size_t i = 0; i < npix; i++)
        luma[i] = 0.2126f * lin[rgb[3 * i]] + 0.7152f * lin[rgb[3 * i + 1]] + 0.0722f * lin[rgb[3 * i + 2]];
}

static void mean_and_contrast(const float *v, size_t n, double *mean, double *rms_contrast)
{
    double s = 0.0, s2 = 0.0;
    /* hot */
    for (size_t i = 0; i < n; i++) {
        s += v[i];
        s2 += (double)v[i] * v[i];
    }
    *mean = s / n;
    *rms_contrast = sqrt(fmax(s2 / n - *mean * *mean, 0.0));
}

static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 2048;
    if (n < 1) {
        fprintf(stderr, "usage: %s [N >= 1]\n", argv[0]);
        return 2;
    }
    enum { frames = 6 };
    size_t npix = (size_t)n * n;
    unsigned char *rgb = malloc(3 * npix);
    float lin[256], *luma = malloc(sizeof(float) * npix);
    ycc_frame_t f = {npix, malloc(sizeof(float) * npix), malloc(sizeof(float) * npix), malloc(sizeof(float) * npix)};
    if (!rgb || !luma || !f.y || !f.cb || !f.cr) {
        perror("malloc");
        return 1;
    }
    for (int v = 0; v < 256; v++) {
        double c = v / 255.0;
        lin[v] = (float)(c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4));
    }
    double stats[4 * frames], busy = 0.0;
    for (int fr = 0; fr < frames; fr++) {
        for (size_t i = 0; i < npix; i++) {
            size_t x = i % n, y = i / n;
            rgb[3 * i] = (unsigned char)((x * 3 + y + 40 * fr) % 256);
            rgb[3 * i + 1] = (unsigned char)((x ^ y) + fr);
            rgb[3 * i + 2] = (unsigned char)((x * y / 64 + 7 * fr) % 256);
        }
        double t0 = seconds();
        rgb_to_ycc(rgb, &f);
        linear_luma(rgb, lin, luma, npix);
        mean_and_contrast(f.y, npix, &stats[4 * fr], &stats[4 * fr + 1]);
        mean_and_contrast(luma, npix, &stats[4 * fr + 2], &stats[4 * fr + 3]);
        busy += seconds() - t0;
    }

    fprintf(stderr, "==BEGIN DUMP_ARRAYS==\nbegin dump: stats\n");
    for (int k = 0; k < 4 * frames; k++)
        fprintf(stderr, "%.17g\n", stats[k]);
    fprintf(stderr, "end   dump: stats\n");
    const char *names[3] = {"Cb", "Cr", "luma"};
    const float *planes[3] = {f.cb, f.cr, luma};
    for (int p = 0; p < 3; p++) {
        fprintf(stderr, "begin dump: %s\n", names[p]);
        for (size_t i = 0; i < npix; i += npix / 2048 + 1)
            fprintf(stderr, "%.9g\n", planes[p][i]);
        fprintf(stderr, "end   dump: %s\n", names[p]);
    }
    fprintf(stderr, "==END   DUMP_ARRAYS==\n");
    printf("rgb_convert: %d frames of %ldx%ld, mean luma %.4f\n%.9f\n", frames, n, n, stats[4 * frames - 4], busy);
    free(rgb);
    free(luma);
    free(f.y);
    free(f.cb);
    free(f.cr);
    return 0;
}
