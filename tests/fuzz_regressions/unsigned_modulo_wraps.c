/* s2s-fuzz: seed=4100069 target=c tile=- fuse=no kernels=on work=- profitability=off args=12,18,5217 */
/* A guard (j - 1) % 3 == 0 over an unsigned counter: at j = 0, C computes 4294967295u % 3, which
   is 0, so the guard holds at j = 0 and j = 1 (found by seed 4100069, the first campaign with
   unsigned counters, shrunk). s2s read the remainder as in signed arithmetic (-1 % 3 == -1): its
   loops stored C[3][i] (j = 1) and never C[2][i] (j = 0). Right since the model takes C's type of
   each subexpression (s2s/analysis/c_arith.py). */

#include <stdio.h>
#include <stdlib.h>

static float C[4][10];
static float g_D[11];

void kernel(unsigned n, unsigned m, unsigned nb, float D[11])
{
  for (unsigned i = 0; i < n - 2; i++)
  {
    for (unsigned j = 0; j < nb - 1; j++)
    {
      D[i + 1] = 1;
    }
    for (unsigned j = 0; j < 3; j++)
    {
      if ((j - 1) % 3 == 0)
      {
        C[j + 2][i] = 1;
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
  unsigned n = argc > 1 ? (unsigned)atol(argv[1]) : 12;
  unsigned m = argc > 2 ? (unsigned)atol(argv[2]) : 18;
  unsigned nb = argc > 3 ? (unsigned)atol(argv[3]) : 5217;
  for (int x0 = 0; x0 < 4; x0++)
    for (int x1 = 0; x1 < 10; x1++)
      C[x0][x1] = (float)((((x0) * 10 + x1) * 5 + 3) % 19 - 9) * (float)0.25;
  for (int x0 = 0; x0 < 11; x0++)
    g_D[x0] = (float)(((x0) * 7 + 5) % 23 - 11) * (float)0.1;
  kernel(n, m, nb, g_D);
  printf("C\n");
  for (int x0 = 0; x0 < 4; x0++)
    for (int x1 = 0; x1 < 10; x1++)
      print_fp(C[x0][x1]);
  printf("D\n");
  for (int x0 = 0; x0 < 11; x0++)
    print_fp(g_D[x0]);
  return 0;
}
