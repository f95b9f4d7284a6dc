/* s2s-fuzz: seed=2006818 target=c tile=- fuse=smart kernels=on work=optimize=0,parallel=0,kernel=0,kernel_min=0,parallel_kernel=0 profitability=on args=20 */
/* The Pluto-style scheduler refuses this SCoP when it is built (an integer program of 101 */
/* unknowns, limit 96). After 1f8562e that refusal escaped choose_schedule: the whole SCoP */
/* stayed as written, as an internal error, instead of going to isl's scheduler. */

#include <stdio.h>
#include <stdlib.h>

static int g_A[39][20];
static float g_B[21][37];
static int C[38];
static double g_buf[878];
static double g_result[2];

void kernel(int n, int A[39][20], float B[21][37], double *v0, double *buf)
{
  double *v1 = buf + 18;
  double *v2 = buf + 372;
  float s0 = 0.0f;
  float s1 = 0.0f;
  for (int i = 2; i < n - 1; i++)
  {
    for (int j = 1; j < 10; j += 2)
    {
      v1[j + 1] *= ((0.1 + C[j + 1]) * (C[j + 1] - s1));
      for (int k = i; k < i + 1; k += 3)
      {
        s1 += s0;
        v2[k + 24] += v1[-i];
      }
    }
    C[i + 2] = (((A[i + 17][3] * i) + (C[i] + A[20][i]))) & 1023;
  }
  for (int i = 0; i < 2; i++)
  {
    for (int j = 0; j < 13; j += 2)
    {
      v0[21*j + i - 21] += ((C[j] + C[j]) - v2[-8*j + 2*j]);
      for (int k = 0; k < j; k++)
      {
        if (i < n - 2)
        {
          C[k + 3] = (C[3]) & 1023;
        }
        for (int l = 0; l < 16; l++)
        {
          if (i != n)
          {
            v1[j] *= ((A[20][i + 1] + v1[j]) * (C[l + 2] * A[k + 18][k + 1]));
          }
          else
          {
            A[i + 19][2*j + 3] = (A[k + 18][j + 1]) & 1023;
          }
          v1[l - 1] -= (((double)i + v0[21*i + j - 1]) + (2.0 * v0[2*i]));
          if ((l) % 3 == 1)
          {
            B[j - 1][j - 1] += ((v0[l + 44] + s0) * 0.5f);
          }
        }
        if (j <= i - 1)
        {
          s0 = ((v0[i + 21] + A[i + 16][k + 3]) + (v2[8*i + k + 8] + B[k + 2][j - 1]));
        }
      }
    }
    for (int j = 0; j < n - 1; j += 2)
    {
      for (int k = 0; k < 14; k += 3)
      {
        v0[21*k + i - 22] -= (double)j;
        for (int l = i; l < i + 2; l++)
        {
          s0 *= v1[-i - 1];
          s1 -= ((B[l + 1][j] + B[i + 1][k]) * (B[j][j + 2] * C[l + 1]));
          B[l][i] = ((C[k] * A[j + 17][l + 1]) + (B[j][k] + v2[8*l + 10]));
        }
        for (int l = 0; l <= i; l++)
        {
          v1[j] += (((double)i + A[-l + 17][k + 1]) + (A[2*i + 17][j + 1] * A[k + 16][j]));
        }
      }
      for (int k = 1; k < i + 1; k++)
      {
        for (int l = 0; l < n; l += 3)
        {
          v2[8*k - i] += ((0.75 + A[k + 17][l + 1]) + (A[-j + 18][l + 1] - v0[-21*j - j + 44]));
          v0[42*i + l] = (v1[k + 1] * (double)l);
        }
      }
    }
  }
  for (int i = 1; i <= n + 1; i++)
  {
    for (int j = 0; j < 14; j += 2)
    {
      B[i - 1][3] = ((A[j + 17][2] - v0[42*j + i]) * (v2[16*j + j + 1] * C[i + 1]));
    }
    v1[i] = ((s0 + A[i + 17][3]) + (v2[8*i + 3] + (double)i));
  }
  for (int i = 0; i < n - 1; i++)
  {
    for (int j = 0; j < i; j++)
    {
      for (int k = 1; k <= 14; k += 2)
      {
        if ((j) % 3 == 1)
        {
          B[k][3] += C[4];
        }
        v2[8*k + i + 15] += (((double)k - B[j][k]) - C[2*i + 1]);
        v1[j] += ((double)i + (B[i][k] - B[i + 1][2*j + 2]));
      }
    }
    C[i + 3] = ((A[i + 19][2] * C[i + 1])) & 1023;
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
  int n = argc > 1 ? atoi(argv[1]) : 20;
  for (int x0 = 0; x0 < 39; x0++)
    for (int x1 = 0; x1 < 20; x1++)
      g_A[x0][x1] = (((x0) * 20 + x1) * 7 + 3) % 23 - 11;
  for (int x0 = 0; x0 < 21; x0++)
    for (int x1 = 0; x1 < 37; x1++)
      g_B[x0][x1] = (float)((((x0) * 37 + x1) * 7 + 5) % 23 - 11) * (float)0.1;
  for (int x0 = 0; x0 < 38; x0++)
    C[x0] = ((x0) * 7 + 7) % 23 - 11;
  for (int x0 = 0; x0 < 878; x0++)
    g_buf[x0] = (double)(((x0) * 7 + 9) % 23 - 11) * (double)0.1;
  kernel(n, g_A, g_B, g_buf + 352, g_buf);
  printf("A\n");
  for (int x0 = 0; x0 < 39; x0++)
    for (int x1 = 0; x1 < 20; x1++)
      printf("%d\n", g_A[x0][x1]);
  printf("B\n");
  for (int x0 = 0; x0 < 21; x0++)
    for (int x1 = 0; x1 < 37; x1++)
      print_fp(g_B[x0][x1]);
  printf("C\n");
  for (int x0 = 0; x0 < 38; x0++)
    printf("%d\n", C[x0]);
  printf("buf\n");
  for (int x0 = 0; x0 < 878; x0++)
    print_fp(g_buf[x0]);
  printf("result\n");
  for (int k = 0; k < 2; k++)
    print_fp(g_result[k]);
  return 0;
}
