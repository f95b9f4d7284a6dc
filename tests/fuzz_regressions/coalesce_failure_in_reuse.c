/* s2s-fuzz: seed=2004960 target=c tile=- fuse=smart kernels=off work=optimize=0,parallel=0,kernel=0,kernel_min=0,parallel_kernel=0 profitability=off args=20,3 */
/* isl_map_coalesce failed ("cannot relax redundant constraint") on a reuse dependence in the */
/* scheduler's cost model, and s2s-cc compiled the file unchanged: the relation's pieces are now */
/* taken as they are when isl cannot coalesce them. */

#include <stdio.h>
#include <stdlib.h>

static double g_A[14][22];
static float g_B[10][13];
static int C[39][29];
static int D[23];

void kernel(int n, int m, double A[14][22], float B[10][13])
{
  for (int i = 0; i <= m + 1; i++)
  {
    A[i + 5][4] += (((double)i - A[i + 3][2]) * 2.0);
  }
  for (int i = 1; i < 4; i++)
  {
    for (int j = 2; j <= n; j += 2)
    {
      if ((i - 1) % 2 == 0)
      {
        C[-j + 20][i + 9] = (C[-j + 20][i + 9] + (((D[j + 2] * D[j + 2]) + D[i + 2]))) & 1023;
      }
      else
      {
        A[i + 4][j + 1] = (C[j + 18][j + 8] + (A[i + 4][j + 1] - D[2*i + 3]));
      }
      D[i + 4] = (((D[i + 2] + 3) + (7 + D[i + 4]))) & 1023;
      B[2][i + 3] = (float)i;
    }
  }
  for (int i = 0; i < m + 1; i++)
  {
    D[-i + 3] = (D[i + 2]) & 1023;
    for (int j = i + 2; j >= i - 2; j--)
    {
      for (int k = n; k >= i + 1; k -= 3)
      {
        A[-j + 5][1] += D[4];
      }
    }
    for (int j = 0; j < 10; j++)
    {
      if (i != j + 2)
      {
        C[i + 17][-j + 9] = (((D[i + 4] * D[j + 1]) - (D[i + 4] + 7))) & 1023;
      }
      else
      {
        B[1][j + 3] = ((B[j + 2][-i + 3] * C[2*i + 17][j + 9]) - ((float)j + B[j + 2][6]));
      }
      for (int k = 0; k < m - 1; k++)
      {
        C[j + 20][i + 9] = (C[j + 20][i + 9] + ((i * 7))) & 1023;
        A[j + 4][i] = (((double)j * D[j + 2]) * (B[i + 2][j + 3] - 0.1));
      }
      D[i + 2] = ((i + (D[2*j + 3] + C[i + 17][j + 9]))) & 1023;
    }
  }
  for (int i = 0; i < 8; i++)
  {
    for (int j = 0; j <= 9; j++)
    {
      A[6][2] = (((double)j + B[i + 1][4]) * (B[j][j + 3] + A[j + 4][i + 2]));
      C[j + 18][2*i + 9] = (D[j + 2]) & 1023;
      D[j + 2] = (D[j + 2] + ((D[2] * 3))) & 1023;
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
  int n = argc > 1 ? atoi(argv[1]) : 20;
  int m = argc > 2 ? atoi(argv[2]) : 3;
  for (int x0 = 0; x0 < 14; x0++)
    for (int x1 = 0; x1 < 22; x1++)
      g_A[x0][x1] = (double)((((x0) * 22 + x1) * 5 + 3) % 19 - 9) * (double)0.25;
  for (int x0 = 0; x0 < 10; x0++)
    for (int x1 = 0; x1 < 13; x1++)
      g_B[x0][x1] = (float)((((x0) * 13 + x1) * 7 + 5) % 23 - 11) * (float)0.1;
  for (int x0 = 0; x0 < 39; x0++)
    for (int x1 = 0; x1 < 29; x1++)
      C[x0][x1] = (((x0) * 29 + x1) * 7 + 7) % 23 - 11;
  for (int x0 = 0; x0 < 23; x0++)
    D[x0] = ((x0) * 7 + 9) % 23 - 11;
  kernel(n, m, g_A, g_B);
  printf("A\n");
  for (int x0 = 0; x0 < 14; x0++)
    for (int x1 = 0; x1 < 22; x1++)
      print_fp(g_A[x0][x1]);
  printf("B\n");
  for (int x0 = 0; x0 < 10; x0++)
    for (int x1 = 0; x1 < 13; x1++)
      print_fp(g_B[x0][x1]);
  printf("C\n");
  for (int x0 = 0; x0 < 39; x0++)
    for (int x1 = 0; x1 < 29; x1++)
      printf("%d\n", C[x0][x1]);
  printf("D\n");
  for (int x0 = 0; x0 < 23; x0++)
    printf("%d\n", D[x0]);
  return 0;
}
