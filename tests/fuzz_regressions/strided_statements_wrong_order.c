/* s2s-fuzz: seed=2008158 target=c tile=8,5,4 fuse=smart kernels=on work=optimize=0,parallel=0,kernel=0,kernel_min=0,parallel_kernel=0 profitability=off args=20 */
/* A wrong order from isl's code generation (fixed): the Pluto-style schedule of these 9 */
/* statements is legal, but it has a band member that repeats an earlier one for every statement, */
/* and for it isl's AST ran the statement A[i + 18] = ... for all j before B[j + 19][20] *= ..., */
/* which the schedule puts between two of those iterations: B[21][20] ended with another value. */
/* Every AST is now read back and checked against the dependences (s2s/schedule/ast_order.py); */
/* here the check fails and the user's loops stay. Found by s2s fuzz --seed 2008158. */

#include <stdio.h>
#include <stdlib.h>

static float A[55];
static float B[39][38];
static double g_result[1];

void kernel(int n)
{
  float s0 = 0.0f;
  for (int i = 0; i < n + 1; i++)
  {
    float s1 = 0.0f;
    for (int j = 0; j < n - 1; j++)
    {
      for (int k = 0; k < n; k++)
      {
        B[j + 18][-i + 20] = 1.0f;
        s1 = B[i + 18][j + 19];
      }
    }
    A[-i + 20] = 1;
  }
  A[19] += 1;
  for (int i = 2; i < 11; i++)
  {
    for (int j = 0; j < n; j += 2)
    {
      B[j + 19][20] *= ((s0 + 2.0f) - (A[i + 19] * A[2*j + 18]));
      for (int k = i - 1; k < i + 1; k += 3)
      {
        A[i + 18] = ((B[i + 17][j + 19] + A[i + 21]) - (0.75f * A[k + 20]));
        B[-j + 18][-i + 18] = ((A[j + 19] + B[j + 19][i + 20]) + (B[j + 18][21] * 2.0f));
      }
    }
  }
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
  int n = argc > 1 ? atoi(argv[1]) : 20;
  for (int x0 = 0; x0 < 55; x0++)
    A[x0] = (float)(((x0) * 5 + 3) % 19 - 9) * (float)0.25;
  for (int x0 = 0; x0 < 39; x0++)
    for (int x1 = 0; x1 < 38; x1++)
      B[x0][x1] = (float)((((x0) * 38 + x1) * 7 + 5) % 23 - 11) * (float)0.1;
  kernel(n);
  printf("A\n");
  for (int x0 = 0; x0 < 55; x0++)
    print_fp(A[x0]);
  printf("B\n");
  for (int x0 = 0; x0 < 39; x0++)
    for (int x1 = 0; x1 < 38; x1++)
      print_fp(B[x0][x1]);
  printf("result\n");
  for (int k = 0; k < 1; k++)
    print_fp(g_result[k]);
  return 0;
}
