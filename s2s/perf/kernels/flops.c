/*
 * s2s machine: peak floating-point throughput and the core clock.
 *
 *   flops peak PRECISION WIDTH MIN_SECONDS REPS    PRECISION: fp64|fp32, WIDTH: vector bytes, 0 = scalar
 *   flops freq MIN_SECONDS REPS                    the clock, from a chain of dependent integer adds
 *   flops hypervisor                               the hypervisor's CPUID vendor string (x86)
 *
 * Peak: NACC independent accumulators, each updated by acc = acc * a + b, which the compiler turns
 * into one fused multiply-add (-ffp-contract=fast, an FMA-capable -march): 2 FLOP per lane. There
 * are enough chains to cover the FMA latency on every pipe (latency 4-5 cycles x 2 pipes needs 8-10),
 * and no memory traffic. The values converge to b / (1 - a) and never overflow or go subnormal.
 * Plain C with GCC/Clang vector types (vector_size), no intrinsics; the scalar build is compiled
 * without auto-vectorization. With OpenMP every thread runs its own chains; the time is the wall
 * time of the slowest thread (barriers around the timed region).
 *
 * Freq: one dependent chain of register-register integer adds (1 cycle of latency on every core), 128 per loop trip.
 *
 * Peak also probes the clock (0.25 ms of dependent adds) right after every timed repetition, so
 * that the clock the bounds use was seen in the same conditions as the FLOPs.
 *
 * Output: "peak PRECISION WIDTH THREADS FLOP_PER_REP BEST_S AVG_S NACC MAX_HZ_SEEN" or
 * "freq HZ_BEST HZ_AVG".
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#if defined(__AVX512F__) || defined(__aarch64__)
#define NACC 16   /* 32 vector registers */
#else
#define NACC 12   /* 16 vector registers: 12 chains + the two operands */
#endif

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#define R12(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)
#if NACC == 16
#define RACC(X) R12(X) X(12) X(13) X(14) X(15)
#else
#define RACC(X) R12(X)
#endif

/* One chain function per (type, vector type). LANES: elements per vector. */
#define DEFINE_CHAIN(NAME, T, V, LANES)                                                     \
  static double NAME(long iters, T a_s, T b_s)                                              \
  {                                                                                         \
    typedef T elem_t;                                                                       \
    typedef V vec_t;                                                                        \
    V a, b;                                                                                 \
    for (int l = 0; l < (LANES); l++) {                                                     \
      ((T *)&a)[l] = a_s;                                                                   \
      ((T *)&b)[l] = b_s;                                                                   \
    }                                                                                       \
    RACC(DECL_ACC)                                                                          \
    for (long i = 0; i < iters; i++) {                                                      \
      RACC(STEP)                                                                            \
    }                                                                                       \
    V sum = b - b;                                                                          \
    RACC(SUM)                                                                               \
    double out = 0;                                                                         \
    for (int l = 0; l < (LANES); l++)                                                       \
      out += (double)((T *)&sum)[l];                                                        \
    return out;                                                                             \
  }
#define DECL_ACC(k) vec_t acc##k = b * (elem_t)(k + 1);
#define STEP(k) acc##k = acc##k * a + b;
#define SUM(k) sum += acc##k;

#ifdef SCALAR_BUILD
DEFINE_CHAIN(chain_fp64_0, double, double, 1)
DEFINE_CHAIN(chain_fp32_0, float, float, 1)
#else
typedef double vd16 __attribute__((vector_size(16)));
typedef float vf16 __attribute__((vector_size(16)));
DEFINE_CHAIN(chain_fp64_16, double, vd16, 2)
DEFINE_CHAIN(chain_fp32_16, float, vf16, 4)
#if defined(__AVX__)
typedef double vd32 __attribute__((vector_size(32)));
typedef float vf32 __attribute__((vector_size(32)));
DEFINE_CHAIN(chain_fp64_32, double, vd32, 4)
DEFINE_CHAIN(chain_fp32_32, float, vf32, 8)
#endif
#if defined(__AVX512F__)
typedef double vd64 __attribute__((vector_size(64)));
typedef float vf64 __attribute__((vector_size(64)));
DEFINE_CHAIN(chain_fp64_64, double, vd64, 8)
DEFINE_CHAIN(chain_fp32_64, float, vf64, 16)
#endif
#endif

