/* s2s-fuzz: seed=3022949 target=openmp tile=- fuse=smart kernels=off work=optimize=0,parallel=0,kernel=0,kernel_min=0,parallel_kernel=0,parallel_start=1,parallel_wake=1,parallel_wavefront=1 profitability=on args=3,3 */
/* isl_union_map_coalesce failed ("cannot relax redundant constraint") on the dependences of the */
/* kernel's SCoP, which then stayed as written (a fallback): dependences are now taken as they are */
/* where isl cannot coalesce them. */
#include <stdio.h>
#include <stdlib.h>

static int g_A[71];
static unsigned g_B[18][29];
static int g_C[17][15];
static unsigned D[16][30];

void kernel(int n, int m, int *A, unsigned B[18][29], int C[17][15])
{
  for (int i = 1; i < m; i++)
  {
    for (int j = 0; j < 7; j++)
    {
      A[4*i + j + 1] = ((D[1][i + 15] * 5)) & 1023;
      for (int k = 1; k < m; k += 2)
      {
        B[j][2*i] = (D[i + 2][-j + 14] + D[j + 2][k + 15]);
      }
      D[j][2*i + 14] *= j;
    }
    for (int j = 0; j < m - 1; j++)
    {
      for (int k = 2; k < m - 1; k += 2)
      {
        D[i][j + 14] = ((5u * A[4*k + i]) + (C[i][k + 2] * A[4*j + k]));
        if (i != j - 1)
        {
          B[2*j + 3][1] *= ((C[j + 2][k + 2] * 5u) - (7u + B[2][2*k + 2]));
        }
      }
    }
  }
  for (int i = 2; i <= 14; i++)
  {
    for (int j = 0; j < n + 1; j++)
    {
      for (int k = 0; k <= m - 1; k += 3)
      {
        C[k][i] = (((D[2*j + 1][i + 15] + B[i][2*i]) + (D[k + 1][j + 14] * j))) & 1023;
      }
    }
    for (int j = i; j < i + 1; j++)
    {
      D[i + 1][-j + 14] = A[4*i + j];
      for (int k = 0; k <= 7; k++)
      {
        A[4*j + i - 4] = (B[i + 3][k]) & 1023;
        A[4*i + j - 2] = ((A[4*k + i + 6] + (C[j + 2][i] * 1))) & 1023;
        D[j + 1][k + 13] = (2u * k);
      }
      C[i][i - 1] = ((A[4*i] + (D[j + 1][i + 15] + i))) & 1023;
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
  int n = argc > 1 ? atoi(argv[1]) : 3;
  int m = argc > 2 ? atoi(argv[2]) : 3;
  for (int x0 = 0; x0 < 71; x0++)
    g_A[x0] = ((x0) * 7 + 3) % 23 - 11;
  for (int x0 = 0; x0 < 18; x0++)
    for (int x1 = 0; x1 < 29; x1++)
      g_B[x0][x1] = (unsigned)((x0) * 29 + x1) * 2654435761u + 5u;
  for (int x0 = 0; x0 < 17; x0++)
    for (int x1 = 0; x1 < 15; x1++)
      g_C[x0][x1] = (((x0) * 15 + x1) * 7 + 7) % 23 - 11;
  for (int x0 = 0; x0 < 16; x0++)
    for (int x1 = 0; x1 < 30; x1++)
      D[x0][x1] = (unsigned)((x0) * 30 + x1) * 2654435761u + 9u;
  kernel(n, m, g_A, g_B, g_C);
  printf("A\n");
  for (int x0 = 0; x0 < 71; x0++)
    printf("%d\n", g_A[x0]);
  printf("B\n");
  for (int x0 = 0; x0 < 18; x0++)
    for (int x1 = 0; x1 < 29; x1++)
      printf("%u\n", g_B[x0][x1]);
  printf("C\n");
  for (int x0 = 0; x0 < 17; x0++)
    for (int x1 = 0; x1 < 15; x1++)
      printf("%d\n", g_C[x0][x1]);
  printf("D\n");
  for (int x0 = 0; x0 < 16; x0++)
    for (int x1 = 0; x1 < 30; x1++)
      printf("%u\n", D[x0][x1]);
  return 0;
}
