/* s2s-fuzz: seed=6017 target=c tile=- fuse=smart kernels=on work=optimize=0,parallel=0,kernel=0 args=1,1,1 */
/* Once an s2s-cc fallback: isl_union_access_info_compute_flow failed in reuse_dependences (affine expression involves some of the domain dimensions); a scalar reset and read in a loop nest, 23*j strides. */
#include <stdio.h>
#include <stdlib.h>

static int g_B[336];

void kernel(int n, int m, int p, int *B)
{
  for (int i = 0; i < m; i++)
  {
    for (int j = 0; j < m + 1; j++)
    {
      int s0 = 0;
      for (int k = 0; k < i; k++)
      {
        s0 = (B[23*j - i + 290]) & 1023;
      }
      B[-23*j - i + 335] = (B[-23*j - i + 335] + (1)) & 1023;
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
  int p = argc > 3 ? atoi(argv[3]) : 1;
  for (int x0 = 0; x0 < 336; x0++)
    g_B[x0] = ((x0) * 7 + 3) % 23 - 11;
  kernel(n, m, p, g_B);
  printf("B\n");
  for (int x0 = 0; x0 < 336; x0++)
    printf("%d\n", g_B[x0]);
  return 0;
}