typedef double (*chain_fn)(long, double, double);

static double call_chain(int fp64, int width, long iters, double a, double b, int *ok)
{
  *ok = 1;
#ifdef SCALAR_BUILD
  if (width == 0)
    return fp64 ? chain_fp64_0(iters, a, b) : chain_fp32_0(iters, (float)a, (float)b);
#else
  if (width == 16)
    return fp64 ? chain_fp64_16(iters, a, b) : chain_fp32_16(iters, (float)a, (float)b);
#if defined(__AVX__)
  if (width == 32)
    return fp64 ? chain_fp64_32(iters, a, b) : chain_fp32_32(iters, (float)a, (float)b);
#endif
#if defined(__AVX512F__)
  if (width == 64)
    return fp64 ? chain_fp64_64(iters, a, b) : chain_fp32_64(iters, (float)a, (float)b);
#endif
#endif
  *ok = 0;
  return 0;
}

#if defined(__x86_64__) || defined(__i386__)
/* A register operand, not an immediate: Golden Cove and later cores fold chains of
 * add-immediate at rename (zero latency), which would read as a clock several times too high. */
#define ADD1(x) __asm__ __volatile__("add %1, %0" : "+r"(x) : "r"(one));
#elif defined(__aarch64__)
#define ADD1(x) __asm__ __volatile__("add %0, %0, %1" : "+r"(x) : "r"(one));
#endif
#ifdef ADD1
/* 1, read through a volatile: the compiler cannot fold the adds into one. */
static unsigned long opaque_one(void)
{
  volatile unsigned long one = 1;
  return one;
}
#define A8(x) ADD1(x) ADD1(x) ADD1(x) ADD1(x) ADD1(x) ADD1(x) ADD1(x) ADD1(x)
#define A128(x) A8(x) A8(x) A8(x) A8(x) A8(x) A8(x) A8(x) A8(x) A8(x) A8(x) A8(x) A8(x) A8(x) A8(x) A8(x) A8(x)
#endif

/* The clock now, from `iters` x 128 dependent adds (0 where there is no probe). */
static double probe_hz(long iters)
{
#ifdef ADD1
  unsigned long x = 0;
  unsigned long one = opaque_one();
  double t0 = now();
  for (long i = 0; i < iters; i++) {
    A128(x)
  }
  double t = now() - t0;
  __asm__ __volatile__("" : : "r"(x));
  return t > 0 ? 128.0 * (double)iters / t : 0;
#else
  (void)iters;
  return 0;
#endif
}

static double shared_start, shared_sink, shared_hz;
static long shared_iters;

