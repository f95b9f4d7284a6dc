"""The OpenMP back end: C plus ``#pragma omp`` on Maps (parallel loops and SIMD loops)."""
from __future__ import annotations

from backends.c.printer import CPrinter
from s2s.ir import TEAM_PAYS, TESTED_BEFORE, Array, Expr, For, Map, Schedule, expr as ex, walk
from s2s.ir.rewrite import fresh_name


# Starting and joining a parallel region costs a few microseconds: as much as a few thousand
# iterations of a loop body without a loop.
MIN_FLAT_PARALLEL_ITERATIONS = 4096


# A parallel region runs on the threads of a team only while the cores look free: the thread
# that starts it waited for a CPU for less than this share of the time it was runnable (Linux
# schedstat of that thread, read at most every CONTENTION_PERIOD_S; while the cores are busy the
# next look comes after twice the last wait, up to CONTENTION_BACKOFF_MAX_S). On a busy machine
# a region's threads are descheduled in turn and each barrier waits a scheduler slice for one:
# a team of one then does the work at the speed of the user's loops.
CONTENTION_SHARE = 0.1
CONTENTION_PERIOD_S = 0.02
CONTENTION_BACKOFF_MAX_S = 1.0
CORES_FREE = "s2s_cores_free"

# The threads of a team spin for a while after a region before they sleep (libgomp: some 300,000
# turns of a loop, a few milliseconds): a region that starts within this many seconds of the last
# one's start finds them awake.
TEAM_AWAKE_S = 0.001


def cores_free_helper() -> str:
    """The C function (file scope, built-in types only) that says whether the cores look free:
    1 where that cannot be read (no /proc, another system)."""
    return f"""
/* s2s: whether a parallel region may use its threads: the calling thread waited for a CPU less
   than {CONTENTION_SHARE:g} of the time it was runnable, since the last look (Linux schedstat) */
static int {CORES_FREE}(void)
{{
#ifdef __linux__
  /* (libc's functions under names of our own: no clash with the user's declarations) */
  extern int s2s_sys_open(const char *, int, ...) __asm__("open");
  extern long s2s_sys_read(int, void *, unsigned long) __asm__("read");
  extern int s2s_sys_close(int) __asm__("close");
  extern double omp_get_wtime(void);
  static __thread double next, backoff;
  static __thread int free_ = 1, seen;
  static __thread unsigned long long ran, waited;
  const double now = omp_get_wtime();
  if (now < next)
    return free_;
  char text[96];
  const int fd = s2s_sys_open("/proc/thread-self/schedstat", 0);
  const long n = fd < 0 ? -1 : s2s_sys_read(fd, text, sizeof text - 1);
  if (fd >= 0)
    s2s_sys_close(fd);
  if (n <= 0) {{
    next = now + 3600;   /* nothing to read: the threads are used */
    return free_ = 1;
  }}
  text[n] = 0;
  unsigned long long v[2] = {{0, 0}};
  const char *c = text;
  for (int f = 0; f < 2; f++) {{
    while (*c == ' ')
      c++;
    while (*c >= '0' && *c <= '9')
      v[f] = v[f] * 10 + (unsigned long long)(*c++ - '0');
  }}
  const unsigned long long d_ran = v[0] - ran, d_waited = v[1] - waited;
  if (!seen || d_ran + d_waited >= 1000000ULL) {{   /* (ns: judged on at least 1 ms runnable) */
    if (d_ran + d_waited > 0)
      free_ = (double)d_waited < {CONTENTION_SHARE!r} * (double)(d_ran + d_waited);
    ran = v[0];
    waited = v[1];
    seen = 1;
  }}
  backoff = free_ ? {CONTENTION_PERIOD_S!r} : (backoff < {CONTENTION_PERIOD_S!r} ? {CONTENTION_PERIOD_S!r} : backoff * 2 > {CONTENTION_BACKOFF_MAX_S!r} ? {CONTENTION_BACKOFF_MAX_S!r} : backoff * 2);
  next = now + backoff;
  return free_;
#else
  return 1;
#endif
}}
"""


