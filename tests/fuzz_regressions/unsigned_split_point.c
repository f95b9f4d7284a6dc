/* s2s-fuzz: seed=2040095 target=c tile=5,5,5 fuse=smart kernels=on work=optimize=0,parallel=0,kernel=0,kernel_min=0,parallel_kernel=0,parallel_start=1,parallel_wake=1,parallel_wavefront=1 profitability=off args=1 */
/* A loop split at the one iteration where C[j + 2] is C[i] (scalar_replacement.py keeps C[i] in a
   local on either side), at j = i - 2 with i unsigned: C computed i - 2 modulo 2^32, so at i = 0
   the middle piece started at j = 4294967294 converted to int, -2, and read far before the
   arrays (found by seed 2040095 through the Highway target, shrunk; the code was the C target's,
   no loop of it was a vector loop). The split point is now computed with such variables read as
   long long. */

#include <stdio.h>
#include <stdlib.h>

static double A[1][1][1];
static double g_C[1];

void kernel(unsigned n, double C[1])
{
  for (unsigned i = 0; i < 2; i++)
  {
    double s2 = 0.0;
    for (unsigned j = 1; j < n - 1; j++)
    {
      C[i] = A[2*j - 1][i + 11][11];
      s2 = (A[j - 1][-i + 11][13] + C[j + 2]);
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
  unsigned n = argc > 1 ? (unsigned)atol(argv[1]) : 1;
  for (int x0 = 0; x0 < 1; x0++)
    for (int x1 = 0; x1 < 1; x1++)
      for (int x2 = 0; x2 < 1; x2++)
        A[x0][x1][x2] = (double)(((((x0) * 1 + x1) * 1 + x2) * 5 + 3) % 19 - 9) * (double)0.25;
  for (int x0 = 0; x0 < 1; x0++)
    g_C[x0] = (double)(((x0) * 7 + 5) % 23 - 11) * (double)0.1;
  kernel(n, g_C);
  printf("A\n");
  for (int x0 = 0; x0 < 1; x0++)
    for (int x1 = 0; x1 < 1; x1++)
      for (int x2 = 0; x2 < 1; x2++)
        print_fp(A[x0][x1][x2]);
  printf("C\n");
  for (int x0 = 0; x0 < 1; x0++)
    print_fp(g_C[x0]);
  return 0;
}
