/* s2s-fuzz: seed=4201425 target=openmp tile=4,5,3 fuse=no kernels=on work=optimize=0,parallel=0,kernel=0,kernel_min=0,parallel_kernel=0,parallel_start=1,parallel_wake=1,parallel_wavefront=1 profitability=off args=3 */
/* A branch's local set again by a nested if on data (s3 = 1.5f; if (C[..] != 2) s3 = 1;): its select
   was s3 = c2 ? 1 : 0, not s3 = c2 ? 1 : s3, so E[i][1] got 0 where C[17*i + 31] == 2 (fixed in b5cbae4). */

#include <stdio.h>
#include <stdlib.h>

static int g_C[49];
static float E[1][2];

void kernel(int n, int *restrict C)
{
  for (int i = 0; i < n - 2; i++)
  {
    if ((C[17*i + 48] + C[17*i]) < 4)
    {
      float s3 = 0.0f;
      s3 = 1.5f;
      if (C[17*i + 31] != 2)
      {
        s3 = 1;
      }
      E[i][1] = s3;
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
  for (int x0 = 0; x0 < 49; x0++)
    g_C[x0] = ((x0) * 7 + 3) % 23 - 11;
  for (int x0 = 0; x0 < 1; x0++)
    for (int x1 = 0; x1 < 2; x1++)
      E[x0][x1] = (float)((((x0) * 2 + x1) * 7 + 5) % 23 - 11) * (float)0.1;
  kernel(n, g_C);
  printf("C\n");
  for (int x0 = 0; x0 < 49; x0++)
    printf("%d\n", g_C[x0]);
  printf("E\n");
  for (int x0 = 0; x0 < 1; x0++)
    for (int x1 = 0; x1 < 2; x1++)
      print_fp(E[x0][x1]);
  return 0;
}
