/* s2s-fuzz: seed=9100129 target=c tile=4,5,3 fuse=max kernels=off work=optimize=0,parallel=0,kernel=0,kernel_min=0,parallel_kernel=0,parallel_start=1,parallel_wake=1,parallel_wavefront=1 profitability=off args=1,1 */
/* two scalars forwarded into the element they are stored to together: the second overwrote the first's
   value before the store read it (s2s.transforms.accumulators), found by seed 9100129 */

#include <stdio.h>
#include <stdlib.h>

static double g_A[16];
static float g_B[1];

void kernel(int n, int m, double *A, float *B)
{
  for (int j = 0; j < n; j++)
  {
    double s3 = 0.0;
    s3 = B[0];
    double s4 = 0.0;
    A[j + 15] = (s3 * s4);
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
  for (int x0 = 0; x0 < 16; x0++)
    g_A[x0] = (double)(((x0) * 5 + 3) % 19 - 9) * (double)0.25;
  for (int x0 = 0; x0 < 1; x0++)
    g_B[x0] = (float)(((x0) * 7 + 5) % 23 - 11) * (float)0.1;
  kernel(n, m, g_A, g_B);
  printf("A\n");
  for (int x0 = 0; x0 < 16; x0++)
    print_fp(g_A[x0]);
  printf("B\n");
  for (int x0 = 0; x0 < 1; x0++)
    print_fp(g_B[x0]);
  return 0;
}
