/* Repeated smoothing of a grey-level image: a weighted 5-point average, ping-ponged between two
 * buffers, the border kept. Prints a checksum and the seconds the sweeps took (last). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#ifndef ROWS
#define ROWS 2400
#endif
#ifndef COLS
#define COLS 1800
#endif
#ifndef SWEEPS
#define SWEEPS 80
#endif

static void smooth(int rows, int cols, int sweeps, float img[rows][cols], float tmp[rows][cols]) {
  for (int s = 0; s < sweeps; s++) {
    for (int y = 1; y < rows - 1; y++)
      for (int x = 1; x < cols - 1; x++)
        tmp[y][x] = 0.4f * img[y][x] + 0.15f * (img[y - 1][x] + img[y + 1][x] + img[y][x - 1] + img[y][x + 1]);
    for (int y = 1; y < rows - 1; y++)
      for (int x = 1; x < cols - 1; x++)
        img[y][x] = 0.4f * tmp[y][x] + 0.15f * (tmp[y - 1][x] + tmp[y + 1][x] + tmp[y][x - 1] + tmp[y][x + 1]);
  }
}

int main(void) {
  float (*img)[COLS] = malloc(sizeof(float) * ROWS * COLS);
  float (*tmp)[COLS] = malloc(sizeof(float) * ROWS * COLS);
  for (int y = 0; y < ROWS; y++)
    for (int x = 0; x < COLS; x++) {
      img[y][x] = (float)((y * 31 + x * 17) % 255);
      tmp[y][x] = img[y][x];
    }
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  smooth(ROWS, COLS, SWEEPS, img, tmp);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double sum = 0.0;
  for (int y = 0; y < ROWS; y++)
    for (int x = 0; x < COLS; x++)
      sum += img[y][x] * (1 + (x + 2 * y) % 7);
  printf("%a\n%.6f\n", sum, (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec));
  free(img);
  free(tmp);
  return 0;
}
