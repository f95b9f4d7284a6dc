/* s2s-fuzz: seed=2013523 target=c tile=8,4,3 fuse=smart kernels=on work=optimize=0,parallel=0,kernel=0,kernel_min=0,parallel_kernel=0 profitability=on args=13,6 */
/* Whole groups of unrolled copies are found from the times at which their statements run; */
/* here the copies' statement (D[-k + 1][2*j + 2] += ..., under k == i + 2) never runs, the set */
/* of times was empty, and isl refused to take it as a set of one space: s2s-cc compiled the */
/* file unchanged. Copies of statements that never run are now left without isolation. */

#include <stdio.h>
#include <stdlib.h>

static double g_A[3][2][4];
static double g_B[13][9];
static double g_C[14][6];
static double g_D[5][8];
static double g_buf[103];
static double *v0;

void kernel(int n, int m, double A[3][2][4], double B[13][9], double C[14][6], double D[5][8], double *v1)
{
  for (int i = 0; i < 2; i++)
  {
    for (int j = 0; j < i + 1; j++)
    {
      for (int k = j; k < j + 2; k += 3)
      {
        C[j + 1][k] *= (double)i;
        if (k == i + 2)
        {
          D[-k + 1][2*j + 2] += A[j][i][k];
        }
        else
        {
          B[j + 2][3] -= ((A[k][i][j] + D[i + 2][k]) + (A[2][k][k] - C[k + 1][j + 1]));
        }
      }
      C[i][i + 2] *= (B[i][j + 1] - (double)j);
    }
    for (int j = 2; j < m - 1; j += 3)
    {
      double s0 = 0.0;
      for (int k = 2; k <= m - 2; k++)
      {
        v1[j + 2] = ((0.75 + D[1][2*k - 1]) - D[j + 2][k]);
        s0 += ((C[i + 1][k] * (double)k) + (v1[k] * 0.5));
      }
      A[i][j - 1][i + 2] += s0;
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
  int n = argc > 1 ? atoi(argv[1]) : 13;
  int m = argc > 2 ? atoi(argv[2]) : 6;
  for (int x0 = 0; x0 < 3; x0++)
    for (int x1 = 0; x1 < 2; x1++)
      for (int x2 = 0; x2 < 4; x2++)
        g_A[x0][x1][x2] = (double)(((((x0) * 2 + x1) * 4 + x2) * 5 + 3) % 19 - 9) * (double)0.25;
  for (int x0 = 0; x0 < 13; x0++)
    for (int x1 = 0; x1 < 9; x1++)
      g_B[x0][x1] = (double)((((x0) * 9 + x1) * 7 + 5) % 23 - 11) * (double)0.1;
  for (int x0 = 0; x0 < 14; x0++)
    for (int x1 = 0; x1 < 6; x1++)
      g_C[x0][x1] = (double)((((x0) * 6 + x1) * 5 + 7) % 19 - 9) * (double)0.25;
  for (int x0 = 0; x0 < 5; x0++)
    for (int x1 = 0; x1 < 8; x1++)
      g_D[x0][x1] = (double)((((x0) * 8 + x1) * 7 + 9) % 23 - 11) * (double)0.1;
  for (int x0 = 0; x0 < 103; x0++)
    g_buf[x0] = (double)(((x0) * 5 + 11) % 19 - 9) * (double)0.25;
  v0 = g_buf + 64;
  kernel(n, m, g_A, g_B, g_C, g_D, g_buf + 1);
  printf("A\n");
  for (int x0 = 0; x0 < 3; x0++)
    for (int x1 = 0; x1 < 2; x1++)
      for (int x2 = 0; x2 < 4; x2++)
        print_fp(g_A[x0][x1][x2]);
  printf("B\n");
  for (int x0 = 0; x0 < 13; x0++)
    for (int x1 = 0; x1 < 9; x1++)
      print_fp(g_B[x0][x1]);
  printf("C\n");
  for (int x0 = 0; x0 < 14; x0++)
    for (int x1 = 0; x1 < 6; x1++)
      print_fp(g_C[x0][x1]);
  printf("D\n");
  for (int x0 = 0; x0 < 5; x0++)
    for (int x1 = 0; x1 < 8; x1++)
      print_fp(g_D[x0][x1]);
  printf("buf\n");
  for (int x0 = 0; x0 < 103; x0++)
    print_fp(g_buf[x0]);
  return 0;
}

