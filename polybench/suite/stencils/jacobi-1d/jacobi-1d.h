/*
 * jacobi-1d.h -- problem sizes and element type of the jacobi-1d kernel
 * (1D Jacobi stencil).
 * s2s kernel suite, PolyBench/C 4.2.1 compatible.
 */
#ifndef S2S_PB_JACOBI_1D_H
#define S2S_PB_JACOBI_1D_H

/* The LARGE dataset is used unless another one is selected. */
# if !defined(MINI_DATASET) && !defined(SMALL_DATASET) && !defined(MEDIUM_DATASET) && !defined(LARGE_DATASET) && !defined(EXTRALARGE_DATASET)
#  define LARGE_DATASET
# endif

/* Problem sizes of the five datasets.  Defining all of TSTEPS, N on the
   command line overrides the dataset. */
# if !defined(TSTEPS) && !defined(N)
#  ifdef MINI_DATASET
#   define TSTEPS 20
#   define N 30
#  endif

#  ifdef SMALL_DATASET
#   define TSTEPS 40
#   define N 120
#  endif

#  ifdef MEDIUM_DATASET
#   define TSTEPS 100
#   define N 400
#  endif

#  ifdef LARGE_DATASET
#   define TSTEPS 500
#   define N 2000
#  endif

#  ifdef EXTRALARGE_DATASET
#   define TSTEPS 1000
#   define N 4000
#  endif

# endif /* !(TSTEPS N) */

# define _PB_TSTEPS POLYBENCH_LOOP_BOUND(TSTEPS,tsteps)
# define _PB_N POLYBENCH_LOOP_BOUND(N,n)

/* Element type: double unless one of DATA_TYPE_IS_INT, DATA_TYPE_IS_FLOAT,
   DATA_TYPE_IS_DOUBLE is given. */
# if !defined(DATA_TYPE_IS_INT) && !defined(DATA_TYPE_IS_FLOAT) && !defined(DATA_TYPE_IS_DOUBLE)
#  define DATA_TYPE_IS_DOUBLE
# endif

#if defined(DATA_TYPE_IS_INT)
# define DATA_TYPE int
# define DATA_PRINTF_MODIFIER "%d "
# define SCALAR_VAL(x) x
# define SQRT_FUN(x) sqrt(x)
# define EXP_FUN(x) exp(x)
# define POW_FUN(x,y) pow(x,y)
#elif defined(DATA_TYPE_IS_FLOAT)
# define DATA_TYPE float
# define DATA_PRINTF_MODIFIER "%0.2f "
# define SCALAR_VAL(x) x##f
# define SQRT_FUN(x) sqrtf(x)
# define EXP_FUN(x) expf(x)
# define POW_FUN(x,y) powf(x,y)
#else
# define DATA_TYPE double
# define DATA_PRINTF_MODIFIER "%0.2lf "
# define SCALAR_VAL(x) x
# define SQRT_FUN(x) sqrt(x)
# define EXP_FUN(x) exp(x)
# define POW_FUN(x,y) pow(x,y)
#endif

/* s2s extension: dump every value with all significant digits. */
#ifdef POLYBENCH_DUMP_FULL_PRECISION
# undef DATA_PRINTF_MODIFIER
# if defined(DATA_TYPE_IS_INT)
#  define DATA_PRINTF_MODIFIER "%d "
# else
#  define DATA_PRINTF_MODIFIER "%.17g "
# endif
#endif

#endif /* !S2S_PB_JACOBI_1D_H */
