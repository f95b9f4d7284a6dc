/* threshold_mask: segmentation steps of a grey-level image: a binary mask by threshold, a
 * smoothing applied only under the mask, levels clamped into a window, and each row's peak.
 *
 * Shapes: ifs on pixel values in every hot loop (a threshold with else, a masked stencil that
 * keeps the pixel elsewhere, an else-if clamp chain updating in place, a row's argmax with its
 * position in locals), flat images img[y*w + x], unsigned char masks, float data.
 *
 * usage: threshold_mask [N]   (24 frames of N x N pixels, default N = 2400)
 * stdout: a summary line, then the seconds of the steps; stderr: the result dump.
 */
#define _POSIX_C_SOURCE 199309L /* clock_gettime */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static void binarize(const float *img, unsigned char *mask, int w, int h, float t)
{
    /* hot */
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            if (img[y * w + x] > t)
                mask[y * w + x] = 1;
            else
                mask[y * w + x] = 0;
        }
}

static void masked_smooth(const float *in, float *out, const unsigned char *mask, int w, int h)
{
    /* hot */
    for (int y = 1; y < h - 1; y++)
        for (int x = 1; x < w - 1; x++) {
            if (mask[y * w + x])
                out[y * w + x] = 0.2f * (in[y * w + x] + in[(y - 1) * w + x] + in[(y + 1) * w + x]
                                         + in[y * w + x - 1] + in[y * w + x + 1]);
            else
                out[y * w + x] = in[y * w + x];
        }
}

static void clamp_levels(float *v, int n, float lo, float hi)
{
    /* hot */
    for (int i = 0; i < n; i++) {
        if (v[i] < lo)
            v[i] = lo;
        else if (v[i] > hi)
            v[i] = hi;
    }
}

static void row_peaks(const float *img, int w, int h, float *peak, int *peak_at)
{
    /* hot */
    for (int y = 0; y < h; y++) {
        float best = img[y * w];
        int at = 0;
        for (int x = 1; x < w; x++)
            if (img[y * w + x] > best) {
                best = img[y * w + x];
                at = x;
            }
        peak[y] = best;
        peak_at[y] = at;
    }
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
    if (n < 3) {
        fprintf(stderr, "usage: %s [N >= 3]\n", argv[0]);
        return 2;
    }
    enum { frames = 24 };
    size_t npix = (size_t)n * n;
    float *img = malloc(sizeof(float) * npix), *out = malloc(sizeof(float) * npix);
    unsigned char *mask = malloc(npix);
    float *peak = malloc(sizeof(float) * n);
    int *peak_at = malloc(sizeof(int) * n);
    if (!img || !out || !mask || !peak || !peak_at) {
        perror("malloc");
        return 1;
    }
    double busy = 0.0, checks[3 * frames];
    for (int fr = 0; fr < frames; fr++) {
        for (int y = 0; y < n; y++)
            for (int x = 0; x < n; x++)
                img[(size_t)y * n + x] = (float)(((x * 7 + y * 13 + fr * 31) % 251) / 250.0 + ((x ^ y) & 15) / 64.0);
        for (size_t i = 0; i < npix; i++)
            out[i] = img[i];
        double t0 = seconds();
        binarize(img, mask, n, n, 0.6f);
        masked_smooth(img, out, mask, n, n);
        clamp_levels(out, n * n, 0.1f, 0.9f);
        row_peaks(out, n, n, peak, peak_at);
        busy += seconds() - t0;
        double s = 0.0, m = 0.0, p = 0.0;
        for (size_t i = 0; i < npix; i++) {
            s += out[i];
            m += mask[i];
        }
        for (int y = 0; y < n; y++)
            p += peak[y] * (peak_at[y] + 1);
        checks[3 * fr] = s;
        checks[3 * fr + 1] = m;
        checks[3 * fr + 2] = p;
    }

    fprintf(stderr, "==BEGIN DUMP_ARRAYS==\nbegin dump: checks\n");
    for (int k = 0; k < 3 * frames; k++)
        fprintf(stderr, "%.17g\n", checks[k]);
    fprintf(stderr, "end   dump: checks\nbegin dump: out\n");
    for (size_t i = 0; i < npix; i += npix / 2048 + 1)
        fprintf(stderr, "%.9g\n", out[i]);
    fprintf(stderr, "end   dump: out\nbegin dump: peak_at\n");
    for (int y = 0; y < n; y++)
        fprintf(stderr, "%d\n", peak_at[y]);
    fprintf(stderr, "end   dump: peak_at\n==END   DUMP_ARRAYS==\n");
    printf("threshold_mask: %d frames of %dx%d, %.0f pixels masked in the last\n%.9f\n", frames, n, n,
           checks[3 * frames - 2], busy);
    free(img);
    free(out);
    free(mask);
    free(peak);
    free(peak_at);
    return 0;
}
