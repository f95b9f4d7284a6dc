/* s2s-fuzz: seed=2015706 target=c tile=- fuse=smart kernels=off work=optimize=0,parallel=0,kernel=0,kernel_min=0,parallel_kernel=0,parallel_start=1,parallel_wake=1,parallel_wavefront=1 profitability=on args=12 */
/* Once an s2s-cc fallback: isl ran out of operations inside compute_flow and handed back a flow whose get_must_dependence failed (in reuse_dependences); now read as isl cannot tell. */

#include <stdio.h>
#include <stdlib.h>

static int g_A[30][21];
static int g_B[342];
static int g_C[27];

void kernel(int n, int A[30][21], int *B, int *C)
{
  for (int i = n - 3; i >= 0; i--)
  {
    int s0 = 0;
    for (int j = i; j < i + 3; j++)
    {
      for (int k = i; k < n; k++)
      {
        if (k != i + 1)
        {
          A[j + 11][k] = (A[j + 11][k] + (((s0 * A[i + 12][j + 2]) + (A[j + 12][j + 2] - A[-k + 11][k + 1])))) & 1023;
        }
        else
        {
          B[172] = (B[172] - (C[-k + 11])) & 1023;
        }
        for (int l = 0; l < i; l++)
        {
          s0 = (s0 + (((i * l) - (B[-18*l + k + 135] + C[-i + 11])))) & 1023;
          s0 = (s0 + ((C[i + 11] - (j * B[18*i + j + 116])))) & 1023;
        }
        if ((i) % 3 == 0)
        {
          C[-k + 11] = (C[-k + 11] + (((C[j + 13] * C[i + 11]) + (B[k + 187] * A[k + 11][i])))) & 1023;
        }
      }
    }
    A[i + 14][0] = (A[i + 14][0] + (s0)) & 1023;
  }
  for (int i = 10; i >= 0; i--)
  {
    for (int j = 2; j < 9; j += 2)
    {
      for (int k = i + 1; k < 16; k++)
      {
        A[i + 13][j + 1] = (A[i + 13][j + 1] + ((B[18*i + j + 116] * A[i + 14][k - 1]))) & 1023;
        C[k + 11] = (((A[2*j + 12][i] * k) - (A[k + 14][i + 2] + 4))) & 1023;
        A[i + 13][k + 1] = ((C[k + 11] * C[j + 11])) & 1023;
      }
      if (j <= n - 1)
      {
        C[j + 13] = (((B[18*i + j + 134] - A[j + 12][2*j + 2]) + (j + j))) & 1023;
      }
    }
    for (int j = 1; j < i + 1; j++)
    {
      for (int k = 0; k < n; k++)
      {
        A[14][j] = ((C[i + 13] * j)) & 1023;
        C[i + 10] = (C[i + 10] - (((B[18*i + j + 117] + j) + (7 + k)))) & 1023;
        if ((j) % 2 == 0)
        {
          A[j + 12][2*i] = (B[18*k - i + 133]) & 1023;
        }
        else
        {
          C[j + 10] = (C[j + 10] - (A[i + 11][i])) & 1023;
        }
      }
      B[18*i + j + 134] = (B[18*i + j + 134] - ((C[j + 12] + (B[18*j + i + 151] + B[18*i - j + 117])))) & 1023;
    }
    C[i + 11] = (C[i + 11] + ((A[i + 11][i] * B[18*i + 119]))) & 1023;
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
  int n = argc > 1 ? atoi(argv[1]) : 12;
  for (int x0 = 0; x0 < 30; x0++)
    for (int x1 = 0; x1 < 21; x1++)
      g_A[x0][x1] = (((x0) * 21 + x1) * 7 + 3) % 23 - 11;
  for (int x0 = 0; x0 < 342; x0++)
    g_B[x0] = ((x0) * 7 + 5) % 23 - 11;
  for (int x0 = 0; x0 < 27; x0++)
    g_C[x0] = ((x0) * 7 + 7) % 23 - 11;
  kernel(n, g_A, g_B, g_C);
  printf("A\n");
  for (int x0 = 0; x0 < 30; x0++)
    for (int x1 = 0; x1 < 21; x1++)
      printf("%d\n", g_A[x0][x1]);
  printf("B\n");
  for (int x0 = 0; x0 < 342; x0++)
    printf("%d\n", g_B[x0]);
  printf("C\n");
  for (int x0 = 0; x0 < 27; x0++)
    printf("%d\n", g_C[x0]);
  return 0;
}
