/* s2s-fuzz: seed=3035471 target=openmp tile=- fuse=no kernels=on work=optimize=0,parallel=0,kernel=0,kernel_min=0,parallel_kernel=0,parallel_start=1,parallel_wake=1,parallel_wavefront=1 profitability=off args=7 */
/* s2s-cc ran for minutes here (a fallback at the 60 s time-out): isl's code generation for tiles */
/* in wavefronts beside a lagged jam, under the larger budget meant for the lagged jam alone. */

#include <stdio.h>
#include <stdlib.h>

static float g_A[7][8][4];
static float B[8];
static float C[9][8];
static float D[7][10][2];
static float E[6][8];
static float g_buf[436];

void kernel(int n, float A[7][8][4], float *buf)
{
  float *v0 = buf + 300;
  for (int i = 1; i < n + 1; i += 3)
  {
    C[i + 1][1] = ((0.5f + (float)i) + 0.75f);
    for (int j = 1; j < n; j++)
    {
      E[j - 1][i] = B[i];
    }
    for (int j = 2; j < i + 1; j += 2)
    {
      A[j][i][3] += ((v0[19*j + 21] + B[j]) * (0.1f * 1.0f));
      C[i - 1][i] += (C[j + 2][i] - (D[j][i + 2][1] + D[j][j][0]));
    }
  }
  for (int i = 1; i < n - 1; i++)
  {
    for (int j = 1; j < 6; j++)
    {
      C[i][j] = (3.3f * ((((C[i + 1][j - 1] + C[i - 1][j - 1]) + C[i][j + 1]) + C[i][j - 1]) + C[i - 1][j]));
    }
  }
}

void print_fp(double x)
{
  if (x != x)
    printf("nan\n");
  else
    printf("%a\n", x);
}

int main(int argc, char **argv)
{
  int n = argc > 1 ? atoi(argv[1]) : 7;
  for (int x0 = 0; x0 < 7; x0++)
    for (int x1 = 0; x1 < 8; x1++)
      for (int x2 = 0; x2 < 4; x2++)
        g_A[x0][x1][x2] = (float)(((((x0) * 8 + x1) * 4 + x2) * 5 + 3) % 19 - 9) * (float)0.25;
  for (int x0 = 0; x0 < 8; x0++)
    B[x0] = (float)(((x0) * 7 + 5) % 23 - 11) * (float)0.1;
  for (int x0 = 0; x0 < 9; x0++)
    for (int x1 = 0; x1 < 8; x1++)
      C[x0][x1] = (float)((((x0) * 8 + x1) * 5 + 7) % 19 - 9) * (float)0.25;
  for (int x0 = 0; x0 < 7; x0++)
    for (int x1 = 0; x1 < 10; x1++)
      for (int x2 = 0; x2 < 2; x2++)
        D[x0][x1][x2] = (float)(((((x0) * 10 + x1) * 2 + x2) * 7 + 9) % 23 - 11) * (float)0.1;
  for (int x0 = 0; x0 < 6; x0++)
    for (int x1 = 0; x1 < 8; x1++)
      E[x0][x1] = (float)((((x0) * 8 + x1) * 5 + 11) % 19 - 9) * (float)0.25;
  for (int x0 = 0; x0 < 436; x0++)
    g_buf[x0] = (float)(((x0) * 7 + 13) % 23 - 11) * (float)0.1;
  kernel(n, g_A, g_buf);
  printf("A\n");
  for (int x0 = 0; x0 < 7; x0++)
    for (int x1 = 0; x1 < 8; x1++)
      for (int x2 = 0; x2 < 4; x2++)
        print_fp(g_A[x0][x1][x2]);
  printf("B\n");
  for (int x0 = 0; x0 < 8; x0++)
    print_fp(B[x0]);
  printf("C\n");
  for (int x0 = 0; x0 < 9; x0++)
    for (int x1 = 0; x1 < 8; x1++)
      print_fp(C[x0][x1]);
  printf("D\n");
  for (int x0 = 0; x0 < 7; x0++)
    for (int x1 = 0; x1 < 10; x1++)
      for (int x2 = 0; x2 < 2; x2++)
        print_fp(D[x0][x1][x2]);
  printf("E\n");
  for (int x0 = 0; x0 < 6; x0++)
    for (int x1 = 0; x1 < 8; x1++)
      print_fp(E[x0][x1]);
  printf("buf\n");
  for (int x0 = 0; x0 < 436; x0++)
    print_fp(g_buf[x0]);
  return 0;
}
