/* The scatter matrix of standardized features: each column of a sample matrix centred and
 * scaled by its spread, then S = X^T X. Prints a checksum and the seconds it took (last). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#ifndef SAMPLES
#define SAMPLES 1500
#endif
#ifndef FEATURES
#define FEATURES 900
#endif

static void scatter(int n, int m, double x[n][m], double mean[m], double spread[m], double s[m][m]) {
  for (int j = 0; j < m; j++) {
    mean[j] = 0.0;
    for (int i = 0; i < n; i++)
      mean[j] += x[i][j];
    mean[j] /= n;
  }
  for (int j = 0; j < m; j++) {
    spread[j] = 0.0;
    for (int i = 0; i < n; i++)
      spread[j] += (x[i][j] - mean[j]) * (x[i][j] - mean[j]);
    spread[j] = sqrt(spread[j] / n) + 1e-12;
  }
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      x[i][j] = (x[i][j] - mean[j]) / spread[j];
  for (int a = 0; a < m; a++)
    for (int b = 0; b < m; b++) {
      s[a][b] = 0.0;
      for (int i = 0; i < n; i++)
        s[a][b] += x[i][a] * x[i][b];
    }
}

int main(void) {
  double (*x)[FEATURES] = malloc(sizeof(double) * SAMPLES * FEATURES);
  double (*s)[FEATURES] = malloc(sizeof(double) * FEATURES * FEATURES);
  double *mean = malloc(sizeof(double) * FEATURES), *spread = malloc(sizeof(double) * FEATURES);
  for (int i = 0; i < SAMPLES; i++)
    for (int j = 0; j < FEATURES; j++)
      x[i][j] = ((i * 7 + j * 13) % 101) / 101.0 + 0.01 * (j % 5);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  scatter(SAMPLES, FEATURES, x, mean, spread, s);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double sum = 0.0;
  for (int a = 0; a < FEATURES; a++)
    for (int b = 0; b < FEATURES; b++)
      sum += s[a][b] * (1 + (a ^ b) % 3);
  printf("%a\n%.6f\n", sum, (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec));
  free(x);
  free(s);
  free(mean);
  free(spread);
  return 0;
}
