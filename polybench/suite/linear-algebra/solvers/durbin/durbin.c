/*
 * durbin.c -- Levinson-Durbin recursion: solves the Yule-Walker equations
 * of the Toeplitz system built from r, leaving the solution in y.
 * s2s kernel suite, PolyBench/C 4.2.1 compatible.
 */
#include <stdio.h>
#include <unistd.h>
#include <string.h>
#include <math.h>

#include <polybench.h>
#include "durbin.h"


/* Deterministic input. */
static
void init_array(int n,
                DATA_TYPE POLYBENCH_1D(r, N, n))
{
  int i;

  for (i = 0; i < n; i++)
    r[i] = (n + 1 - i);
}


/* Dump the live-out data (stderr). */
static
void print_array(int n,
                 DATA_TYPE POLYBENCH_1D(y, N, n))
{
  int i;

  POLYBENCH_DUMP_START;
  POLYBENCH_DUMP_BEGIN("y");
  for (i = 0; i < n; i++) {
    if (i % 20 == 0)
      fprintf(POLYBENCH_DUMP_TARGET, "\n");
    fprintf(POLYBENCH_DUMP_TARGET, DATA_PRINTF_MODIFIER, y[i]);
  }
  POLYBENCH_DUMP_END("y");
  POLYBENCH_DUMP_FINISH;
}


/* The timed region; z is a scratch copy of the previous iterate. */
static
void kernel_durbin(int n,
                   DATA_TYPE POLYBENCH_1D(r, N, n),
                   DATA_TYPE POLYBENCH_1D(y, N, n))
{
  DATA_TYPE z[N];
  DATA_TYPE alpha;
  DATA_TYPE beta;
  DATA_TYPE sum;
  int i, k;

#pragma scop
  y[0] = -r[0];
  beta = SCALAR_VAL(1.0);
  alpha = -r[0];

  for (k = 1; k < _PB_N; k++)
    {
      beta = (1 - alpha * alpha) * beta;
      sum = SCALAR_VAL(0.0);
      for (i = 0; i < k; i++)
        sum += r[k - i - 1] * y[i];
      alpha = - (r[k] + sum) / beta;

      for (i = 0; i < k; i++)
        z[i] = y[i] + alpha * y[k - i - 1];
      for (i = 0; i < k; i++)
        y[i] = z[i];
      y[k] = alpha;
    }
#pragma endscop
}


int main(int argc, char** argv)
{
  int n = N;

  POLYBENCH_1D_ARRAY_DECL(r, DATA_TYPE, N, n);
  POLYBENCH_1D_ARRAY_DECL(y, DATA_TYPE, N, n);

  init_array(n, POLYBENCH_ARRAY(r));

  polybench_start_instruments;

  kernel_durbin(n, POLYBENCH_ARRAY(r), POLYBENCH_ARRAY(y));

  polybench_stop_instruments;
  polybench_print_instruments;

  /* Keep the results live; printed only with POLYBENCH_DUMP_ARRAYS. */
  polybench_prevent_dce(print_array(n, POLYBENCH_ARRAY(y)));

  POLYBENCH_FREE_ARRAY(r);
  POLYBENCH_FREE_ARRAY(y);

  return 0;
}
