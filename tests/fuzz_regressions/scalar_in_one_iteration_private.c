/* s2s-fuzz: seed=3010542 target=openmp tile=4,3,4 fuse=max kernels=on work=optimize=0,parallel=0,kernel=0,kernel_min=0,parallel_kernel=0,parallel_start=0,parallel_wake=0,parallel_wavefront=0 profitability=off args=1,1 */
/* A scalar summed over the outer loop and touched only in the first iteration of an inner
   parallel tile loop (c1 == 0): the loop was rightly proven parallel with it shared, but the
   OpenMP back end made every scalar the body writes `private`, so the sum read an uninitialised
   copy and lost its updates (wrong on 1 thread too). */

#include <stdio.h>
#include <stdlib.h>

static float D[23][8];
static double g_result[1];

void kernel(int n, int m)
{
  float s0 = 0.0f;
  for (int i = 0; i < 7; i++)
  {
    for (int j = 0; j < 7; j++)
    {
      D[i + 16][j + 1] = 0.25f;
    }
    s0 += 1;
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
  int n = argc > 1 ? atoi(argv[1]) : 1;
  int m = argc > 2 ? atoi(argv[2]) : 1;
  for (int x0 = 0; x0 < 23; x0++)
    for (int x1 = 0; x1 < 8; x1++)
      D[x0][x1] = (float)((((x0) * 8 + x1) * 5 + 3) % 19 - 9) * (float)0.25;
  kernel(n, m);
  printf("D\n");
  for (int x0 = 0; x0 < 23; x0++)
    for (int x1 = 0; x1 < 8; x1++)
      print_fp(D[x0][x1]);
  printf("result\n");
  for (int k = 0; k < 1; k++)
    print_fp(g_result[k]);
  return 0;
}
