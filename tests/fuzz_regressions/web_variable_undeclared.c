/* s2s-fuzz: seed=2032835 target=c tile=5,4,4 fuse=no kernels=on work=optimize=0,parallel=0,kernel=0,kernel_min=0,parallel_kernel=0,parallel_start=1,parallel_wake=1,parallel_wavefront=1 profitability=off args=1,1 */
/* A build fallback (fixed): s0's writes in the loop and after it are two webs (no value the */
/* loop writes is read), so the second got a variable of its own, s0_2; it was not expanded, */
/* and nothing declared it: gcc stopped at 's0_2 undeclared'. Code generation now declares a */
/* rewriting's new scalars that the statements use. Found by s2s fuzz --seed 2032835. */

#include <stdio.h>
#include <stdlib.h>

static double g_result[1];

void kernel(int n, int m)
{
  float s0 = 0.0f;
  for (int k = 0; k < m; k++)
  {
    s0 = 1;
  }
  s0 = 1;
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
  kernel(n, m);
  printf("result\n");
  for (int k = 0; k < 1; k++)
    print_fp(g_result[k]);
  return 0;
}
