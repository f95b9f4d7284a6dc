/* s2s-fuzz: seed=2000024 target=c tile=4,5,5 fuse=no kernels=on work=- args=19,16 */
/* isl's compute_flow rejected the schedule map of these loops, some running downward ("affine
   expression involves some of the domain dimensions"); the same order as a schedule tree passes. */
#include <stdio.h>
#include <stdlib.h>

static double A[54][41];
static double g_B[38];
static double g_result[2];

void kernel(int n, int m, double *B)
{
  double s0 = 0.0;
  double s1 = 0.0;
  for (int i = 0; i < 6; i++)
  {
    for (int j = n - 1; j >= 0; j--)
    {
      for (int k = 2; k <= n; k++)
      {
        for (int l = k; l >= 1; l--)
        {
          A[i + 17][k + 6] = s0;
        }
        B[20] = 3.3;
      }
      for (int k = 2; k < n - 1; k++)
      {
        double s2 = 0.0;
        for (int l = 0; l <= i + 1; l++)
        {
          B[-i + 17] = ((s0 * A[l + 17][j + 6]) - A[2*l + 17][-i + 5]);
          B[l + 18] = s2;
          s2 += (A[k + 19][-i + 6] + (B[j + 17] * A[l + 19][i + 6]));
        }
        B[i + 18] += s2;
      }
    }
  }
  for (int i = 1; i <= m + 1; i += 2)
  {
    B[19] += ((A[-i + 17][i + 6] * B[i + 20]) * (double)i);
    for (int j = 0; j < i; j++)
    {
      s0 += ((A[j + 19][i + 7] * A[j + 17][i + 7]) - (double)i);
      for (int k = i; k >= i - 2; k--)
      {
        for (int l = 0; l < j + 1; l++)
        {
          B[j + 17] *= ((B[19] - A[k + 19][i + 7]) + A[j + 17][k + 7]);
          A[20][k + 8] = ((0.5 + A[l + 17][7]) - A[17][j + 6]);
          A[17][k + 6] *= B[i + 20];
        }
      }
    }
    B[i + 18] = (double)i;
  }
  for (int i = 0; i < n; i++)
  {
    for (int j = 2; j < i; j++)
    {
      B[j + 18] += ((B[i + 17] + A[i + 17][6]) * (A[j + 17][i + 5] + (double)j));
      A[i + 16][2*j + 6] = (A[j + 17][i + 6] + (B[-i + 18] + B[19]));
      B[i + 19] += B[i + 17];
    }
    A[2*i + 17][i + 8] *= (A[i + 17][6] - (s0 * 0.1));
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
  int n = argc > 1 ? atoi(argv[1]) : 19;
  int m = argc > 2 ? atoi(argv[2]) : 16;
  for (int x0 = 0; x0 < 54; x0++)
    for (int x1 = 0; x1 < 41; x1++)
      A[x0][x1] = (double)((((x0) * 41 + x1) * 5 + 3) % 19 - 9) * (double)0.25;
  for (int x0 = 0; x0 < 38; x0++)
    g_B[x0] = (double)(((x0) * 7 + 5) % 23 - 11) * (double)0.1;
  kernel(n, m, g_B);
  printf("A\n");
  for (int x0 = 0; x0 < 54; x0++)
    for (int x1 = 0; x1 < 41; x1++)
      print_fp(A[x0][x1]);
  printf("B\n");
  for (int x0 = 0; x0 < 38; x0++)
    print_fp(g_B[x0]);
  printf("result\n");
  for (int k = 0; k < 2; k++)
    print_fp(g_result[k]);
  return 0;
}
