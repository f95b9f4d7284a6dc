/* s2s-fuzz: seed=3000311 target=openmp tile=- fuse=smart kernels=on work=optimize=0,parallel=0,kernel=0,kernel_min=0,parallel_kernel=0,parallel_start=0,parallel_wake=0,parallel_wavefront=0 args=18,19 */
/* The loops were interchanged, the inner one (a SIMD loop) bounded by min(m - 1, j): the C
   printer wrote that Map's condition as `i < m - 1 < j ? m - 1 : j` (the comparison taken into
   the conditional's condition), which gcc rejects under `omp simd` and miscompiles in plain C. */

#include <stdio.h>
#include <stdlib.h>

static double A[37][19];
static double B[35][18];
static int g_C[10];
static int D[7][18][7];

void kernel(int n, int m, int C[10])
{
  for (int i = 1; i < m - 1; i++)
  {
    for (int j = i + 1; j < 6; j++)
    {
      C[-i + 4] = (C[-i + 4] + (((D[j + 1][i - 1][6] - D[j][i][-i + 4]) + C[i + 5]))) & 1023;
    }
    A[i + 19][3] = ((B[-i + 17][1] + D[3][i][4]) + (0.1 + A[-i + 17][3]));
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
  int n = argc > 1 ? atoi(argv[1]) : 18;
  int m = argc > 2 ? atoi(argv[2]) : 19;
  for (int x0 = 0; x0 < 37; x0++)
    for (int x1 = 0; x1 < 19; x1++)
      A[x0][x1] = (double)((((x0) * 19 + x1) * 5 + 3) % 19 - 9) * (double)0.25;
  for (int x0 = 0; x0 < 35; x0++)
    for (int x1 = 0; x1 < 18; x1++)
      B[x0][x1] = (double)((((x0) * 18 + x1) * 7 + 5) % 23 - 11) * (double)0.1;
  for (int x0 = 0; x0 < 10; x0++)
    g_C[x0] = ((x0) * 7 + 7) % 23 - 11;
  for (int x0 = 0; x0 < 7; x0++)
    for (int x1 = 0; x1 < 18; x1++)
      for (int x2 = 0; x2 < 7; x2++)
        D[x0][x1][x2] = ((((x0) * 18 + x1) * 7 + x2) * 7 + 9) % 23 - 11;
  kernel(n, m, g_C);
  printf("A\n");
  for (int x0 = 0; x0 < 37; x0++)
    for (int x1 = 0; x1 < 19; x1++)
      print_fp(A[x0][x1]);
  printf("B\n");
  for (int x0 = 0; x0 < 35; x0++)
    for (int x1 = 0; x1 < 18; x1++)
      print_fp(B[x0][x1]);
  printf("C\n");
  for (int x0 = 0; x0 < 10; x0++)
    printf("%d\n", g_C[x0]);
  printf("D\n");
  for (int x0 = 0; x0 < 7; x0++)
    for (int x1 = 0; x1 < 18; x1++)
      for (int x2 = 0; x2 < 7; x2++)
        printf("%d\n", D[x0][x1][x2]);
  return 0;
}
