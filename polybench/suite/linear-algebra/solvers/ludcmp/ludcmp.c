/*
 * ludcmp.c -- solves A*x = b: in-place LU decomposition of A without
 * pivoting, then forward substitution (L*y = b) and back substitution
 * (U*x = y).
 * s2s kernel suite, PolyBench/C 4.2.1 compatible.
 */
#include <stdio.h>
#include <unistd.h>
#include <string.h>
#include <math.h>

#include <polybench.h>
#include "ludcmp.h"


/* Deterministic input; A is made positive definite (A := L * L^T for a
   unit-diagonal lower triangular L) so that no pivoting is needed. */
static
void init_array(int n,
                DATA_TYPE POLYBENCH_2D(A, N, N, n, n),
                DATA_TYPE POLYBENCH_1D(b, N, n),
                DATA_TYPE POLYBENCH_1D(x, N, n),
                DATA_TYPE POLYBENCH_1D(y, N, n))
{
  int i, j;
  int r, s, t;
  DATA_TYPE fn = (DATA_TYPE) n;

  for (i = 0; i < n; i++)
    {
      x[i] = 0;
      y[i] = 0;
      b[i] = (i + 1) / fn / 2.0 + 4;
    }

  for (i = 0; i < n; i++)
    {
      for (j = 0; j <= i; j++)
        A[i][j] = (DATA_TYPE) (-j % n) / n + 1;
      for (j = i + 1; j < n; j++)
        A[i][j] = 0;
      A[i][i] = 1;
    }

  {
    /* B = A A^T, each B[r][s] summed over ascending t as in PolyBench (the same values), but
       along rows of a transposed copy: PolyBench's column walk A[s][t] touches a new page at
       every step and took two minutes at LARGE where the TLB is small (AMD Zen 1). */
    POLYBENCH_2D_ARRAY_DECL(B, DATA_TYPE, N, N, n, n);
    POLYBENCH_2D_ARRAY_DECL(AT, DATA_TYPE, N, N, n, n);
    for (r = 0; r < n; ++r)
      for (s = 0; s < n; ++s)
        (POLYBENCH_ARRAY(B))[r][s] = 0;
    for (t = 0; t < n; ++t)
      for (s = 0; s < n; ++s)
        (POLYBENCH_ARRAY(AT))[t][s] = A[s][t];
    for (r = 0; r < n; ++r)
      for (t = 0; t < n; ++t)
        for (s = 0; s < n; ++s)
          (POLYBENCH_ARRAY(B))[r][s] += A[r][t] * (POLYBENCH_ARRAY(AT))[t][s];
    for (r = 0; r < n; ++r)
      for (s = 0; s < n; ++s)
        A[r][s] = (POLYBENCH_ARRAY(B))[r][s];
    POLYBENCH_FREE_ARRAY(AT);
    POLYBENCH_FREE_ARRAY(B);
  }
}


/* Dump the live-out data (stderr). */
static
void print_array(int n,
                 DATA_TYPE POLYBENCH_1D(x, N, n))
{
  int i;

  POLYBENCH_DUMP_START;
  POLYBENCH_DUMP_BEGIN("x");
  for (i = 0; i < n; i++) {
    if (i % 20 == 0)
      fprintf(POLYBENCH_DUMP_TARGET, "\n");
    fprintf(POLYBENCH_DUMP_TARGET, DATA_PRINTF_MODIFIER, x[i]);
  }
  POLYBENCH_DUMP_END("x");
  POLYBENCH_DUMP_FINISH;
}


/* The timed region. */
static
void kernel_ludcmp(int n,
                   DATA_TYPE POLYBENCH_2D(A, N, N, n, n),
                   DATA_TYPE POLYBENCH_1D(b, N, n),
                   DATA_TYPE POLYBENCH_1D(x, N, n),
                   DATA_TYPE POLYBENCH_1D(y, N, n))
{
  int i, j, k;
  DATA_TYPE w;

#pragma scop
  /* A := L\U, row by row. */
  for (i = 0; i < _PB_N; i++)
    {
      for (j = 0; j < i; j++)
        {
          w = A[i][j];
          for (k = 0; k < j; k++)
            w -= A[i][k] * A[k][j];
          A[i][j] = w / A[j][j];
        }
      for (j = i; j < _PB_N; j++)
        {
          w = A[i][j];
          for (k = 0; k < i; k++)
            w -= A[i][k] * A[k][j];
          A[i][j] = w;
        }
    }

  /* Forward substitution, L*y = b (L has a unit diagonal). */
  for (i = 0; i < _PB_N; i++)
    {
      w = b[i];
      for (j = 0; j < i; j++)
        w -= A[i][j] * y[j];
      y[i] = w;
    }

  /* Back substitution, U*x = y. */
  for (i = _PB_N - 1; i >= 0; i--)
    {
      w = y[i];
      for (j = i + 1; j < _PB_N; j++)
        w -= A[i][j] * x[j];
      x[i] = w / A[i][i];
    }
#pragma endscop
}


int main(int argc, char** argv)
{
  int n = N;

  POLYBENCH_2D_ARRAY_DECL(A, DATA_TYPE, N, N, n, n);
  POLYBENCH_1D_ARRAY_DECL(b, DATA_TYPE, N, n);
  POLYBENCH_1D_ARRAY_DECL(x, DATA_TYPE, N, n);
  POLYBENCH_1D_ARRAY_DECL(y, DATA_TYPE, N, n);

  init_array(n,
             POLYBENCH_ARRAY(A),
             POLYBENCH_ARRAY(b),
             POLYBENCH_ARRAY(x),
             POLYBENCH_ARRAY(y));

  polybench_start_instruments;

  kernel_ludcmp(n,
                POLYBENCH_ARRAY(A),
                POLYBENCH_ARRAY(b),
                POLYBENCH_ARRAY(x),
                POLYBENCH_ARRAY(y));

  polybench_stop_instruments;
  polybench_print_instruments;

  /* Keep the results live; printed only with POLYBENCH_DUMP_ARRAYS. */
  polybench_prevent_dce(print_array(n, POLYBENCH_ARRAY(x)));

  POLYBENCH_FREE_ARRAY(A);
  POLYBENCH_FREE_ARRAY(b);
  POLYBENCH_FREE_ARRAY(x);
  POLYBENCH_FREE_ARRAY(y);

  return 0;
}
