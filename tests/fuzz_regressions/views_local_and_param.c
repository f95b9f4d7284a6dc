/* s2s-fuzz: seed=1066 target=c tile=5,8,8 fuse=smart kernels=on args=7,1,14 */
/* Two pointer views of one buffer, a local one and a parameter: the write through v1 lands where v2 reads.
   s2s reordered it with no overlap check before 1093a2e (issue 21, part 1); now it runs under the check. */

#include <stdio.h>
#include <stdlib.h>

static double B[27];
static double g_buf[81];

void kernel(int n, int m, int p, double *buf, double *v2)
{
  double *v1 = buf + 65;
  for (int i = 0; i < p; i++)
  {
    for (int j = 0; j < n; j++)
    {
      B[2*i] = v2[8*j + 2*i - 9];
    }
    v1[i + 2] = 1;
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
  int n = argc > 1 ? atoi(argv[1]) : 7;
  int m = argc > 2 ? atoi(argv[2]) : 1;
  int p = argc > 3 ? atoi(argv[3]) : 14;
  for (int x0 = 0; x0 < 27; x0++)
    B[x0] = (double)(((x0) * 5 + 3) % 19 - 9) * (double)0.25;
  for (int x0 = 0; x0 < 81; x0++)
    g_buf[x0] = (double)(((x0) * 7 + 5) % 23 - 11) * (double)0.1;
  kernel(n, m, p, g_buf, g_buf + 9);
  printf("B\n");
  for (int x0 = 0; x0 < 27; x0++)
    print_fp(B[x0]);
  printf("buf\n");
  for (int x0 = 0; x0 < 81; x0++)
    print_fp(g_buf[x0]);
  return 0;
}
