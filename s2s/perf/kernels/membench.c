/*
 * s2s machine: memory and cache bandwidth (STREAM kernels plus load-only and store-only).
 *
 *   membench MODE SIZE MIN_SECONDS REPS KERNELS
 *
 * MODE "stream": every array has SIZE bytes per thread (the STREAM convention: copy moves 2 arrays,
 * triad 3); MODE "ws": each kernel's working set is SIZE bytes per thread (the arrays of a kernel
 * share SIZE), which is how a cache level is targeted. KERNELS is a comma list of copy, scale,
 * add, triad, load, store.
 *
 * Every thread (OpenMP; OMP_NUM_THREADS) owns its arrays (first touch), so a thread's working set
 * stays in its own core's caches. One repetition is enough passes over the arrays to last at least
 * MIN_SECONDS; the first repetition is a warm-up that calibrates the pass count. Bytes are counted
 * as STREAM counts them: what the kernel reads and writes, not the write-allocate reads a cache
 * adds for stores.
 *
 * Output, one line per kernel:
 *   KERNEL THREADS BYTES_PER_PASS PASSES BEST_S_PER_PASS AVG_S_PER_PASS WORST_S_PER_PASS
 *
 * Plain C with GCC/Clang vector types (no intrinsics): VBYTES is the vector width in bytes.
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

#ifndef VBYTES
#define VBYTES 32
#endif

typedef double vd __attribute__((vector_size(VBYTES), aligned(VBYTES)));

#define COMPILER_BARRIER() __asm__ __volatile__("" ::: "memory")

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

enum { K_COPY, K_SCALE, K_ADD, K_TRIAD, K_LOAD, K_STORE, NKERNELS };
static const char *NAMES[NKERNELS] = {"copy", "scale", "add", "triad", "load", "store"};
static const int ARRAYS[NKERNELS] = {2, 2, 3, 3, 1, 1};   /* arrays a kernel touches */

static void copy(vd *restrict c, const vd *restrict a, long n)
{
  for (long i = 0; i < n; i++)
    c[i] = a[i];
}

static void scale(vd *restrict b, const vd *restrict c, vd s, long n)
{
  for (long i = 0; i < n; i++)
    b[i] = s * c[i];
}

static void add(vd *restrict c, const vd *restrict a, const vd *restrict b, long n)
{
  for (long i = 0; i < n; i++)
    c[i] = a[i] + b[i];
}

static void triad(vd *restrict a, const vd *restrict b, const vd *restrict c, vd s, long n)
{
  for (long i = 0; i < n; i++)
    a[i] = b[i] + s * c[i];
}

/* Eight independent accumulators: the adds never limit the loads. n is a multiple of 8. */
static vd load(const vd *restrict a, long n)
{
  vd s0 = a[0] - a[0], s1 = s0, s2 = s0, s3 = s0, s4 = s0, s5 = s0, s6 = s0, s7 = s0;
  for (long i = 0; i < n; i += 8) {
    s0 += a[i];     s1 += a[i + 1]; s2 += a[i + 2]; s3 += a[i + 3];
    s4 += a[i + 4]; s5 += a[i + 5]; s6 += a[i + 6]; s7 += a[i + 7];
  }
  return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7));
}

static void store(vd *restrict a, vd s, long n)
{
  for (long i = 0; i < n; i++)
    a[i] = s;
}

static double shared_start;
static long shared_passes;
static double best[NKERNELS], total[NKERNELS], worst[NKERNELS];
static long passes_of[NKERNELS];
static int reps_done[NKERNELS];
static double sink_total;

int main(int argc, char **argv)
{
  if (argc != 6) {
    fprintf(stderr, "usage: %s stream|ws SIZE_BYTES MIN_SECONDS REPS KERNELS\n", argv[0]);
    return 2;
  }
  int ws_mode = strcmp(argv[1], "ws") == 0;
  double size = atof(argv[2]);
  double min_seconds = atof(argv[3]);
  int reps = atoi(argv[4]);
  int selected[NKERNELS] = {0};
  char *list = argv[5];
  for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ","))
    for (int k = 0; k < NKERNELS; k++)
      if (strcmp(tok, NAMES[k]) == 0)
        selected[k] = 1;
  if (reps < 1 || reps > 1000 || size < 8 * VBYTES) {
    fprintf(stderr, "membench: bad arguments\n");
    return 2;
  }
  int nthreads = 1;
