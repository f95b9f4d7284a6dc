/* image_filters.c: small-integer image processing: unsigned char / short / int promotions in
 * loop bodies, clamping/saturation with ternaries, 3x3 convolution with a const kernel and
 * border handling via index clamping, box blur with a running (sliding window) sum, integer
 * division by constants, and a separable filter through an int16_t intermediate. */
#include <stdio.h>
#include <stdint.h>

#define W 37
#define H 23
#define CLAMP(v, lo, hi) ((v) < (lo) ? (lo) : (v) > (hi) ? (hi) : (v))

static uint8_t img[H][W], out[H][W];
static int16_t tmp[H][W];
static const int kernel[3][3] = {{1, 2, 1}, {2, 4, 2}, {1, 2, 1}};
static const signed char sobel_x[3][3] = {{-1, 0, 1}, {-2, 0, 2}, {-1, 0, 1}};

static unsigned checksum(uint8_t a[H][W])
{
    unsigned h = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            h = h * 131u + a[y][x];
    return h;
}

int main(void)
{
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            img[y][x] = (uint8_t)((x * 7 + y * 13 + (x * y) % 17) * 3);
    printf("input=%u\n", checksum(img));

    /* gaussian 3x3 with clamped borders */
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            int s = 0;
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    int yy = CLAMP(y + dy, 0, H - 1), xx = CLAMP(x + dx, 0, W - 1);
                    s += kernel[dy + 1][dx + 1] * img[yy][xx];
                }
            out[y][x] = (uint8_t)((s + 8) / 16);
        }
    printf("gauss=%u\n", checksum(out));

    /* sobel magnitude with saturation */
    for (int y = 1; y < H - 1; y++)
        for (int x = 1; x < W - 1; x++) {
            int gx = 0, gy = 0;
            for (int k = 0; k < 3; k++)
                for (int l = 0; l < 3; l++) {
                    gx += sobel_x[k][l] * img[y + k - 1][x + l - 1];
                    gy += sobel_x[l][k] * img[y + k - 1][x + l - 1];
                }
            int mag = (gx < 0 ? -gx : gx) + (gy < 0 ? -gy : gy);
            out[y][x] = (uint8_t)(mag > 255 ? 255 : mag);
        }
    printf("sobel=%u\n", checksum(out));

    /* box blur rows with a sliding window sum */
    for (int y = 0; y < H; y++) {
        int sum = 0;
        for (int x = 0; x < 5; x++)
            sum += img[y][x];
        for (int x = 2; x < W - 2; x++) {
            out[y][x] = (uint8_t)(sum / 5);
            if (x + 3 < W)
                sum += img[y][x + 3] - img[y][x - 2];
        }
    }
    printf("box=%u\n", checksum(out));

    /* separable: horizontal difference into int16, vertical sum back to uint8 */
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            tmp[y][x] = (int16_t)(x > 0 ? img[y][x] - img[y][x - 1] : 0);
    for (int y = 1; y < H - 1; y++)
        for (int x = 0; x < W; x++) {
            int v = tmp[y - 1][x] + 2 * tmp[y][x] + tmp[y + 1][x] + 128;
            out[y][x] = (uint8_t)CLAMP(v, 0, 255);
        }
    printf("sep=%u\n", checksum(out));

    /* histogram equalisation-style lookup table */
    unsigned hist[256] = {0}, cdf[256];
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            hist[img[y][x]]++;
    unsigned run = 0;
    for (int v = 0; v < 256; v++)
        cdf[v] = run += hist[v];
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            out[y][x] = (uint8_t)(cdf[img[y][x]] * 255u / (W * H));
    printf("eq=%u\n", checksum(out));
    return 0;
}
