/* s2s-fuzz: seed=2034349 target=c tile=- fuse=smart kernels=on work=optimize=0,parallel=0,kernel=0,kernel_min=0,parallel_kernel=0,parallel_start=1,parallel_wake=1,parallel_wavefront=1 profitability=on args=9,9 */
/* A fallback at s2s-cc's 60 s limit (fixed): whether the original order's loops are parallel */
/* but for declared temporaries was asked through loop_info, which also bounds each loop's flow */
/* distances for people to read; isl's bounds of this program's distances (strided subscripts */
/* such as D[13*k - j + 10]) ran for minutes. That question no longer asks for the distances. */
/* Found by s2s fuzz --seed 2034349. */

#include <stdio.h>
#include <stdlib.h>

static int g_A[22][19];
static unsigned B[21];
static unsigned g_C[20][22];
static int g_D[154];
static int g_E[32];
static double g_result[1];

void kernel(int n, int m, int A[22][19], unsigned C[20][22], int *D, int E[32])
{
  unsigned s0 = 0u;
  for (int i = n; i >= 0; i--)
  {
    for (int j = i - 1; j < i + 1; j++)
    {
      A[-i + 9][i + 2] = (A[-i + 9][i + 2] + ((A[j + 12][2*i] * E[9]))) & 1023;
    }
    B[i + 10] = ((E[-i + 9] + A[i + 11][3]) - (s0 + B[i + 11]));
  }
  for (int i = 2; i < 8; i++)
  {
    if (i >= m + 2)
    {
      E[2*i + 9] = (E[2*i + 9] + ((D[13*i + 12] + B[i + 11]))) & 1023;
    }
    else
    {
      C[i + 10][10] += C[i + 8][i + 11];
    }
    B[i + 11] -= ((i * i) + (A[i + 11][3] - s0));
  }
  for (int i = 2; i <= n; i++)
  {
    for (int j = 0; j < i; j += 3)
    {
      for (int k = i - 1; k <= i + 2; k++)
      {
        C[k + 8][i + 10] = ((D[13*j - i + 9] - k) - (B[-i + 9] - B[i + 9]));
        D[13*k - j + 10] = (D[13*k - j + 10] + ((6 * 2))) & 1023;
        E[2*k + 9] = ((E[k + 9] * C[j + 9][-k + 11])) & 1023;
      }
    }
    for (int j = i; j <= m; j++)
    {
      for (int k = 1; k < i; k++)
      {
        C[-i + 9][j + 12] *= (E[k + 9] * E[k + 10]);
      }
      D[22] = (D[22] + (((A[i + 10][j + 1] + j) - 3))) & 1023;
    }
  }
  g_result[0] = s0;
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
  int n = argc > 1 ? atoi(argv[1]) : 9;
  int m = argc > 2 ? atoi(argv[2]) : 9;
  for (int x0 = 0; x0 < 22; x0++)
    for (int x1 = 0; x1 < 19; x1++)
      g_A[x0][x1] = (((x0) * 19 + x1) * 7 + 3) % 23 - 11;
  for (int x0 = 0; x0 < 21; x0++)
    B[x0] = (unsigned)(x0) * 2654435761u + 5u;
  for (int x0 = 0; x0 < 20; x0++)
    for (int x1 = 0; x1 < 22; x1++)
      g_C[x0][x1] = (unsigned)((x0) * 22 + x1) * 2654435761u + 7u;
  for (int x0 = 0; x0 < 154; x0++)
    g_D[x0] = ((x0) * 7 + 9) % 23 - 11;
  for (int x0 = 0; x0 < 32; x0++)
    g_E[x0] = ((x0) * 7 + 11) % 23 - 11;
  kernel(n, m, g_A, g_C, g_D, g_E);
  printf("A\n");
  for (int x0 = 0; x0 < 22; x0++)
    for (int x1 = 0; x1 < 19; x1++)
      printf("%d\n", g_A[x0][x1]);
  printf("B\n");
  for (int x0 = 0; x0 < 21; x0++)
    printf("%u\n", B[x0]);
  printf("C\n");
  for (int x0 = 0; x0 < 20; x0++)
    for (int x1 = 0; x1 < 22; x1++)
      printf("%u\n", g_C[x0][x1]);
  printf("D\n");
  for (int x0 = 0; x0 < 154; x0++)
    printf("%d\n", g_D[x0]);
  printf("E\n");
  for (int x0 = 0; x0 < 32; x0++)
    printf("%d\n", g_E[x0]);
  printf("result\n");
  for (int k = 0; k < 1; k++)
    print_fp(g_result[k]);
  return 0;
}
