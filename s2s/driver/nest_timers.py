"""Timers around the loop nests of a file: the build the autotuner times per loop nest.

With ``--s2s-time-nests`` (``S2S_TIME_NESTS=1``) every top-level statement of a function that
holds a SCoP, rewritten or kept as written, is wrapped in two reads of the monotonic clock; the
time and the number of executions add up per statement, and at exit the program appends one line
per timed statement to the file ``$S2S_NEST_TIMES`` names (nothing when it is unset):

    <SCoP ids, comma-separated> <nanoseconds> <executions>

The runtime is a few lines of C put at the top of the generated file, its library functions
declared under names of their own (``__asm__`` labels), so that no header is included before the
user's (whose feature macros must come first) and no declaration can clash with the user's. The
counters are added atomically: a function may run on several threads at once. A statement with a
``return`` or anything kept opaque (a ``goto`` may leave it) is not timed.
"""
from __future__ import annotations

from backends.c import Replacement, line_directive
from s2s.ir import Opaque, Return, walk
from s2s.perf.instrument import bound_pragmas, original_text

ENVIRONMENT = "S2S_NEST_TIMES"

_RUNTIME = """/* s2s: timers around the loop nests (--s2s-time-nests); written to $S2S_NEST_TIMES at exit */
struct __s2s_timespec {{ long tv_sec; long tv_nsec; }};
typedef struct __s2s_file __s2s_file;
extern int __s2s_clock_gettime(int, struct __s2s_timespec *) __asm__("clock_gettime");
extern char *__s2s_getenv(const char *) __asm__("getenv");
extern __s2s_file *__s2s_fopen(const char *, const char *) __asm__("fopen");
extern int __s2s_fprintf(__s2s_file *, const char *, ...) __asm__("fprintf");
extern int __s2s_fclose(__s2s_file *) __asm__("fclose");
static unsigned long long __s2s_nest_ns[{n}], __s2s_nest_runs[{n}];
static const char *const __s2s_nest_ids[{n}] = {{{ids}}};
static unsigned long long __s2s_nest_clock(void)
{{
  struct __s2s_timespec t;
  __s2s_clock_gettime(1, &t);
  return (unsigned long long)t.tv_sec * 1000000000ull + (unsigned long long)t.tv_nsec;
}}
__attribute__((destructor)) static void __s2s_nest_report(void)
{{
  const char *path = __s2s_getenv("{env}");
  __s2s_file *f;
  int k;
  if (!path || !(f = __s2s_fopen(path, "a")))
    return;
  for (k = 0; k < {n}; k++)
    __s2s_fprintf(f, "%s %llu %llu\\n", __s2s_nest_ids[k], __s2s_nest_ns[k], __s2s_nest_runs[k]);
  __s2s_fclose(f);
}}
"""


class NestTimers:
    """The timed statements of one file, numbered as they are wrapped."""

    def __init__(self) -> None:
        self.labels: list[str] = []

    def wrapped(self, body: str, scops: list[str]) -> str:
        """``body`` (C text of one statement) with a timer of its own, counted for ``scops``."""
        k = len(self.labels)
        self.labels.append(",".join(scops))
        return (f"{{ unsigned long long __s2s_t{k} = __s2s_nest_clock();\n{body}\n"
                f"__atomic_fetch_add(&__s2s_nest_ns[{k}], __s2s_nest_clock() - __s2s_t{k}, __ATOMIC_RELAXED); "
                f"__atomic_fetch_add(&__s2s_nest_runs[{k}], 1ull, __ATOMIC_RELAXED); }}")

    def runtime(self) -> str:
        """The C text that goes before everything ('' when nothing is timed)."""
        if not self.labels:
            return ""
        return _RUNTIME.format(n=len(self.labels), ids=", ".join(f'"{label}"' for label in self.labels),
                               env=ENVIRONMENT)


def timeable(node) -> bool:
    """Whether a timer around ``node`` sees every way out of it."""
    return not any(isinstance(n, (Return, Opaque)) for n in walk(node))


def scops_by_statement(body_children, outcomes) -> dict[int, list[str]]:
    """By ``id()`` of each top-level statement of the user's function, the ids of the SCoPs with
    statements in it (``outcomes`` of ``regenerate_scops``)."""
    spans = {node: o.scop_id for o in outcomes if o.scop_id for node in o.nodes}
    out: dict[int, list[str]] = {}
    for child in body_children:
        ids = list(dict.fromkeys(spans[n.id] for n in walk(child) if n.id in spans))
        if ids:
            out[id(child)] = ids
    return out


def kept_statement(text: str, path: str, node, timers: NestTimers, scops: list[str]) -> Replacement:
    """The replacement that times a statement kept as the user wrote it; a ``#pragma`` bound to
    its loop stays right before the loop, inside the timer."""
    body = original_text(text, node.origin)
    pragma = bound_pragmas(text, node.origin)
    if pragma is None:
        return Replacement(node.origin, timers.wrapped(body, scops))
    pragmas = text[pragma.start:node.origin.start].rstrip()
    whole = type(node.origin)(node.origin.file, pragma.start, node.origin.end, pragma.line, pragma.column)
    inner = (line_directive(pragma.line, path) + "\n" + pragmas + "\n" + line_directive(node.origin.line, path)
             + "\n" + body)
    return Replacement(whole, timers.wrapped(inner, scops))
