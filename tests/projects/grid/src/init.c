#include "grid.h"

/* Small integers everywhere, so that every result below is exact in any summation order. */
void init(double A[N][N], double B[N][N], double G[N][N]) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      A[i][j] = (i * j + 1) % 7;
      B[i][j] = (i + 2 * j) % 5;
      G[i][j] = (i * (j + 3)) % 17;
    }
}