def team_pays_helper() -> str:
    """The C function ``TEAM_PAYS`` (see s2s.ir.library): per calling thread, whose team it is."""
    return f"""
/* s2s: whether a parallel region, in a SCoP execution of `work` statement instances, is to run on
   the threads of its team: starting them pays from `start` instances, waking them once they sleep
   (no region began in the last {TEAM_AWAKE_S * 1e3:g} ms) from `wake`; and not while the cores are busy */
static int {TEAM_PAYS}(double work, double start, double wake)
{{
  extern double omp_get_wtime(void);
  static __thread int started;
  static __thread double last;
  const double now = omp_get_wtime();
  if (work < (!started ? start : now - last > {TEAM_AWAKE_S!r} ? wake : 0.0) || !{CORES_FREE}())
    return 0;
  started = 1;
  last = now;
  return 1;
}}
"""


class OpenMPPrinter(CPrinter):
    threads = True

    def parallel_if(self, team_if: Expr | None = None) -> str:
        """The clause that gives a parallel region a team of one where ``team_if`` does not hold,
        by default while the cores are busy."""
        if team_if is None:
            self.helpers[CORES_FREE] = cores_free_helper()
            return f" if({CORES_FREE}())"
        if team_if == TESTED_BEFORE:
            return ""
        self.define_checks(team_if)
        return f" if({self.expr(team_if)})"

    def define_checks(self, cond: Expr) -> None:
        super().define_checks(cond)
        if TEAM_PAYS in ex.calls(cond):
            self.helpers[CORES_FREE] = cores_free_helper()
            self.helpers[TEAM_PAYS] = team_pays_helper()

    def print_Map(self, node: Map, level: int) -> list[str]:
        if node.schedule is not Schedule.CPU_MULTICORE:
            return super().print_Map(node, level)
        trip = self.flat_parallel_trip(node)
        if isinstance(trip, int) and trip < MIN_FLAT_PARALLEL_ITERATIONS:
            return self.map_loop(node, level)
        # Versioned rather than `if(...)` clauses: with a false one the loop still runs through
        # the OpenMP runtime (a team of one, about 0.6 us a call, 15 us the first), outlined into
        # a function of its own, where the compiler knows less of its pointers.
        tests = []
        if isinstance(trip, ex.Expr):
            tests.append(ex.Binary(">=", trip, ex.Const(str(MIN_FLAT_PARALLEL_ITERATIONS))))
        if node.team_if is not None and node.team_if != TESTED_BEFORE:
            self.define_checks(node.team_if)
            tests.append(node.team_if)   # (last: it counts on the region to follow where it holds)
        parallel = self.map_with_copies(node, level + bool(tests)) if self.copied_arrays(node) else super().print_Map(
            node, level + bool(tests))
        if not tests:
            return parallel
        pad = self.pad(level)
        test = tests[0] if len(tests) == 1 else ex.Binary("&&", *tests)
        return ([pad + f"if ({self.expr(test)}) {{"] + parallel
                + [pad + "} else {"] + self.map_loop(node, level + 1) + [pad + "}"])

    def map_with_copies(self, node: Map, level: int) -> list[str]:
        """A parallel loop whose iterations each work on copies of their own of ``node.private``:
        one block of copies per thread, allocated before the region; in each iteration the
        array's name stands for the copy of the thread running it, and for the array itself in
        the last iteration, which so leaves there what the loop in order would (an array's
        elements are written in an iteration before they are read, which is what lets the
        iterations have copies at all). Without memory for the copies, the loop runs in order
        on the arrays themselves."""
        pad, inner = self.pad(level), self.pad(level + 1)
        taken = set(self.containers)
        copied = self.copied_arrays(node)
        shared = {a: fresh_name(f"s2s_shared_{a}", taken) for a in copied}
        copies = {a: fresh_name(f"s2s_copies_{a}", taken) for a in copied}
        arrays = {a: self.containers[a] for a in copied}
        if any(not isinstance(d, Array) or any(e is None for e in d.shape) for d in arrays.values()):
            return self.map_loop(node, level)   # (no size to copy: in order, which is correct)
        last = ex.minus_one(node.stop) if node.step == ex.Const("1") else ex.Binary(
            "+", node.start, ex.Binary("*", ex.Binary("/", ex.Binary("-", ex.Binary("-", node.stop, node.start),
                                                                       ex.Const("1")), node.step), node.step))
        out = [pad + "{", inner + "extern int omp_get_max_threads(void), omp_get_thread_num(void);"]
        views = []
        for a, data in arrays.items():
            t = data.dtype.spelling
            rows = "".join(f"[{self.expr(d)}]" for d in data.shape[1:])
            size = " * ".join(f"({self.expr(d)})" for d in data.shape)
            pointer = (lambda name: f"{t} (*{name}){rows}") if rows else (lambda name: f"{t} *{name}")
            out += [inner + f"{pointer('const ' + shared[a])} = {a};",
                    inner + f"{t} *const {copies[a]} = ({t} *)__builtin_malloc(sizeof({t}) * {size} * "
                            f"omp_get_max_threads());"]
            own = f"{copies[a]} + (unsigned long)omp_get_thread_num() * {size}"
            views.append(f"{pointer('const ' + a)} = {node.var} == {self.expr(last)} ? {shared[a]} : "
                         f"({pointer('')}) ({own});")
        allocated = " && ".join(f"{copies[a]} != 0" for a in copied)
        loop = self.map_loop(node, level + 2)
        loop = loop[:1] + [self.pad(level + 3) + line for line in views] + loop[1:]
        out += [inner + f"if ({allocated}) {{"] + self.map_pragmas(node, level + 2) + loop
        out += [inner + "} else {"] + self.map_loop(node, level + 2) + [inner + "}"]
        out += [inner + f"__builtin_free({copies[a]});" for a in copied] + [pad + "}"]
        return out

    def copied_arrays(self, node: Map) -> list[str]:
        """The arrays of ``node.private``: a copy of each per thread, on the heap (its scalars
        are the ``lastprivate`` variables of the pragma)."""
        return [a for a in node.private if isinstance(self.containers.get(a), Array)]

    def flat_parallel_trip(self, node: Map) -> int | ex.Expr | None:
        """The trip count of a parallel loop with no loop inside (an ``int`` when constant); None
        for other loops. A parallel region pays for such a loop only beyond a few thousand
        iterations."""
        if node.schedule is not Schedule.CPU_MULTICORE or any(isinstance(n, (For, Map)) for n in walk(node.body)):
            return None
        start, stop = _int(node.start), _int(node.stop)
        if start is not None and stop is not None:
            return stop - start
        return node.stop if start == 0 else ex.Binary("-", node.stop, node.start)

    def map_pragmas(self, node: Map, level: int) -> list[str]:
        pad = self.pad(level)
        if node.schedule is Schedule.CPU_MULTICORE:
            clauses = ""
            private = self.private_variables(node)
            if private:
                clauses += f" private({', '.join(private)})"
            last = [a for a in node.private if a not in self.copied_arrays(node)]
            if last:
                clauses += f" lastprivate({', '.join(last)})"
            clauses += _reduction_clauses(node)
            if node.omp_schedule is not None:
                clauses += f" schedule({node.omp_schedule})"
            elif self.triangular(node):
                clauses += " schedule(static, 1)"  # cyclic: inner trip counts vary with the index
            # (a region with a test of its own is versioned on it: print_Map)
            return [pad + "#pragma omp parallel for" + clauses + (self.parallel_if() if node.team_if is None else "")]
        if node.schedule is Schedule.SIMD:
            return [pad + "#pragma omp simd" + _reduction_clauses(node)]
        return []

    def private_variables(self, node: Map) -> list[str]:
        """Variables each iteration needs its own copy of: loop variables of inner loops that do
        not declare them. A scalar the body writes stays shared: the loop was proven parallel
        with it (verify_parallel.py), so at most one iteration touches it, and its value comes
        in from before the loop and goes on after it (a sum over a loop outside, updated in the
        first iteration of this one only)."""
        declared = {n.var for n in walk(node.body) if isinstance(n, (For, Map)) and getattr(n, "declares_var", True)}
        out: list[str] = []
        for n in walk(node.body):
            if isinstance(n, For) and not n.declares_var and n.var not in declared | {node.var, *out}:
                out.append(n.var)
        return out

    def triangular(self, node: Map) -> bool:
        return any(node.var in ex.names(n.cond) or node.var in ex.names(n.init)
                   for n in walk(node.body) if isinstance(n, For)) or any(
            node.var in ex.names(n.start) or node.var in ex.names(n.stop)
            for n in walk(node.body) if isinstance(n, Map))


def _int(e: ex.Expr) -> int | None:
    return e.int_value if isinstance(e, ex.Const) else None


def _reduction_clauses(node: Map) -> str:
    operators: dict[str, list[str]] = {}
    for name, op in node.reductions:
        operators.setdefault(op, []).append(name)
    return "".join(f" reduction({op}:{', '.join(names)})" for op, names in operators.items())
