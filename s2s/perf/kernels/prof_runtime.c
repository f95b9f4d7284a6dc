/*
 * s2s profile: the run-time support linked into an instrumented program.
 *
 * Timing build: every instrumented loop nest is wrapped as
 *     { int d = __s2s_prof_enter(R); <nest> __s2s_prof_exit(R, d); }
 * A per-thread stack gives exclusive ("self") time, without the time of other instrumented nests
 * called from inside, as well as inclusive time. A nest left without its exit (goto, longjmp, exit)
 * is repaired at the next exit below it and counted as unbalanced.
 *
 * Counting build: statements increment __s2s_prof_n[k]; library calls add their run-time byte
 * counts to __s2s_prof_b[k]; each nest records the values of its parameters on entry
 * (__s2s_prof_params: distinct tuples with their counts).
 *
 * Hardware counters (S2S_PROF_HWC=1, Linux): cycles, instructions, LLC references and misses and
 * L1D read misses through perf_event_open, read on entry and exit of every nest (user space only).
 * Where the kernel or the VM refuses them, the reason is reported and nothing else changes.
 *
 * At exit, the results go to "$S2S_PROF_OUT.<pid>" as text lines (read by s2s.perf.profile).
 * Sizes come from the build: -DS2S_PROF_NREGIONS, -DS2S_PROF_NCOUNTERS, -DS2S_PROF_NBYTES.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#endif

#ifndef S2S_PROF_NREGIONS
#define S2S_PROF_NREGIONS 1
#endif
#ifndef S2S_PROF_NCOUNTERS
#define S2S_PROF_NCOUNTERS 1
#endif
#ifndef S2S_PROF_NBYTES
#define S2S_PROF_NBYTES 1
#endif
#define MAX_DEPTH 256
#define MAX_TUPLES 64
#define MAX_PARAMS 16
#define NHW 5

unsigned long long __s2s_prof_n[S2S_PROF_NCOUNTERS];
unsigned long long __s2s_prof_b[S2S_PROF_NBYTES];

struct region {
  double self_s, incl_s;
  unsigned long long calls, unbalanced;
  unsigned long long hw[NHW];
  int nparams, ntuples, overflow;
  long long tuples[MAX_TUPLES][MAX_PARAMS];
  unsigned long long tuple_count[MAX_TUPLES];
  unsigned long long entries;
};

static struct region regions[S2S_PROF_NREGIONS];

struct frame {
  int region;
  double t0, child;
  unsigned long long hw0[NHW], hw_child[NHW];
};

static __thread struct frame stack[MAX_DEPTH];
static __thread int depth;

static int hw_fd[NHW] = {-1, -1, -1, -1, -1};
static int hw_on;
static char hw_why[200];
static double timer_cost_s;

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void atomic_add(double *p, double v)
{
  double old, new_;
  __atomic_load(p, &old, __ATOMIC_RELAXED);
  do {
    new_ = old + v;
  } while (!__atomic_compare_exchange(p, &old, &new_, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
}

static void hw_read(unsigned long long *out)
{
  for (int i = 0; i < NHW; i++) {
    unsigned long long v = 0;
    if (hw_on && hw_fd[i] >= 0 && read(hw_fd[i], &v, sizeof v) != (ssize_t)sizeof v)
      v = 0;
    out[i] = v;
  }
}

int __s2s_prof_enter(int r)
{
  int d = depth;
  if (d < MAX_DEPTH) {
    stack[d].region = r;
    stack[d].child = 0;
    if (hw_on) {
      memset(stack[d].hw_child, 0, sizeof stack[d].hw_child);
      hw_read(stack[d].hw0);
    }
    stack[d].t0 = now();
  }
  depth = d + 1;
  return d;
}

void __s2s_prof_exit(int r, int d)
{
  double t = now();
  if (d < 0 || d >= MAX_DEPTH || r < 0 || r >= S2S_PROF_NREGIONS) {
    depth = d < 0 ? 0 : d;
    return;
  }
  struct region *g = &regions[r];
  if (depth != d + 1 || stack[d].region != r)
    __atomic_add_fetch(&g->unbalanced, 1, __ATOMIC_RELAXED);
  struct frame *f = &stack[d];
  double elapsed = t - f->t0;
  atomic_add(&g->incl_s, elapsed);
  atomic_add(&g->self_s, elapsed - f->child);
  __atomic_add_fetch(&g->calls, 1, __ATOMIC_RELAXED);
  if (d > 0)
    stack[d - 1].child += elapsed;
  if (hw_on) {
    unsigned long long hw1[NHW];
    hw_read(hw1);
    for (int i = 0; i < NHW; i++) {
      unsigned long long delta = hw1[i] - f->hw0[i];
      __atomic_add_fetch(&g->hw[i], delta - f->hw_child[i], __ATOMIC_RELAXED);
      if (d > 0)
        stack[d - 1].hw_child[i] += delta;
    }
  }
  depth = d;
}

void __s2s_prof_params(int r, int n, const long long *values)
{
  if (r < 0 || r >= S2S_PROF_NREGIONS)
    return;
  struct region *g = &regions[r];
  g->entries++;
  if (n > MAX_PARAMS) {
    g->overflow = 1;
    return;
  }
  g->nparams = n;
  for (int t = 0; t < g->ntuples; t++)
    if (n == 0 || memcmp(g->tuples[t], values, (size_t)n * sizeof *values) == 0) {
      g->tuple_count[t]++;
      return;
    }
  if (g->ntuples == MAX_TUPLES) {
    g->overflow = 1;
    return;
  }
  if (n > 0)
    memcpy(g->tuples[g->ntuples], values, (size_t)n * sizeof *values);
  g->tuple_count[g->ntuples++] = 1;
}

#ifdef __linux__
static int open_counter(unsigned type, unsigned long long config)
{
  struct perf_event_attr a;
  memset(&a, 0, sizeof a);
  a.size = sizeof a;
  a.type = type;
  a.config = config;
  a.exclude_kernel = 1;
  a.exclude_hv = 1;
  a.inherit = 1;
  return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
}
#endif

static void hw_setup(void)
{
  const char *want = getenv("S2S_PROF_HWC");
  if (!want || !*want || strcmp(want, "0") == 0)
    return;
#ifdef __linux__
  unsigned types[NHW] = {PERF_TYPE_HARDWARE, PERF_TYPE_HARDWARE, PERF_TYPE_HARDWARE, PERF_TYPE_HARDWARE,
                         PERF_TYPE_HW_CACHE};
  unsigned long long configs[NHW] = {
      PERF_COUNT_HW_CPU_CYCLES, PERF_COUNT_HW_INSTRUCTIONS, PERF_COUNT_HW_CACHE_REFERENCES,
      PERF_COUNT_HW_CACHE_MISSES,
      PERF_COUNT_HW_CACHE_L1D | (PERF_COUNT_HW_CACHE_OP_READ << 8) | (PERF_COUNT_HW_CACHE_RESULT_MISS << 16)};
  int opened = 0;
  for (int i = 0; i < NHW; i++) {
    hw_fd[i] = open_counter(types[i], configs[i]);
    if (hw_fd[i] >= 0)
      opened++;
    else if (!hw_why[0])
      snprintf(hw_why, sizeof hw_why, "perf_event_open: %s", strerror(errno));
  }
  hw_on = opened > 0;
  if (!hw_on && !hw_why[0])
    snprintf(hw_why, sizeof hw_why, "no counter could be opened");
#else
  snprintf(hw_why, sizeof hw_why, "hardware counters need Linux perf_event_open");
#endif
}

__attribute__((constructor)) static void s2s_prof_start(void)
{
  hw_setup();
  /* What one enter/exit pair costs, to tell the user how much the timers add. */
  double t0 = now();
  for (int i = 0; i < 1000; i++) {
    int d = __s2s_prof_enter(0);
    __s2s_prof_exit(0, d);
  }
  timer_cost_s = (now() - t0) / 1000;
  memset(&regions[0], 0, sizeof regions[0]);
}

