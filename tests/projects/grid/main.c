#include <stdio.h>
#include "grid.h"

static double A[N][N], B[N][N], C[N][N], G[N][N], H[N][N];

int main(void) {
  init(A, B, G);
  matmul(N, C, A, B);
  smooth(6, N, G, H);
  double c = 0, g = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      c += C[i][j];
      g += G[i][j];
    }
  printf("checksum C = %.17g\nchecksum G = %.17g\n", c, g);
  return 0;
}
