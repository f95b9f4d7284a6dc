#include "grid.h"

/* Jacobi sweeps (quarters of small integers: exact for a few steps) */
void smooth(int steps, int n, double G[N][N], double H[N][N]) {
  for (int t = 0; t < steps; t++) {
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        H[i][j] = 0.25 * (G[i - 1][j] + G[i + 1][j] + G[i][j - 1] + G[i][j + 1]);
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        G[i][j] = H[i][j];
  }
}
