/* sobel: edge magnitude of a grayscale image, then its normalization and an edge count.
 *
 * Shapes: row views into a flat image (const float *up = in + (y-1)*w), sqrtf, a max reduction
 * with fmaxf, size_t counters and a counting reduction on a comparison.
 *
 * usage: sobel [N]   (8 frames of N x N, default N = 2048)
 * stdout: a summary line, then the seconds of the filter; stderr: the result dump.
 */
#define _POSIX_C_SOURCE 199309L /* clock_gettime */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static void smooth3(const float *in, float *out, int w, int h)
{
    /* hot */
    for (int y = 1; y < h - 1; y++) {
        const float *up = in + (y - 1) * w;
        const float *mid = in + y * w;
        const float *dn = in + (y + 1) * w;
        float *o = out + y * w;
        for (int x = 1; x < w - 1; x++)
            o[x] = (up[x - 1] + 2.0f * up[x] + up[x + 1]
                    + 2.0f * mid[x - 1] + 4.0f * mid[x] + 2.0f * mid[x + 1]
                    + dn[x - 1] + 2.0f * dn[x] + dn[x + 1]) * (1.0f / 16.0f);
    }
}

static void sobel(const float *in, float *mag, int w, int h)
{
    /* hot */
    for (int y = 1; y < h - 1; y++) {
        const float *up = in + (y - 1) * w;
        const float *mid = in + y * w;
        const float *dn = in + (y + 1) * w;
        float *o = mag + y * w;
        for (int x = 1; x < w - 1; x++) {
            float gx = (up[x + 1] + 2.0f * mid[x + 1] + dn[x + 1]) - (up[x - 1] + 2.0f * mid[x - 1] + dn[x - 1]);
            float gy = (dn[x - 1] + 2.0f * dn[x] + dn[x + 1]) - (up[x - 1] + 2.0f * up[x] + up[x + 1]);
            o[x] = sqrtf(gx * gx + gy * gy);
        }
    }
}

static float max_value(const float *v, size_t n)
{
    float m = 0.0f;
    /* hot */
    for (size_t i = 0; i < n; i++)
        m = fmaxf(m, v[i]);
    return m;
}

static size_t normalize_and_count(float *v, size_t n, float scale, float threshold)
{
    size_t edges = 0;
    /* hot */
    for (size_t i = 0; i < n; i++) {
        v[i] *= scale;
        edges += v[i] > threshold;
    }
    return edges;
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
    int n = argc > 1 ? atoi(argv[1]) : 2048;
    if (n < 8) {
        fprintf(stderr, "usage: %s [N >= 8]\n", argv[0]);
        return 2;
    }
    int w = n, h = n;
    size_t np = (size_t)w * h;
    float *img = malloc(np * sizeof *img), *soft = calloc(np, sizeof *soft), *mag = calloc(np, sizeof *mag);
    if (!img || !soft || !mag) {
        perror("malloc");
        return 1;
    }
    double busy = 0.0;
    size_t edges = 0;
    for (int frame = 0; frame < 8; frame++) {
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                float dx = x - (0.3f + 0.05f * frame) * w, dy = y - 0.55f * h;
                img[(size_t)y * w + x] = (dx * dx + dy * dy < 0.09f * w * w ? 0.8f : 0.2f)
                                         + 0.05f * (float)((x * 17 + y * 29 + frame) % 13);
            }
        double t0 = seconds();
        smooth3(img, soft, w, h);
        sobel(soft, mag, w, h);
        float m = max_value(mag, np);
        edges += normalize_and_count(mag, np, m > 0.0f ? 1.0f / m : 1.0f, 0.25f);
        busy += seconds() - t0;
    }

    fprintf(stderr, "==BEGIN DUMP_ARRAYS==\n");
    dump_floats("magnitude", mag, np);
    fprintf(stderr, "==END   DUMP_ARRAYS==\n");
    printf("sobel: 8 frames of %dx%d, %zu edge pixels\n%.9f\n", w, h, edges, busy);
    free(img);
    free(soft);
    free(mag);
    return 0;
}
