/* gauss_blur: separable Gaussian blur of an interleaved RGB float image.
 *
 * Shapes: an image struct holding a malloc'd buffer (img->px), linearized subscripts
 * px[(y*w + x)*3 + c], local pointer copies of struct members, a kernel built with expf,
 * clamp-to-edge borders through a static inline helper.
 *
 * usage: gauss_blur [N]   (image N x 3N/4, default N = 2400)
 * stdout: a summary line, then the seconds of the two blur passes; stderr: the result dump.
 */
#define _POSIX_C_SOURCE 199309L /* clock_gettime */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef struct {
    int w, h;
    float *px; /* w*h pixels, 3 channels interleaved */
} image_t;

static image_t image_new(int w, int h)
{
    image_t im = {w, h, malloc(sizeof(float) * 3 * (size_t)w * (size_t)h)};
    if (!im.px) {
        perror("malloc");
        exit(1);
    }
    return im;
}

static inline int clampi(int v, int lo, int hi)
{
    return v < lo ? lo : (v > hi ? hi : v);
}

static int gaussian_kernel(float sigma, float *k, int maxr)
{
    int r = (int)ceilf(3.0f * sigma);
    if (r > maxr)
        r = maxr;
    float sum = 0.0f;
    for (int i = -r; i <= r; i++) {
        k[i + r] = expf(-(float)(i * i) / (2.0f * sigma * sigma));
        sum += k[i + r];
    }
    for (int i = 0; i < 2 * r + 1; i++)
        k[i] /= sum;
    return r;
}

/* horizontal pass: interior columns, then the clamped borders */
static void blur_rows(const image_t *src, image_t *dst, const float *k, int r)
{
    const int w = src->w, h = src->h;
    const float *in = src->px;
    float *out = dst->px;
    /* hot */
    for (int y = 0; y < h; y++)
        for (int x = r; x < w - r; x++)
            for (int c = 0; c < 3; c++) {
                float s = 0.0f;
                for (int i = -r; i <= r; i++)
                    s += k[i + r] * in[(y * w + x + i) * 3 + c];
                out[(y * w + x) * 3 + c] = s;
            }
    for (int y = 0; y < h; y++)
        for (int b = 0; b < 2 * r; b++) {
            int x = b < r ? b : w - 2 * r + b; /* the r columns at each edge */
            for (int c = 0; c < 3; c++) {
                float s = 0.0f;
                for (int i = -r; i <= r; i++)
                    s += k[i + r] * in[(y * w + clampi(x + i, 0, w - 1)) * 3 + c];
                out[(y * w + x) * 3 + c] = s;
            }
        }
}

/* vertical pass, written directly on the struct members */
static void blur_cols(const image_t *src, image_t *dst, const float *k, int r)
{
    const int w = src->w, h = src->h;
    /* hot */
    for (int y = r; y < h - r; y++)
        for (int x = 0; x < w; x++)
            for (int c = 0; c < 3; c++) {
                float s = 0.0f;
                for (int i = -r; i <= r; i++)
                    s += k[i + r] * src->px[((y + i) * w + x) * 3 + c];
                dst->px[(y * w + x) * 3 + c] = s;
            }
    for (int b = 0; b < 2 * r; b++) {
        int y = b < r ? b : h - 2 * r + b; /* the r rows at each edge */
        for (int x = 0; x < w; x++)
            for (int c = 0; c < 3; c++) {
                float s = 0.0f;
                for (int i = -r; i <= r; i++)
                    s += k[i + r] * src->px[(clampi(y + i, 0, h - 1) * w + x) * 3 + c];
                dst->px[(y * w + x) * 3 + c] = s;
            }
    }
}

static void dump_floats(const char *name, const float *v, size_t n)
{
    size_t step = n > 4096 ? n / 4096 : 1;
    double sum = 0.0, asum = 0.0, wsum = 0.0;
    fprintf(stderr, "begin dump: %s\n", name);
    for (size_t i = 0; i < n; i += step)
        fprintf(stderr, "%.9g\n", v[i]);
    fprintf(stderr, "end   dump: %s\n", name);
    for (size_t i = 0; i < n; i++) {
        sum += v[i];
        asum += fabs(v[i]);
        wsum += (double)(i % 7 + 1) * v[i];
    }
    fprintf(stderr, "begin dump: %s_sums\n%.17g %.17g %.17g\nend   dump: %s_sums\n", name, sum, asum, wsum, name);
}

static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 2400;
    if (n < 16) {
        fprintf(stderr, "usage: %s [N >= 16]\n", argv[0]);
        return 2;
    }
    int w = n, h = 3 * n / 4;
    image_t img = image_new(w, h), tmp = image_new(w, h), out = image_new(w, h);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            for (int c = 0; c < 3; c++)
                img.px[(y * w + x) * 3 + c] = (float)(((x * 7 + y * 13 + c * 31) % 256) / 255.0
                                                      + 0.25 * sin(0.01 * x * (c + 1)) * cos(0.013 * y));
    float k[64];
    int r = gaussian_kernel(3.0f, k, 31);

    double t0 = seconds();
    blur_rows(&img, &tmp, k, r);
    blur_cols(&tmp, &out, k, r);
    double t1 = seconds();

    fprintf(stderr, "==BEGIN DUMP_ARRAYS==\n");
    dump_floats("blurred", out.px, (size_t)3 * w * h);
    fprintf(stderr, "==END   DUMP_ARRAYS==\n");
    printf("gauss_blur: %dx%d RGB, radius %d\n%.9f\n", w, h, r, t1 - t0);
    free(img.px);
    free(tmp.px);
    free(out.px);
    return 0;
}
