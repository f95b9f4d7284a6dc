/* One step of a least-squares solver: the residual r = b - A x and the gradient g = A^T r of a
 * dense system, then x += step * g, repeated. Prints a checksum and the seconds (last). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#ifndef EQUATIONS
#define EQUATIONS 4000
#endif
#ifndef UNKNOWNS
#define UNKNOWNS 3000
#endif
#ifndef STEPS
#define STEPS 16
#endif

static void descend(int m, int n, int steps, double a[m][n], double b[m], double x[n], double r[m], double g[n]) {
  for (int t = 0; t < steps; t++) {
    for (int i = 0; i < m; i++) {
      r[i] = b[i];
      for (int j = 0; j < n; j++)
        r[i] -= a[i][j] * x[j];
    }
    for (int j = 0; j < n; j++)
      g[j] = 0.0;
    for (int i = 0; i < m; i++)
      for (int j = 0; j < n; j++)
        g[j] += a[i][j] * r[i];
    for (int j = 0; j < n; j++)
      x[j] += 1e-7 * g[j];
  }
}

int main(void) {
  double (*a)[UNKNOWNS] = malloc(sizeof(double) * EQUATIONS * UNKNOWNS);
  double *b = malloc(sizeof(double) * EQUATIONS), *r = malloc(sizeof(double) * EQUATIONS);
  double *x = malloc(sizeof(double) * UNKNOWNS), *g = malloc(sizeof(double) * UNKNOWNS);
  for (int i = 0; i < EQUATIONS; i++) {
    b[i] = (i % 17) / 17.0;
    for (int j = 0; j < UNKNOWNS; j++)
      a[i][j] = ((i + 3 * j) % 29) / 29.0 - 0.5;
  }
  for (int j = 0; j < UNKNOWNS; j++)
    x[j] = 0.0;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  descend(EQUATIONS, UNKNOWNS, STEPS, a, b, x, r, g);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double sum = 0.0;
  for (int j = 0; j < UNKNOWNS; j++)
    sum += x[j] * (1 + j % 4);
  printf("%a\n%.6f\n", sum, (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec));
  free(a);
  free(b);
  free(r);
  free(x);
  free(g);
  return 0;
}
