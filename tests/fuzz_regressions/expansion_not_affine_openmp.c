/* s2s-fuzz: seed=3003631 target=openmp tile=8,5,2 fuse=smart kernels=on work=optimize=0,parallel=0,kernel=0,kernel_min=0,parallel_kernel=0,parallel_start=0,parallel_wake=0,parallel_wavefront=0 profitability=off args=13 */
/* the expansion of scalar s0 built a SCoP whose expanded array it could not delinearize, and the */
/* NotAffine escaped: s2s-cc compiled the file unchanged. expand() now gives up on such a SCoP. */

#include <stdio.h>
#include <stdlib.h>

static double g_A[27];
static float g_B[29];
static double g_C[36][19];
static float g_D[452];
static double g_result[1];

void kernel(int n, double A[27], float B[29], double C[36][19], float *D)
{
  double s0 = 0.0;
  for (int i = 2; i < n - 2; i++)
  {
    for (int j = 2; j < 14; j++)
    {
      if (i > 7)
      {
        D[i*n + n + j + 144] = (float)j;
      }
    }
  }
  for (int i = 2; i <= n - 2; i++)
  {
    for (int j = i; j < 16; j += 3)
    {
      s0 = ((A[i + 12] - C[-i + 14][j + 3]) * (double)j);
      B[j + 13] = ((C[i + 13][j] - (float)i) * ((float)i + (float)i));
      if (j < 3)
      {
        C[j + 15][i + 1] = D[n + j + 142];
      }
    }
    for (int j = 0; j < i; j++)
    {
      C[j + 14][i + 3] += ((D[3*n + 145] - (double)j) - A[13]);
      B[i + 11] *= ((B[i + 11] + A[j + 12]) * ((float)i + C[2*i + 13][j + 1]));
      B[11] *= ((A[i + 12] + B[i + 10]) - (B[i + 11] - D[j*n + j + 143]));
    }
  }
  for (int i = 1; i < n; i += 2)
  {
    A[i + 11] += ((s0 + A[i + 13]) + (B[-i + 11] + D[2*i*n + i + 145]));
    for (int j = i - 1; j < i + 1; j++)
    {
      for (int k = 0; k < i + 1; k += 3)
      {
        A[i + 12] = ((D[k*n + 2*n + i + 143] + C[i + 15][j]) + (B[i + 11] + s0));
        B[i + 11] += ((A[-k + 14] * (float)j) * (B[j + 11] - D[2*i*n + n + k + 143]));
        C[j + 14][j + 3] -= ((C[i + 16][k + 2] + 0.75) * (B[-j + 11] + A[k + 14]));
      }
      C[2*i + 13][j + 1] += B[14];
    }
    for (int j = 0; j <= n + 1; j++)
    {
      for (int k = i + 1; k < n; k += 2)
      {
        A[i + 11] += (A[-j + 14] * (D[n + 2*j + 145] + A[j + 12]));
        A[k + 13] += ((B[k + 13] + B[i + 11]) + (0.5 + 3.3));
      }
      D[-i*n + j + 143] += ((C[-j + 14][j + 1] - 3.3f) * 0.75f);
    }
    A[i + 11] -= 0.75;
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
  int n = argc > 1 ? atoi(argv[1]) : 13;
  for (int x0 = 0; x0 < 27; x0++)
    g_A[x0] = (double)(((x0) * 5 + 3) % 19 - 9) * (double)0.25;
  for (int x0 = 0; x0 < 29; x0++)
    g_B[x0] = (float)(((x0) * 7 + 5) % 23 - 11) * (float)0.1;
  for (int x0 = 0; x0 < 36; x0++)
    for (int x1 = 0; x1 < 19; x1++)
      g_C[x0][x1] = (double)((((x0) * 19 + x1) * 5 + 7) % 19 - 9) * (double)0.25;
  for (int x0 = 0; x0 < 452; x0++)
    g_D[x0] = (float)(((x0) * 7 + 9) % 23 - 11) * (float)0.1;
  kernel(n, g_A, g_B, g_C, g_D);
  printf("A\n");
  for (int x0 = 0; x0 < 27; x0++)
    print_fp(g_A[x0]);
  printf("B\n");
  for (int x0 = 0; x0 < 29; x0++)
    print_fp(g_B[x0]);
  printf("C\n");
  for (int x0 = 0; x0 < 36; x0++)
    for (int x1 = 0; x1 < 19; x1++)
      print_fp(g_C[x0][x1]);
  printf("D\n");
  for (int x0 = 0; x0 < 452; x0++)
    print_fp(g_D[x0]);
  printf("result\n");
  for (int k = 0; k < 1; k++)
    print_fp(g_result[k]);
  return 0;
}
