/* image.c - float image filters on flat row-major buffers. */
#include "toolkit/image.h"

#include <math.h>
#include <string.h>

tk_image *tk_image_new(int w, int h)
{
    tk_image *img = tk_malloc(sizeof *img);

    img->w = w;
    img->h = h;
    img->px = tk_calloc((size_t)w * (size_t)h, sizeof *img->px);
    return img;
}

void tk_image_free(tk_image *img)
{
    if (!img)
        return;
    tk_free(img->px);
    tk_free(img);
}

void tk_image_pattern(tk_image *img, int seed)
{
    int x, y, cx = img->w / 2 + seed % 7, cy = img->h / 3;

    for (y = 0; y < img->h; y++) {
        for (x = 0; x < img->w; x++) {
            int dx = x - cx, dy = y - cy;
            int ring = (dx * dx + dy * dy) / 64 % 4;
            /* Quarter steps: exact in float, so every filter below rounds the same everywhere. */
            float v = (float)ring * 0.25f;

            if ((x / 16 + y / 16) % 2)
                v = 1.0f - v;
            img->px[y * img->w + x] = v;
        }
    }
}

void tk_box_blur(int w, int h, const float *in, float *out)
{
    int x, y;

    memcpy(out, in, (size_t)w * sizeof *out);
    memcpy(out + (size_t)(h - 1) * (size_t)w, in + (size_t)(h - 1) * (size_t)w, (size_t)w * sizeof *out);
    for (y = 1; y < h - 1; y++) {
        out[y * w] = in[y * w];
        out[y * w + w - 1] = in[y * w + w - 1];
    }
    for (y = 1; y < h - 1; y++)
        for (x = 1; x < w - 1; x++)
            out[y * w + x] = (in[(y - 1) * w + x - 1] + in[(y - 1) * w + x] + in[(y - 1) * w + x + 1] +
                              in[y * w + x - 1] + in[y * w + x] + in[y * w + x + 1] +
                              in[(y + 1) * w + x - 1] + in[(y + 1) * w + x] + in[(y + 1) * w + x + 1]) *
                             (1.0f / 9.0f);
}

void tk_blur_separable(int w, int h, const float *in, float *tmp, float *out)
{
    int x, y;

    /* Horizontal pass; the first and last columns are copied. */
    for (y = 0; y < h; y++) {
        tmp[y * w] = in[y * w];
        for (x = 1; x < w - 1; x++)
            tmp[y * w + x] = 0.25f * in[y * w + x - 1] + 0.5f * in[y * w + x] + 0.25f * in[y * w + x + 1];
        tmp[y * w + w - 1] = in[y * w + w - 1];
    }
    /* Vertical pass. */
    for (x = 0; x < w; x++) {
        out[x] = tmp[x];
        out[(h - 1) * w + x] = tmp[(h - 1) * w + x];
    }
    for (y = 1; y < h - 1; y++)
        for (x = 0; x < w; x++)
            out[y * w + x] = 0.25f * tmp[(y - 1) * w + x] + 0.5f * tmp[y * w + x] + 0.25f * tmp[(y + 1) * w + x];
}

void tk_gradient(int w, int h, const float *in, float *out)
{
    int x, y;

    memset(out, 0, (size_t)w * (size_t)h * sizeof *out);
    for (y = 1; y < h - 1; y++)
        for (x = 1; x < w - 1; x++)
            out[y * w + x] = fabsf(in[y * w + x + 1] - in[y * w + x - 1]) +
                             fabsf(in[(y + 1) * w + x] - in[(y - 1) * w + x]);
}

void tk_downsample(int w, int h, const float *in, float *out)
{
    int x, y, hw = w / 2, hh = h / 2;

    for (y = 0; y < hh; y++)
        for (x = 0; x < hw; x++)
            out[y * hw + x] = 0.25f * (in[2 * y * w + 2 * x] + in[2 * y * w + 2 * x + 1] +
                                       in[(2 * y + 1) * w + 2 * x] + in[(2 * y + 1) * w + 2 * x + 1]);
}

void tk_image_stats(const tk_image *img, double *mean, float *lo, float *hi)
{
    const float *p = img->px, *end = img->px + (size_t)img->w * (size_t)img->h;
    double sum = 0.0;
    float mn = *p, mx = *p;

    while (p < end) {
        float v = *p++;

        sum += v;
        if (v < mn)
            mn = v;
        if (v > mx)
            mx = v;
    }
    *mean = sum / ((double)img->w * (double)img->h);
    *lo = mn;
    *hi = mx;
}

