/* s2s-fuzz: seed=2002548 target=c tile=2,4,8 fuse=smart kernels=off work=optimize=0,parallel=0,kernel=0,kernel_min=0,parallel_kernel=0 profitability=on args=9 */
/* isl's dataflow analysis in the expansion of scratch arrays failed on this program ("affine expression */
/* involves some of the domain dimensions"), and s2s-cc compiled it unchanged: the expansion and the */
/* privatization now use the same retry (the order as a schedule tree) and assume the worst past it. */

#include <stdio.h>
#include <stdlib.h>

static unsigned g_A[20];
static int g_B[17][24][11];
static unsigned g_buf[260];
static double g_result[1];

void kernel(int n, unsigned A[20], int B[17][24][11], unsigned *v0, unsigned *v1)
{
  int s0 = 0;
  for (int i = 1; i <= n - 2; i += 3)
  {
    for (int j = 0; j < i; j += 3)
    {
      A[j + 6] += ((A[-i + 7] + B[i][j + 8][i + 1]) + (j - 3u));
      for (int k = 0; k < i + 1; k++)
      {
        A[5] *= ((v1[k] - v1[i - 1]) + v1[k]);
        for (int l = 2; l <= n - 1; l++)
        {
          v1[2*l + 1] = v0[28*l + j];
          v1[-l + 2] = ((v1[l] * A[i + 5]) + (3u * v1[j + 2]));
          if (k > n - 2)
          {
            B[k][k + 8][-j] = (v1[k]) & 1023;
          }
        }
        for (int l = 0; l < n - 1; l++)
        {
          v1[-k] += v0[14*k + j - 12];
        }
        v1[k - 1] -= B[1][2*i + 9][k];
      }
      for (int k = 1; k < n + 1; k++)
      {
        for (int l = 1; l < n + 1; l++)
        {
          A[j + 5] = (B[i - 1][j + 8][1] * v0[14*j + k]);
          if ((i) % 3 == 1)
          {
            B[2*i + 2][k + 8][j + 2] = ((v1[l + 1] + (v0[l] + 5))) & 1023;
          }
        }
        for (int l = 0; l < 6; l++)
        {
          A[7] += l;
          v1[l] = ((B[j][2*l + 8][i + 3] * 6u) - (A[i + 7] - A[j + 5]));
          v0[14*j + i + 1] = ((v0[14*k + l] - 5u) + v0[14*i + j + 28]);
        }
      }
    }
    for (int j = i - 2; j < i + 1; j++)
    {
      for (int k = 0; k < i; k++)
      {
        unsigned s1 = 0u;
        for (int l = 0; l < n; l += 2)
        {
          s1 += ((l - 5u) - (5u * A[2*j + 5]));
          A[l + 5] = 3u;
          v1[3] = (v1[l + 1] * A[i + 7]);
          s1 += B[i][j + 8][k];
        }
        v1[i - 1] += s1;
      }
    }
  }
  for (int i = n - 1; i >= 1; i--)
  {
    v1[2*i] += ((1u + B[3][-i + 8][4]) + (7u * v0[14*i - 14]));
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
  for (int x0 = 0; x0 < 20; x0++)
    g_A[x0] = (unsigned)(x0) * 2654435761u + 3u;
  for (int x0 = 0; x0 < 17; x0++)
    for (int x1 = 0; x1 < 24; x1++)
      for (int x2 = 0; x2 < 11; x2++)
        g_B[x0][x1][x2] = ((((x0) * 24 + x1) * 11 + x2) * 7 + 5) % 23 - 11;
  for (int x0 = 0; x0 < 260; x0++)
    g_buf[x0] = (unsigned)(x0) * 2654435761u + 7u;
  kernel(n, g_A, g_B, g_buf + 29, g_buf + 9);
  printf("A\n");
  for (int x0 = 0; x0 < 20; x0++)
    printf("%u\n", g_A[x0]);
  printf("B\n");
  for (int x0 = 0; x0 < 17; x0++)
    for (int x1 = 0; x1 < 24; x1++)
      for (int x2 = 0; x2 < 11; x2++)
        printf("%d\n", g_B[x0][x1][x2]);
  printf("buf\n");
  for (int x0 = 0; x0 < 260; x0++)
    printf("%u\n", g_buf[x0]);
  printf("result\n");
  for (int k = 0; k < 1; k++)
    print_fp(g_result[k]);
  return 0;
}