__attribute__((destructor)) static void s2s_prof_finish(void)
{
  const char *base = getenv("S2S_PROF_OUT");
  if (!base || !*base)
    return;
  char path[4096];
  snprintf(path, sizeof path, "%s.%ld", base, (long)getpid());
  FILE *f = fopen(path, "w");
  if (!f)
    return;
  fprintf(f, "s2s-prof 1\n");
  fprintf(f, "timer_cost_s %.9g\n", timer_cost_s);
  fprintf(f, "hw %d %s\n", hw_on, hw_on ? "-" : (hw_why[0] ? hw_why : "not requested"));
  for (int i = 0; i < NHW; i++)
    fprintf(f, "hw_counter %d %d\n", i, hw_fd[i] >= 0);
  for (int r = 0; r < S2S_PROF_NREGIONS; r++) {
    struct region *g = &regions[r];
    fprintf(f, "region %d %llu %.9g %.9g %llu %llu\n", r, g->calls, g->self_s, g->incl_s, g->unbalanced,
            g->entries);
    if (hw_on)
      fprintf(f, "region_hw %d %llu %llu %llu %llu %llu\n", r, g->hw[0], g->hw[1], g->hw[2], g->hw[3], g->hw[4]);
    for (int t = 0; t < g->ntuples; t++) {
      fprintf(f, "params %d %llu", r, g->tuple_count[t]);
      for (int p = 0; p < g->nparams; p++)
        fprintf(f, " %lld", g->tuples[t][p]);
      fprintf(f, "\n");
    }
    if (g->overflow)
      fprintf(f, "params_overflow %d\n", r);
  }
  for (int k = 0; k < S2S_PROF_NCOUNTERS; k++)
    if (__s2s_prof_n[k])
      fprintf(f, "count %d %llu\n", k, __s2s_prof_n[k]);
  for (int k = 0; k < S2S_PROF_NBYTES; k++)
    if (__s2s_prof_b[k])
      fprintf(f, "bytes %d %llu\n", k, __s2s_prof_b[k]);
  fclose(f);
}
