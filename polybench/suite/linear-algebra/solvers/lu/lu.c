/*
 * lu.c -- in-place LU decomposition without pivoting (Doolittle, unit lower
 * triangular L): L and U overwrite A.
 * s2s kernel suite, PolyBench/C 4.2.1 compatible.
 */
#include <stdio.h>
#include <unistd.h>
#include <string.h>
#include <math.h>

#include <polybench.h>
#include "lu.h"


/* Deterministic input, positive definite so that no pivoting is needed:
   a unit-diagonal lower triangular L is built, then A := L * L^T. */
static
void init_array(int n,
                DATA_TYPE POLYBENCH_2D(A, N, N, n, n))
{
  int i, j;
  int r, s, t;

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
                 DATA_TYPE POLYBENCH_2D(A, N, N, n, n))
{
  int i, j;

  POLYBENCH_DUMP_START;
  POLYBENCH_DUMP_BEGIN("A");
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      if ((i * n + j) % 20 == 0)
        fprintf(POLYBENCH_DUMP_TARGET, "\n");
      fprintf(POLYBENCH_DUMP_TARGET, DATA_PRINTF_MODIFIER, A[i][j]);
    }
  POLYBENCH_DUMP_END("A");
  POLYBENCH_DUMP_FINISH;
}


/* The timed region (row by row: L part, then U part of row i). */
static
void kernel_lu(int n,
               DATA_TYPE POLYBENCH_2D(A, N, N, n, n))
{
  int i, j, k;

#pragma scop
  for (i = 0; i < _PB_N; i++)
    {
      for (j = 0; j < i; j++)
        {
          for (k = 0; k < j; k++)
            A[i][j] -= A[i][k] * A[k][j];
          A[i][j] /= A[j][j];
        }
      for (j = i; j < _PB_N; j++)
        for (k = 0; k < i; k++)
          A[i][j] -= A[i][k] * A[k][j];
    }
#pragma endscop
}


int main(int argc, char** argv)
{
  int n = N;

  POLYBENCH_2D_ARRAY_DECL(A, DATA_TYPE, N, N, n, n);

  init_array(n, POLYBENCH_ARRAY(A));

  polybench_start_instruments;

  kernel_lu(n, POLYBENCH_ARRAY(A));

  polybench_stop_instruments;
  polybench_print_instruments;

  /* Keep the results live; printed only with POLYBENCH_DUMP_ARRAYS. */
  polybench_prevent_dce(print_array(n, POLYBENCH_ARRAY(A)));

  POLYBENCH_FREE_ARRAY(A);

  return 0;
}
