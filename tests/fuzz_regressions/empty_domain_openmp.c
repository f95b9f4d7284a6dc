/* s2s-fuzz: seed=6005 target=openmp tile=- fuse=smart kernels=on work=optimize=0,parallel=0,kernel=0,parallel_start=0,parallel_wake=0,parallel_wavefront=0 args=1,1 */
/* A statement that never runs (j from 1 to 0) under -fopenmp: s2s-cc fell back with an isl error
   (isl_multi_union_pw_aff_from_union_map: cannot extract range space from empty input, s2s/schedule/tree.py _mupa). */
#include <stdio.h>
#include <stdlib.h>

static float g_A[1];

void kernel(int n, int m, float *A)
{
  for (int j = 1; j < 1; j++)
  {
    A[-6*j + 1] += 1;
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
  int n = argc > 1 ? atoi(argv[1]) : 1;
  int m = argc > 2 ? atoi(argv[2]) : 1;
  for (int x0 = 0; x0 < 1; x0++)
    g_A[x0] = (float)(((x0) * 5 + 3) % 19 - 9) * (float)0.25;
  kernel(n, m, g_A);
  printf("A\n");
  for (int x0 = 0; x0 < 1; x0++)
    print_fp(g_A[x0]);
  return 0;
}

