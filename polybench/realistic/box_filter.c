/* box_filter: a separable box (mean) filter on an image plane addressed through row pointers,
 * applied six times (an approximation of a Gaussian).
 *
 * Shapes: a plane struct with an array of row pointers (p->row[y][x]) into one malloc'd block,
 * row pointers taken into locals inside the loop, float ** parameters indexed as src[y][x].
 *
 * usage: box_filter [N]   (plane N x N, default N = 1600)
 * stdout: a summary line, then the seconds of the filter passes; stderr: the result dump.
 */
#define _POSIX_C_SOURCE 199309L /* clock_gettime */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef struct {
    int w, h;
    float *data;
    float **row; /* row[y] = data + y*w */
} plane_t;

static plane_t plane_new(int w, int h)
{
    plane_t p = {w, h, calloc((size_t)w * h, sizeof(float)), malloc(sizeof(float *) * h)};
    if (!p.data || !p.row) {
        perror("malloc");
        exit(1);
    }
    for (int y = 0; y < h; y++)
        p.row[y] = p.data + (size_t)y * w;
    return p;
}

/* horizontal mean over 2r+1 pixels, interior columns */
static void box_h(const plane_t *src, plane_t *dst, int r)
{
    const float inv = 1.0f / (2 * r + 1);
    /* hot */
    for (int y = 0; y < src->h; y++) {
        const float *s = src->row[y];
        float *d = dst->row[y];
        for (int x = r; x < src->w - r; x++) {
            float acc = 0.0f;
            for (int i = -r; i <= r; i++)
                acc += s[x + i];
            d[x] = acc * inv;
        }
    }
}

/* vertical mean over 2r+1 rows, on the row pointers themselves */
static void box_v(float **src, float **dst, int w, int h, int r)
{
    const float inv = 1.0f / (2 * r + 1);
    /* hot */
    for (int y = r; y < h - r; y++)
        for (int x = 0; x < w; x++) {
            float acc = 0.0f;
            for (int i = -r; i <= r; i++)
                acc += src[y + i][x];
            dst[y][x] = acc * inv;
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
    int n = argc > 1 ? atoi(argv[1]) : 1600;
    const int r = 8;
    if (n < 4 * r) {
        fprintf(stderr, "usage: %s [N >= %d]\n", argv[0], 4 * r);
        return 2;
    }
    plane_t a = plane_new(n, n), b = plane_new(n, n);
    for (int y = 0; y < n; y++)
        for (int x = 0; x < n; x++)
            a.row[y][x] = (float)((x / 16 + y / 16) % 2) + 0.001f * (float)((x * 7 + y * 3) % 101);

    double t0 = seconds();
    for (int pass = 0; pass < 6; pass++) {
        box_h(&a, &b, r);
        box_v(b.row, a.row, n, n, r);
    }
    double t1 = seconds();

    fprintf(stderr, "==BEGIN DUMP_ARRAYS==\n");
    dump_floats("plane", a.data, (size_t)n * n);
    fprintf(stderr, "==END   DUMP_ARRAYS==\n");
    printf("box_filter: %dx%d, radius %d, 6 passes\n%.9f\n", n, n, r, t1 - t0);
    free(a.data);
    free(a.row);
    free(b.data);
    free(b.row);
    return 0;
}
