/* s2s-fuzz: seed=4100069 target=c tile=- fuse=smart kernels=on work=optimize=0,parallel=0,kernel=0,kernel_min=0,parallel_kernel=0,parallel_start=1,parallel_wake=1,parallel_wavefront=1 profitability=off args=10 */
/* The comparison beside unsigned_modulo_wraps.c's remainder (written by hand from it): at j = 0
   and j = 1, j - 2 wraps to near 2^32 in C, so the guard holds for every i; s2s compared in
   signed arithmetic, where it never holds there, and its loops stored C[3][0] alone. Right since
   the model takes C's type of each subexpression (s2s/analysis/c_arith.py). */
#include <stdio.h>
#include <stdlib.h>

static float C[4][10];

void kernel(unsigned n)
{
  for (unsigned i = 0; i < n; i++)
  {
    for (unsigned j = 0; j < 4; j++)
    {
      if (i < j - 2)
      {
        C[j][i] = 1;
      }
    }
  }
}

int main(int argc, char **argv)
{
  unsigned n = argc > 1 ? (unsigned)atol(argv[1]) : 10;
  kernel(n);
  for (int x0 = 0; x0 < 4; x0++)
    for (int x1 = 0; x1 < 10; x1++)
      printf("%a\n", C[x0][x1]);
  return 0;
}
