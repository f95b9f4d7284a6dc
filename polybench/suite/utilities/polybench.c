/*
 * polybench.c -- runtime support of the s2s kernel suite (timer, cache
 * flush, aligned allocation).  Portable C99 + POSIX; see polybench.h for the
 * compile-time switches.
 */
#if !defined(_POSIX_C_SOURCE) || _POSIX_C_SOURCE < 200112L
# undef _POSIX_C_SOURCE
# define _POSIX_C_SOURCE 200112L
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/time.h>
#ifdef POLYBENCH_LINUX_FIFO_SCHEDULER
# include <sched.h>
#endif

#include "polybench.h"

/* A bit more than the 32 MiB last-level caches this suite is usually run on;
   override with -DPOLYBENCH_CACHE_SIZE_KB=... for larger ones. */
#ifndef POLYBENCH_CACHE_SIZE_KB
# define POLYBENCH_CACHE_SIZE_KB 32770
#endif

double polybench_program_total_flops = 0;

#ifdef POLYBENCH_CYCLE_ACCURATE_TIMER
static unsigned long long int polybench_c_start, polybench_c_end;
#else
static double polybench_t_start, polybench_t_end;
#endif

#if defined(POLYBENCH_CYCLE_ACCURATE_TIMER) && (defined(__x86_64__) || defined(__i386__))
# define POLYBENCH_HAVE_TSC 1
#endif

#ifndef POLYBENCH_HAVE_TSC
/* Wall-clock seconds from a monotonic clock when there is one. */
static double polybench_wtime(void)
{
#if defined(CLOCK_MONOTONIC)
  struct timespec ts;
  if (clock_gettime(CLOCK_MONOTONIC, &ts) == 0)
    return (double) ts.tv_sec + (double) ts.tv_nsec * 1.0e-9;
#endif
  {
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (double) tv.tv_sec + (double) tv.tv_usec * 1.0e-6;
  }
}
#endif

#ifdef POLYBENCH_CYCLE_ACCURATE_TIMER
static unsigned long long int polybench_cycles(void)
{
# ifdef POLYBENCH_HAVE_TSC
  unsigned int lo, hi;
  __asm__ __volatile__ ("rdtsc" : "=a" (lo), "=d" (hi));
  return ((unsigned long long int) hi << 32) | lo;
# else
  /* No time-stamp counter: fall back to nanoseconds. */
  return (unsigned long long int) (polybench_wtime() * 1.0e9);
# endif
}
#endif

/* Evict the kernel's data from the caches by writing, then reading back, a
   buffer larger than the last-level cache.  (Merely reading freshly calloc'ed
   memory is not enough: untouched pages may all map the same zero page.)
   The sum is checked, so neither pass can be optimised away. */
void polybench_flush_cache(void)
{
  size_t count = (size_t) POLYBENCH_CACHE_SIZE_KB * 1024 / sizeof(double);
  double* buffer = (double*) malloc(count * sizeof(double));
  volatile double sink;
  double total = 0.0;
  size_t i;

  if (buffer == NULL)
    {
      fprintf(stderr, "[PolyBench] cannot allocate the cache-flush buffer\n");
      return;
    }
  for (i = 0; i < count; i++)
    buffer[i] = (double) (i & 1);
  for (i = 0; i < count; i++)
    total += buffer[i];
  sink = total;
  if (sink != (double) (count / 2))
    fprintf(stderr, "[PolyBench] unexpected cache-flush checksum\n");
  free(buffer);
}

#ifdef POLYBENCH_LINUX_FIFO_SCHEDULER
static void polybench_set_scheduler(int policy, int priority)
{
  struct sched_param param;
  param.sched_priority = priority;
  if (sched_setscheduler(0, policy, &param) != 0)
    fprintf(stderr, "[PolyBench] cannot change the scheduling policy\n");
}
#endif

void polybench_prepare_instruments(void)
{
#ifndef POLYBENCH_NO_FLUSH_CACHE
  polybench_flush_cache();
#endif
#ifdef POLYBENCH_LINUX_FIFO_SCHEDULER
  polybench_set_scheduler(SCHED_FIFO, sched_get_priority_max(SCHED_FIFO));
#endif
}

void polybench_timer_start(void)
{
  polybench_prepare_instruments();
#ifdef POLYBENCH_CYCLE_ACCURATE_TIMER
  polybench_c_start = polybench_cycles();
#else
  polybench_t_start = polybench_wtime();
#endif
}

void polybench_timer_stop(void)
{
#ifdef POLYBENCH_CYCLE_ACCURATE_TIMER
  polybench_c_end = polybench_cycles();
#else
  polybench_t_end = polybench_wtime();
#endif
#ifdef POLYBENCH_LINUX_FIFO_SCHEDULER
  polybench_set_scheduler(SCHED_OTHER, 0);
#endif
}

void polybench_timer_print(void)
{
#ifdef POLYBENCH_CYCLE_ACCURATE_TIMER
  printf("%llu\n", polybench_c_end - polybench_c_start);
#else
  double elapsed = polybench_t_end - polybench_t_start;
# ifdef POLYBENCH_GFLOPS
  if (polybench_program_total_flops == 0)
    {
      printf("[PolyBench][WARNING] polybench_program_total_flops is not set\n");
      printf("%0.9f\n", elapsed);
    }
  else
    printf("%0.2f\n", (polybench_program_total_flops / elapsed) / 1.0e9);
# else
  printf("%0.9f\n", elapsed);
# endif
#endif
}

void* polybench_alloc_data(unsigned long long int n, int elt_size)
{
  size_t bytes = (size_t) n * (size_t) elt_size;
  void* ptr = NULL;

  if (bytes == 0)
    bytes = 1;
  if (posix_memalign(&ptr, 4096, bytes) != 0 || ptr == NULL)
    {
      fprintf(stderr, "[PolyBench] posix_memalign: cannot allocate %llu bytes\n",
              (unsigned long long int) bytes);
      exit(1);
    }
  return ptr;
}

void polybench_free_data(void* ptr)
{
  free(ptr);
}
