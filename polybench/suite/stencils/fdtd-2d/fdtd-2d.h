/*
 * fdtd-2d.h -- problem sizes and element type of the fdtd-2d kernel
 * (2D finite-difference time-domain kernel).
 * s2s kernel suite, PolyBench/C 4.2.1 compatible.
 */
#ifndef S2S_PB_FDTD_2D_H
#define S2S_PB_FDTD_2D_H

/* The LARGE dataset is used unless another one is selected. */
# if !defined(MINI_DATASET) && !defined(SMALL_DATASET) && !defined(MEDIUM_DATASET) && !defined(LARGE_DATASET) && !defined(EXTRALARGE_DATASET)
#  define LARGE_DATASET
# endif

/* Problem sizes of the five datasets.  Defining all of TMAX, NX, NY on the
   command line overrides the dataset. */
# if !defined(TMAX) && !defined(NX) && !defined(NY)
#  ifdef MINI_DATASET
#   define TMAX 20
#   define NX 20
#   define NY 30
#  endif

#  ifdef SMALL_DATASET
#   define TMAX 40
#   define NX 60
#   define NY 80
#  endif

#  ifdef MEDIUM_DATASET
#   define TMAX 100
#   define NX 200
#   define NY 240
#  endif

#  ifdef LARGE_DATASET
#   define TMAX 500
#   define NX 1000
#   define NY 1200
#  endif

#  ifdef EXTRALARGE_DATASET
#   define TMAX 1000
#   define NX 2000
#   define NY 2600
#  endif

# endif /* !(TMAX NX NY) */

# define _PB_TMAX POLYBENCH_LOOP_BOUND(TMAX,tmax)
# define _PB_NX POLYBENCH_LOOP_BOUND(NX,nx)
# define _PB_NY POLYBENCH_LOOP_BOUND(NY,ny)

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

#endif /* !S2S_PB_FDTD_2D_H */