static int run_peak(int fp64, int width, double min_seconds, int reps)
{
  volatile double a_v = 0.999999, b_v = 1e-6;   /* opaque to the compiler */
  double a = a_v, b = b_v;
  int lanes = width == 0 ? 1 : width / (fp64 ? 8 : 4);
  int nthreads = 1, ok = 1;
#ifdef _OPENMP
  nthreads = omp_get_max_threads();
#endif
  double best = 0, sum = 0;
  int done = 0;
  shared_iters = 1000;
#ifdef _OPENMP
#pragma omp parallel reduction(& : ok)
#endif
  {
    for (int r = -2; r < reps; r++) {   /* -2, -1: warm-up (clock ramp) and calibration */
#ifdef _OPENMP
#pragma omp barrier
#pragma omp master
#endif
      shared_start = now();
#ifdef _OPENMP
#pragma omp barrier
#endif
      long iters = shared_iters;
      int this_ok;
      double v = call_chain(fp64, width, iters, a, b, &this_ok);
      ok &= this_ok;
#ifdef _OPENMP
#pragma omp atomic
#endif
      shared_sink += v;
#ifdef _OPENMP
#pragma omp barrier
#pragma omp master
#endif
      {
        double t = now() - shared_start;
        if (r < 0) {
          double scale = min_seconds / (t > 1e-9 ? t : 1e-9);
          if (scale > 1000)
            scale = 1000;
          shared_iters = (long)ceil((double)iters * (scale < 1 ? 1 : scale));
        } else {
          if (done == 0 || t < best)
            best = t;
          sum += t;
          done++;
          /* the clock right after the run, in the same conditions (turbo state, other cores' load) */
          double hz = probe_hz(2000);
          if (hz > shared_hz)
            shared_hz = hz;
        }
      }
    }
  }
  if (!ok) {
    fprintf(stderr, "flops: width %d not built for this target\n", width);
    return 1;
  }
  double flop = 2.0 * NACC * lanes * (double)shared_iters * nthreads;
  printf("peak %s %d %d %.0f %.9g %.9g %d %.6g\n", fp64 ? "fp64" : "fp32", width * 8, nthreads, flop, best,
         sum / done, NACC, shared_hz);
  fprintf(stderr, "sink %g\n", shared_sink);
  return 0;
}

static int run_freq(double min_seconds, int reps)
{
#ifdef ADD1
  long iters = 10000;
  double best = 0, sum = 0;
  int done = 0;
  unsigned long x = 0;
  unsigned long one = opaque_one();
  for (int r = -2; r < reps; r++) {
    double t0 = now();
    for (long i = 0; i < iters; i++) {
      A128(x)
    }
    double t = now() - t0;
    double hz = 128.0 * (double)iters / t;
    if (r < 0) {
      double scale = min_seconds / (t > 1e-9 ? t : 1e-9);
      iters = (long)ceil((double)iters * (scale < 1 ? 1 : (scale > 1000 ? 1000 : scale)));
    } else {
      if (hz > best)
        best = hz;
      sum += hz;
      done++;
    }
  }
  printf("freq %.6g %.6g\n", best, sum / done);
  fprintf(stderr, "sink %lu\n", x);
  return 0;
#else
  (void)min_seconds;
  (void)reps;
  fprintf(stderr, "flops: no clock probe for this architecture\n");
  return 1;
#endif
}

static int run_hypervisor(void)
{
#if defined(__x86_64__) || defined(__i386__)
  unsigned int a = 0x40000000u, b = 0, c = 0, d = 0;
  __asm__ __volatile__("cpuid" : "+a"(a), "=b"(b), "=c"(c), "=d"(d));
  char vendor[13];
  memcpy(vendor, &b, 4);
  memcpy(vendor + 4, &c, 4);
  memcpy(vendor + 8, &d, 4);
  vendor[12] = 0;
  for (int i = 0; i < 12; i++)
    if (vendor[i] && (vendor[i] < 32 || vendor[i] > 126))
      vendor[i] = '?';
  printf("hypervisor %s\n", vendor[0] ? vendor : "-");
#else
  printf("hypervisor -\n");
#endif
  return 0;
}

int main(int argc, char **argv)
{
  if (argc >= 6 && strcmp(argv[1], "peak") == 0)
    return run_peak(strcmp(argv[2], "fp64") == 0, atoi(argv[3]), atof(argv[4]), atoi(argv[5]));
  if (argc >= 4 && strcmp(argv[1], "freq") == 0)
    return run_freq(atof(argv[2]), atoi(argv[3]));
  if (argc >= 2 && strcmp(argv[1], "hypervisor") == 0)
    return run_hypervisor();
  fprintf(stderr, "usage: %s peak fp64|fp32 WIDTH_BYTES MIN_SECONDS REPS | freq MIN_SECONDS REPS\n", argv[0]);
  return 2;
}
