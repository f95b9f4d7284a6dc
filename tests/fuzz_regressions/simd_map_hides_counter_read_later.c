/* s2s-fuzz: seed=2040589 target=highway tile=- fuse=max kernels=on work=optimize=0,parallel=0,kernel=0,kernel_min=0,parallel_kernel=0,parallel_start=1,parallel_wake=1,parallel_wavefront=1 profitability=off args=1,2 */
/* The loop over l has an empty body: as a Highway region's innermost loop it became a SIMD Map,
   which declares its own l, and the l read after the nest (g_result[1] = l) saw the function's
   l (0) instead of 4. Only the region's own reads of l were looked at (found by seed 2040589). */

#include <stdio.h>
#include <stdlib.h>

static unsigned g_D[1];
static int E[16];
static double g_result[2];

void kernel(int n, int m, unsigned *D)
{
  int i, j, k = 0, l = 0;
  for (i = 0; i < m - 1; i++)
  {
    for (j = 0; j < m; j++)
    {
      for (l = 0; l < j + 3; l++)
      {
      }
      if (0 == n + 2)
      {
        D[j*n + j + 143] = 1;
      }
    }
    E[i + 15] = (1) & 1023;
  }
  g_result[0] = k;
  g_result[1] = l;
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
  int m = argc > 2 ? atoi(argv[2]) : 2;
  for (int x0 = 0; x0 < 1; x0++)
    g_D[x0] = (unsigned)(x0) * 2654435761u + 3u;
  for (int x0 = 0; x0 < 16; x0++)
    E[x0] = ((x0) * 7 + 5) % 23 - 11;
  kernel(n, m, g_D);
  printf("D\n");
  for (int x0 = 0; x0 < 1; x0++)
    printf("%u\n", g_D[x0]);
  printf("E\n");
  for (int x0 = 0; x0 < 16; x0++)
    printf("%d\n", E[x0]);
  printf("result\n");
  for (int k = 0; k < 2; k++)
    print_fp(g_result[k]);
  return 0;
}
