/*
 * nussinov.c -- Nussinov's dynamic program for RNA secondary structure:
 * table[i][j] is the maximum number of base pairs in seq[i..j].
 * s2s kernel suite, PolyBench/C 4.2.1 compatible.
 */
#include <stdio.h>
#include <unistd.h>
#include <string.h>
#include <math.h>

#include <polybench.h>
#include "nussinov.h"

/* RNA bases A, C, G, U are encoded as 0..3. */
typedef char base;

/* Bases b1 and b2 pair when they are complementary (codes summing to 3). */
#define match(b1, b2) (((b1) + (b2)) == 3 ? 1 : 0)
#define max_score(s1, s2) ((s1 >= s2) ? s1 : s2)


/* Deterministic input: the sequence cycles through the four bases. */
static
void init_array(int n,
                base POLYBENCH_1D(seq, N, n),
                DATA_TYPE POLYBENCH_2D(table, N, N, n, n))
{
  int i, j;

  for (i = 0; i < n; i++)
    seq[i] = (base) ((i + 1) % 4);

  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      table[i][j] = 0;
}


/* Dump the live-out data (stderr): the upper triangle, with the diagonal. */
static
void print_array(int n,
                 DATA_TYPE POLYBENCH_2D(table, N, N, n, n))
{
  int i, j;
  int t = 0;

  POLYBENCH_DUMP_START;
  POLYBENCH_DUMP_BEGIN("table");
  for (i = 0; i < n; i++)
    for (j = i; j < n; j++) {
      if (t % 20 == 0)
        fprintf(POLYBENCH_DUMP_TARGET, "\n");
      fprintf(POLYBENCH_DUMP_TARGET, DATA_PRINTF_MODIFIER, table[i][j]);
      t++;
    }
  POLYBENCH_DUMP_END("table");
  POLYBENCH_DUMP_FINISH;
}


/* The timed region.  The guards on j-1 and i+1 always hold inside the loop
   nest; they are kept as in the textbook recurrence. */
static
void kernel_nussinov(int n,
                     base POLYBENCH_1D(seq, N, n),
                     DATA_TYPE POLYBENCH_2D(table, N, N, n, n))
{
  int i, j, k;

#pragma scop
  for (i = _PB_N - 1; i >= 0; i--)
    {
      for (j = i + 1; j < _PB_N; j++)
        {
          if (j - 1 >= 0)
            table[i][j] = max_score(table[i][j], table[i][j - 1]);
          if (i + 1 < _PB_N)
            table[i][j] = max_score(table[i][j], table[i + 1][j]);

          if (j - 1 >= 0 && i + 1 < _PB_N)
            {
              /* Adjacent bases may not pair. */
              if (i < j - 1)
                table[i][j] = max_score(table[i][j],
                                        table[i + 1][j - 1] + match(seq[i], seq[j]));
              else
                table[i][j] = max_score(table[i][j], table[i + 1][j - 1]);
            }

          for (k = i + 1; k < j; k++)
            table[i][j] = max_score(table[i][j], table[i][k] + table[k + 1][j]);
        }
    }
#pragma endscop
}


int main(int argc, char** argv)
{
  int n = N;

  POLYBENCH_1D_ARRAY_DECL(seq, base, N, n);
  POLYBENCH_2D_ARRAY_DECL(table, DATA_TYPE, N, N, n, n);

  init_array(n, POLYBENCH_ARRAY(seq), POLYBENCH_ARRAY(table));

  polybench_start_instruments;

  kernel_nussinov(n, POLYBENCH_ARRAY(seq), POLYBENCH_ARRAY(table));

  polybench_stop_instruments;
  polybench_print_instruments;

  /* Keep the results live; printed only with POLYBENCH_DUMP_ARRAYS. */
  polybench_prevent_dce(print_array(n, POLYBENCH_ARRAY(table)));

  POLYBENCH_FREE_ARRAY(seq);
  POLYBENCH_FREE_ARRAY(table);

  return 0;
}
