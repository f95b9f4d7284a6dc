/* s2s-fuzz: seed=3013931 target=openmp tile=- fuse=smart kernels=on work=optimize=0,parallel=0,kernel=0,kernel_min=0,parallel_kernel=0,parallel_start=0,parallel_wake=0,parallel_wavefront=0 profitability=on args=17,4 */
/* The whole groups of a jammed row are found with isl set operations on the times at which */
/* the copies run; on this strided, triangular nest they ran for minutes and s2s-cc hit its 60 s */
/* limit (before the pointer check that keeps this SCoP as written anyway). They now have a */
/* budget of isl steps, past which the copies keep their guards. */

#include <stdio.h>
#include <stdlib.h>

static float g_A[15];
static float g_B[23];
static float C[44][17];
static float D[15][13];

void kernel(int n, int m, float A[15], float *B)
{
  for (int i = 0; i < n - 2; i += 3)
  {
    for (int j = i; j < n; j++)
    {
      C[-i + 12][j] += ((C[j + 13][i + 2] - 0.75f) * (0.5f * C[2*j + 11][i]));
      A[i + 2] = (A[i] + ((float)j + A[i + 1]));
    }
    for (int j = 1; j < 3; j++)
    {
      D[i + 2][i] = (float)j;
    }
  }
  for (int i = 2; i < m; i++)
  {
    A[i + 1] += ((B[-22*i + 66] + A[i]) + D[2*i + 2][0]);
    A[i] += ((3.3f * D[0][2]) * 2.0f);
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
  int n = argc > 1 ? atoi(argv[1]) : 17;
  int m = argc > 2 ? atoi(argv[2]) : 4;
  for (int x0 = 0; x0 < 15; x0++)
    g_A[x0] = (float)(((x0) * 5 + 3) % 19 - 9) * (float)0.25;
  for (int x0 = 0; x0 < 23; x0++)
    g_B[x0] = (float)(((x0) * 7 + 5) % 23 - 11) * (float)0.1;
  for (int x0 = 0; x0 < 44; x0++)
    for (int x1 = 0; x1 < 17; x1++)
      C[x0][x1] = (float)((((x0) * 17 + x1) * 5 + 7) % 19 - 9) * (float)0.25;
  for (int x0 = 0; x0 < 15; x0++)
    for (int x1 = 0; x1 < 13; x1++)
      D[x0][x1] = (float)((((x0) * 13 + x1) * 7 + 9) % 23 - 11) * (float)0.1;
  kernel(n, m, g_A, g_B);
  printf("A\n");
  for (int x0 = 0; x0 < 15; x0++)
    print_fp(g_A[x0]);
  printf("B\n");
  for (int x0 = 0; x0 < 23; x0++)
    print_fp(g_B[x0]);
  printf("C\n");
  for (int x0 = 0; x0 < 44; x0++)
    for (int x1 = 0; x1 < 17; x1++)
      print_fp(C[x0][x1]);
  printf("D\n");
  for (int x0 = 0; x0 < 15; x0++)
    for (int x1 = 0; x1 < 13; x1++)
      print_fp(D[x0][x1]);
  return 0;
}

