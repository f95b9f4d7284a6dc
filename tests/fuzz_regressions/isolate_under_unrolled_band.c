/* s2s-fuzz: seed=2012808 target=c tile=- fuse=max kernels=on work=optimize=0,parallel=0,kernel=0,kernel_min=0,parallel_kernel=0 profitability=on args=6,7,12 */
/* Whole groups of unrolled copies are isolated on the band above them; here that band was an */
/* unrolled one itself (fusion max), whose options ({ unroll[x] }) were taken for an isolate set: */
/* isl failed ("spaces don't match") and s2s-cc compiled the file unchanged. Such a band now */
/* keeps its options and its copies run with guards. */

#include <stdio.h>
#include <stdlib.h>

static float A[6][5];
static float B[13][12];
static float g_C[29];
static float D[21][2][2];
static float E[23][29];
static double g_result[2];

void kernel(int n, int m, int p, float *C)
{
  float s0 = 0.0f;
  float s1 = 0.0f;
  for (int i = 0; i < 12; i += 2)
  {
    float s2 = 0.0f;
    for (int j = 1; j < 4; j++)
    {
      if (j != i - 1)
      {
        A[j][3] = ((float)j * (C[2*j] + (float)j));
      }
      else
      {
        B[i + 2][j] += ((A[i + 1][j] + A[j + 2][i]) + B[-i + 4][j]);
      }
      for (int k = 0; k < i; k++)
      {
        for (int l = 1; l < p + 1; l++)
        {
          E[l + 10][l] = (C[l] - (1.0f * E[10][2*l - 1]));
          s2 += (B[j + 3][i] + (B[i + 2][j] * B[j + 3][1]));
        }
        for (int l = j; l >= 1; l--)
        {
          C[l + 1] = ((0.25f + B[2][k + 2]) * (E[-i + 10][l - 1] + 0.25f));
          E[i + 12][j] += 1.5f;
        }
        C[2*k] += ((s1 - E[j + 10][k]) + 1.0f);
      }
    }
    D[2*i][1][1] += s2;
  }
  for (int i = 0; i < n; i++)
  {
    C[i] = 0.0f;
    for (int j = 0; j < 29; j++)
    {
      C[i] += (E[i + 10][j] * C[j]);
    }
    for (int j = 0; j < 29; j++)
    {
      C[j] += (E[i + 10][j] * C[i]);
    }
  }
  g_result[0] = s0;
  g_result[1] = s1;
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
  int n = argc > 1 ? atoi(argv[1]) : 6;
  int m = argc > 2 ? atoi(argv[2]) : 7;
  int p = argc > 3 ? atoi(argv[3]) : 12;
  for (int x0 = 0; x0 < 6; x0++)
    for (int x1 = 0; x1 < 5; x1++)
      A[x0][x1] = (float)((((x0) * 5 + x1) * 5 + 3) % 19 - 9) * (float)0.25;
  for (int x0 = 0; x0 < 13; x0++)
    for (int x1 = 0; x1 < 12; x1++)
      B[x0][x1] = (float)((((x0) * 12 + x1) * 7 + 5) % 23 - 11) * (float)0.1;
  for (int x0 = 0; x0 < 29; x0++)
    g_C[x0] = (float)(((x0) * 5 + 7) % 19 - 9) * (float)0.25;
  for (int x0 = 0; x0 < 21; x0++)
    for (int x1 = 0; x1 < 2; x1++)
      for (int x2 = 0; x2 < 2; x2++)
        D[x0][x1][x2] = (float)(((((x0) * 2 + x1) * 2 + x2) * 7 + 9) % 23 - 11) * (float)0.1;
  for (int x0 = 0; x0 < 23; x0++)
    for (int x1 = 0; x1 < 29; x1++)
      E[x0][x1] = (float)((((x0) * 29 + x1) * 5 + 11) % 19 - 9) * (float)0.25;
  kernel(n, m, p, g_C);
  printf("A\n");
  for (int x0 = 0; x0 < 6; x0++)
    for (int x1 = 0; x1 < 5; x1++)
      print_fp(A[x0][x1]);
  printf("B\n");
  for (int x0 = 0; x0 < 13; x0++)
    for (int x1 = 0; x1 < 12; x1++)
      print_fp(B[x0][x1]);
  printf("C\n");
  for (int x0 = 0; x0 < 29; x0++)
    print_fp(g_C[x0]);
  printf("D\n");
  for (int x0 = 0; x0 < 21; x0++)
    for (int x1 = 0; x1 < 2; x1++)
      for (int x2 = 0; x2 < 2; x2++)
        print_fp(D[x0][x1][x2]);
  printf("E\n");
  for (int x0 = 0; x0 < 23; x0++)
    for (int x1 = 0; x1 < 29; x1++)
      print_fp(E[x0][x1]);
  printf("result\n");
  for (int k = 0; k < 2; k++)
    print_fp(g_result[k]);
  return 0;
}

