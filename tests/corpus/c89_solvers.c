/* Numerical routines in the C89 style of older scientific codes: every variable declared at the
 * top of its function and loop counters reused from loop to loop, some read after their loops
 * (a search that stops early, a count of rows done, the last index of a sweep). */
#include <stdio.h>
#include <math.h>

#define N 96
#define M 64

static double a[N][N], lu[N][N], b[N], x[N], xnew[N], r[N];
static double grid[M][M], next_grid[M][M];
static int perm[N];

static void fill(void)
{
  int i, j;
  for (i = 0; i < N; i++) {
    for (j = 0; j < N; j++)
      a[i][j] = (double)((i * 7 + j * 3) % 11) / 11.0;
    a[i][i] += N;                      /* diagonally dominant */
    b[i] = (double)(i % 5) - 2.0;
  }
  for (i = 0; i < M; i++)
    for (j = 0; j < M; j++)
      grid[i][j] = (i == 0 || j == 0) ? 1.0 : 0.0;
}

/* Jacobi iterations until the update is small; returns the number of sweeps. */
static int jacobi(double tol, int max_sweeps)
{
  int i, j, sweep;
  double diff, s;
  for (i = 0; i < N; i++)
    x[i] = 0.0;
  for (sweep = 0; sweep < max_sweeps; sweep++) {
    for (i = 0; i < N; i++) {
      s = b[i];
      for (j = 0; j < N; j++)
        if (j != i)
          s -= a[i][j] * x[j];
      xnew[i] = s / a[i][i];
    }
    diff = 0.0;
    for (i = 0; i < N; i++) {
      diff += fabs(xnew[i] - x[i]);
      x[i] = xnew[i];
    }
    if (diff < tol)
      break;
  }
  return sweep;
}

/* LU decomposition with partial pivoting; the pivot search leaves its index behind. */
static int decompose(void)
{
  int i, j, k, p, swaps;
  double t, big;
  swaps = 0;
  for (i = 0; i < N; i++) {
    perm[i] = i;
    for (j = 0; j < N; j++)
      lu[i][j] = a[i][j];
  }
  for (k = 0; k < N - 1; k++) {
    p = k;
    big = fabs(lu[k][k]);
    for (i = k + 1; i < N; i++)
      if (fabs(lu[i][k]) > big) {
        big = fabs(lu[i][k]);
        p = i;
      }
    if (p != k) {
      for (j = 0; j < N; j++) {
        t = lu[k][j];
        lu[k][j] = lu[p][j];
        lu[p][j] = t;
      }
      i = perm[k];
      perm[k] = perm[p];
      perm[p] = i;
      swaps++;
    }
    for (i = k + 1; i < N; i++) {
      lu[i][k] /= lu[k][k];
      for (j = k + 1; j < N; j++)
        lu[i][j] -= lu[i][k] * lu[k][j];
    }
  }
  return swaps;
}

/* Residual r = b - A x, and the first row whose residual exceeds tol (N when none does). */
static int residual(double tol)
{
  int i, j;
  for (i = 0; i < N; i++) {
    r[i] = b[i];
    for (j = 0; j < N; j++)
      r[i] -= a[i][j] * x[j];
  }
  for (i = 0; i < N; i++)
    if (fabs(r[i]) > tol)
      break;
  return i;
}

/* Heat diffusion on a grid, a fixed number of steps; the last row swept is returned. */
static int diffuse(int steps)
{
  int i, j, t;
  i = 0;
  for (t = 0; t < steps; t++) {
    for (i = 1; i < M - 1; i++)
      for (j = 1; j < M - 1; j++)
        next_grid[i][j] = 0.25 * (grid[i - 1][j] + grid[i + 1][j] + grid[i][j - 1] + grid[i][j + 1]);
    for (i = 1; i < M - 1; i++)
      for (j = 1; j < M - 1; j++)
        grid[i][j] = next_grid[i][j];
  }
  return i;
}

/* Matrix-vector product whose loop counters the caller sees through pointers. */
static void matvec_counted(double *y, int *rows_done, int *cols_done)
{
  int i, j;
  for (i = 0; i < N; i++) {
    y[i] = 0.0;
    for (j = 0; j < N; j++)
      y[i] += a[i][j] * x[j];
  }
  *rows_done = i;
  *cols_done = j;
}

int main(void)
{
  int i, sweeps, swaps, bad, last, rows, cols;
  double s, y[N];
  fill();
  sweeps = jacobi(1e-10, 200);
  swaps = decompose();
  bad = residual(1e-6);
  last = diffuse(20);
  matvec_counted(y, &rows, &cols);
  s = 0.0;
  for (i = 0; i < N; i++)
    s += x[i] * (i + 1) + lu[i][(i * 5) % N] + y[i] * 0.5;
  for (i = 0; i < M; i++)
    s += grid[i][i] + grid[i][M - 1 - i];
  printf("sweeps %d swaps %d bad %d last %d rows %d cols %d\n", sweeps, swaps, bad, last, rows, cols);
  printf("perm %d %d %d\n", perm[0], perm[N / 2], perm[N - 1]);
  printf("checksum %.10f\n", s);
  return 0;
}
