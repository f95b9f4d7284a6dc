/* Image and simulation code in the style of real programs: a struct-held image reached through a
   row helper, a 1-D heat equation that swaps its two buffers every step, prefix sums over rows
   held as pointers (once distinct, once shared by pairs), a product whose result is a view into
   its own input buffer, and a histogram with indirect increments. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

typedef struct { int w, h, stride; float *px; } image_t;

static image_t make_image(int w, int h) {
  image_t im = { w, h, w + 4, calloc((size_t)(w + 4) * (h + 4), sizeof(float)) };
  return im;
}
static inline float *row(const image_t *im, int y) { return im->px + (size_t)(y + 2) * im->stride + 2; }

/* separable 5-tap blur, horizontal then vertical, through a scratch image */
static void blur(image_t *dst, const image_t *src, image_t *tmp) {
  static const float k[5] = { 1 / 16.f, 4 / 16.f, 6 / 16.f, 4 / 16.f, 1 / 16.f };
  for (int y = 0; y < src->h; y++) {
    const float *s = row(src, y);
    float *t = row(tmp, y);
    for (int x = 0; x < src->w; x++)
      t[x] = k[0] * s[x - 2] + k[1] * s[x - 1] + k[2] * s[x] + k[3] * s[x + 1] + k[4] * s[x + 2];
  }
  for (int y = 0; y < src->h; y++) {
    float *d = row(dst, y);
    for (int x = 0; x < src->w; x++) {
      float acc = 0.f;
      for (int j = -2; j <= 2; j++)
        acc += k[j + 2] * row(tmp, y + j)[x];
      d[x] = acc;
    }
  }
}

/* explicit heat equation on a 1-D rod with pointer swapping, as real codes do */
static double rod(int n, int steps, double alpha) {
  double *u = malloc((n + 2) * sizeof *u), *v = malloc((n + 2) * sizeof *v);
  for (int i = 0; i < n + 2; i++) u[i] = v[i] = (i % 17) * 0.25;
  for (int t = 0; t < steps; t++) {
    for (int i = 1; i <= n; i++)
      v[i] = u[i] + alpha * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
    double *s = u; u = v; v = s;
  }
  double sum = 0;
  for (int i = 0; i < n + 2; i++) sum += u[i] * (i % 5 + 1);
  free(u); free(v);
  return sum;
}

/* in-place prefix sums over rows of a matrix held as an array of row pointers */
static void prefix_rows(int n, int m, double **rows) {
  for (int i = 0; i < n; i++)
    for (int j = 1; j < m; j++)
      rows[i][j] += rows[i][j - 1];
}

/* a matrix-vector product where y aliases part of x (a view into one buffer) */
static void matvec_view(int n, const double *A, double *buf) {
  double *x = buf, *y = buf + n / 2;
  for (int i = 0; i < n / 2; i++) {
    double s = 0;
    for (int j = 0; j < n / 2; j++) s += A[i * n + j] * x[j];
    y[i] = s * 0.5;
  }
}

/* histogram with indirect increments, then a normalized CDF */
static void equalize(int n, const unsigned char *img, float *cdf) {
  int hist[256];
  memset(hist, 0, sizeof hist);
  for (int i = 0; i < n; i++) hist[img[i]]++;
  int run = 0;
  for (int b = 0; b < 256; b++) { run += hist[b]; cdf[b] = (float)run / n; }
}

int main(int argc, char **argv) {
  int w = argc > 1 ? atoi(argv[1]) : 300, h = argc > 2 ? atoi(argv[2]) : 200;
  image_t a = make_image(w, h), b = make_image(w, h), t = make_image(w, h);
  for (int y = 0; y < h; y++) for (int x = 0; x < w; x++) row(&a, y)[x] = (float)((x * 7 + y * 13) % 29);
  for (int it = 0; it < 3; it++) { blur(&b, &a, &t); image_t s = a; a = b; b = s; }
  double cs = 0;
  for (int y = 0; y < h; y++) for (int x = 0; x < w; x++) cs += row(&a, y)[x] * ((x + y) % 7 + 1);
  printf("blur %.9g\n", cs);
  printf("rod %.17g\n", rod(5000, 300, 0.2));
  int n = 120, m = 150;
  double *store = malloc(sizeof(double) * n * m), **rows = malloc(sizeof(double *) * n);
  for (int pass = 0; pass < 2; pass++) {
    /* rows in another order, then rows shared by pairs (each pair's prefix sum taken twice) */
    for (int i = 0; i < n; i++) rows[i] = store + (size_t)(pass == 0 ? (i * 37) % n : i / 2) * m;
    for (int i = 0; i < n * m; i++) store[i] = (i % 11) * 0.5;
    prefix_rows(n, m, rows);
    double ps = 0; for (int i = 0; i < n * m; i++) ps += store[i] * (i % 3 + 1);
    printf("prefix %d %.17g\n", pass, ps);
  }
  int N = 400; double *A = malloc(sizeof(double) * N * N), *buf = malloc(sizeof(double) * N);
  for (int i = 0; i < N * N; i++) A[i] = (i % 13) * 0.125;
  for (int i = 0; i < N; i++) buf[i] = (i % 7) - 3;
  matvec_view(N, A, buf);
  double ms = 0; for (int i = 0; i < N; i++) ms += buf[i] * (i + 1);
  printf("matvec %.17g\n", ms);
  unsigned char *img = malloc(w * h); for (int i = 0; i < w * h; i++) img[i] = (unsigned char)((i * 31) ^ (i >> 3));
  float cdf[256]; equalize(w * h, img, cdf);
  double es = 0; for (int i = 0; i < 256; i++) es += cdf[i] * (i + 1);
  printf("cdf %.9g\n", es);
  return 0;
}
