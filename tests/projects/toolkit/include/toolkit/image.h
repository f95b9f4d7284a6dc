/* image.h - single-channel float images and a few filters. */
#ifndef TOOLKIT_IMAGE_H
#define TOOLKIT_IMAGE_H

#include "toolkit/common.h"

typedef struct {
    int w;
    int h;
    float *px;   /* pixel (x, y) at px[y * w + x] */
} tk_image;

tk_image *tk_image_new(int w, int h);
void tk_image_free(tk_image *img);
/* A deterministic test pattern: rings and a gradient, values in [0, 1]. */
void tk_image_pattern(tk_image *img, int seed);
/* 3x3 box blur; the border is copied unchanged. */
void tk_box_blur(int w, int h, const float *in, float *out);
/* Separable [1 2 1]/4 blur in two passes through tmp. */
void tk_blur_separable(int w, int h, const float *in, float *tmp, float *out);
/* Sum of absolute horizontal and vertical differences (border pixels 0). */
void tk_gradient(int w, int h, const float *in, float *out);
/* Halves both dimensions by averaging 2x2 blocks. */
void tk_downsample(int w, int h, const float *in, float *out);
void tk_image_stats(const tk_image *img, double *mean, float *lo, float *hi);

#endif
