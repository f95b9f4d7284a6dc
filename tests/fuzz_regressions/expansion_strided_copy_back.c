/* s2s-fuzz: seed=2006303 target=c tile=- fuse=smart kernels=on work=optimize=0,parallel=0,kernel=0,kernel_min=0,parallel_kernel=0 profitability=on args=1,1,1 */
/* A written only at A[1][0] and A[1][3] (j += 3): the expansion of A along k copied back every */
/* element from A[1][0] to A[1][3], so A[1][1] and A[1][2] received what the expanded copy held */
/* there (never written). Written sets with a stride are no longer copied back by a box. */

#include <stdio.h>
#include <stdlib.h>

static unsigned g_A[2][4];

void kernel(int n, int m, int nb, unsigned A[2][4])
{
  for (int i = 0; i < 3; i++)
  {
    for (int j = 0; j < 4; j += 3)
    {
      for (int k = 0; k < 3; k++)
      {
        A[1][j] = 1u;
      }
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
  int n = argc > 1 ? atoi(argv[1]) : 1;
  int m = argc > 2 ? atoi(argv[2]) : 1;
  int nb = argc > 3 ? atoi(argv[3]) : 1;
  for (int x0 = 0; x0 < 2; x0++)
    for (int x1 = 0; x1 < 4; x1++)
      g_A[x0][x1] = (unsigned)((x0) * 4 + x1) * 2654435761u + 3u;
  kernel(n, m, nb, g_A);
  printf("A\n");
  for (int x0 = 0; x0 < 2; x0++)
    for (int x1 = 0; x1 < 4; x1++)
      printf("%u\n", g_A[x0][x1]);
  return 0;
}