#ifdef _OPENMP
  nthreads = omp_get_max_threads();
#endif
  int failed = 0;

#ifdef _OPENMP
#pragma omp parallel reduction(+ : sink_total) reduction(| : failed)
#endif
  {
    long max_n = 0;
    long n_of[NKERNELS];
    for (int k = 0; k < NKERNELS; k++) {
      double bytes = ws_mode ? size / ARRAYS[k] : size;
      n_of[k] = ((long)(bytes / VBYTES) / 8) * 8;   /* vectors per array, a multiple of 8 */
      if (n_of[k] < 8)
        n_of[k] = 8;
      if (selected[k] && n_of[k] > max_n)
        max_n = n_of[k];
    }
    /* One allocation, the arrays staggered by 17 cache lines so that they do not alias in L1. */
    long stride = max_n + 17 * 64 / VBYTES;
    vd *base = NULL;
    size_t alloc = ((size_t)(3 * stride) * VBYTES + 4095) / 4096 * 4096;
    if (posix_memalign((void **)&base, 4096, alloc) != 0)
      failed = 1;
    vd one, two, s;
    for (int l = 0; l < VBYTES / 8; l++) {
      one[l] = 1.0;
      two[l] = 2.0;
      s[l] = 3.0;
    }
    vd *a = base, *b = base + stride, *c = base + 2 * stride;
    if (!failed)
      for (long i = 0; i < max_n; i++) {   /* first touch by the owning thread */
        a[i] = one;
        b[i] = two;
        c[i] = one - one;
      }
    for (int k = 0; k < NKERNELS; k++) {
      if (!selected[k])
        continue;
      long n = n_of[k];
      for (int r = -1; r < reps; r++) {
#ifdef _OPENMP
#pragma omp barrier
#pragma omp master
#endif
        shared_start = now();
#ifdef _OPENMP
#pragma omp barrier
#endif
        long passes = r < 0 ? 1 : shared_passes;
        for (long p = 0; p < passes && !failed; p++) {
          switch (k) {
          case K_COPY: copy(c, a, n); break;
          case K_SCALE: scale(b, c, s, n); break;
          case K_ADD: add(c, a, b, n); break;
          case K_TRIAD: triad(a, b, c, s, n); break;
          case K_LOAD: { vd v = load(a, n); sink_total += v[0]; break; }
          case K_STORE: store(a, s, n); break;
          }
          COMPILER_BARRIER();
        }
#ifdef _OPENMP
#pragma omp barrier
#pragma omp master
#endif
        {
          double t = now() - shared_start;
          if (r < 0) {
            double want = min_seconds / (t > 1e-9 ? t : 1e-9);
            shared_passes = want < 1 ? 1 : (long)ceil(want);
            passes_of[k] = shared_passes;
          } else {
            double per = t / (double)passes_of[k];
            if (reps_done[k] == 0 || per < best[k])
              best[k] = per;
            if (reps_done[k] == 0 || per > worst[k])
              worst[k] = per;
            total[k] += per;
            reps_done[k]++;
          }
        }
      }
    }
    free(base);
  }
  if (failed) {
    fprintf(stderr, "membench: out of memory\n");
    return 1;
  }
  for (int k = 0; k < NKERNELS; k++) {
    if (!selected[k] || reps_done[k] == 0)
      continue;
    long n = 0;
    double bytes = ws_mode ? size / ARRAYS[k] : size;
    n = ((long)(bytes / VBYTES) / 8) * 8;
    if (n < 8)
      n = 8;
    double bytes_per_pass = (double)ARRAYS[k] * (double)n * VBYTES * nthreads;
    printf("%s %d %.0f %ld %.9g %.9g %.9g\n", NAMES[k], nthreads, bytes_per_pass, passes_of[k], best[k],
           total[k] / reps_done[k], worst[k]);
  }
  fprintf(stderr, "checksum %g\n", sink_total);
  return 0;
}
