"""What ``make CC=s2s-cc`` costs a build: a project built side by side with the plain compiler.

    python -m polybench.build_bench [PROJECT] [--jobs 2] [--repeat 3] [--cc gcc] [--target all]

PROJECT (default: tests/projects/toolkit, 30 C files, a few with loop nests) is copied to a
temporary directory and built from clean, in rounds that interleave the builds so that a change
in the machine's load falls on all of them alike:

* ``cc``: ``make -jJ CC=<cc>``;
* ``s2s-cc, first build``: ``make -jJ CC=s2s-cc`` with an empty cache of optimized files;
* ``s2s-cc, rebuild``: ``make clean`` and the same again, the cache now warm: a rebuild without
  changes (what ccache speeds up);
* ``cc, nothing to do`` and ``s2s-cc, nothing to do``: ``make`` again on the built tree.

For each: the median wall time and the median CPU time of the build's processes (user + system,
from the kernel's accounting of children), and their ratios to ``cc``'s. The CPU time is the
steadier figure on a shared machine.

s2s-cc's optimize steps run in a server process (``s2s.driver.optimize_server``) that s2s-cc
starts detached, out of reach of that accounting: here each s2s-cc build has a server directory
of its own, and once the build is done its server is stopped and the processor time it and its
children took (its start, its warm-up, every optimize step) is added to the build's CPU time.
``--server off`` measures the builds without one.
"""
from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_PROJECT = ROOT / "tests" / "projects" / "toolkit"


@dataclass
class Timing:
    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)

    def add(self, wall: float, cpu: float) -> None:
        self.wall.append(wall)
        self.cpu.append(cpu)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed_make(directory: Path, args: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds of every process it ran) of ``make ARGS`` in ``directory``."""
    cpu0, wall0 = _children_cpu(), time.perf_counter()
    proc = subprocess.run(["make", *args], cwd=directory, env=env, capture_output=True, text=True)
    wall, cpu = time.perf_counter() - wall0, _children_cpu() - cpu0
    if proc.returncode != 0:
        raise SystemExit(f"build_bench: make {' '.join(args)} failed in {directory}:\n{proc.stderr[-3000:]}")
    return wall, cpu


def timed_s2s_make(directory: Path, args: list[str], env: dict[str, str], server: bool) -> tuple[float, float]:
    """``timed_make`` of an s2s-cc build; with its optimize server (in the directory ``env``
    names), whose processor time is added once the server is stopped."""
    if not server:
        return timed_make(directory, args, {**env, "S2S_SERVER": "off"})
    from s2s.driver.optimize_server import stop_servers

    wall, cpu = timed_make(directory, args, env)
    return wall, cpu + stop_servers(env["S2S_SERVER_DIR"])


def s2s_cc() -> str:
    found = Path(sys.executable).with_name("s2s-cc")
    return str(found) if found.is_file() else (shutil.which("s2s-cc") or "s2s-cc")


def run(project: Path, jobs: int, repeat: int, cc: str, target: str, server: bool = True) -> dict[str, Timing]:
    timings = {name: Timing() for name in ("cc", "s2s-cc, first build", "s2s-cc, rebuild",
                                           "cc, nothing to do", "s2s-cc, nothing to do")}
    base_env = {k: v for k, v in os.environ.items() if not k.startswith("S2S_")}
    with tempfile.TemporaryDirectory(prefix="s2s-build-bench-") as tmp:
        work = Path(tmp) / project.name
        shutil.copytree(project, work, ignore=shutil.ignore_patterns("build", "*.o", "*.a"))
        make = [f"-j{jobs}", target]
        for n in range(repeat):
            cache = Path(tmp) / f"cache-{n}"
            servers = Path(tmp) / f"servers-{n}"
            servers.mkdir(mode=0o700)
            s2s_env = {**base_env, "S2S_CC": cc, "S2S_CACHE": str(cache), "S2S_SERVER_DIR": str(servers)}
            s2s_make = [*make, f"CC={s2s_cc()}"]
            timed_make(work, ["clean"], base_env)
            timings["cc"].add(*timed_make(work, [*make, f"CC={cc}"], base_env))
            timings["cc, nothing to do"].add(*timed_make(work, [*make, f"CC={cc}"], base_env))
            timed_make(work, ["clean"], base_env)
            timings["s2s-cc, first build"].add(*timed_s2s_make(work, s2s_make, s2s_env, server))
            timings["s2s-cc, nothing to do"].add(*timed_s2s_make(work, s2s_make, s2s_env, server))
            timed_make(work, ["clean"], base_env)
            timings["s2s-cc, rebuild"].add(*timed_s2s_make(work, s2s_make, s2s_env, server))
    return timings


def report(timings: dict[str, Timing], project: Path, jobs: int, repeat: int, cc: str, server: bool = True) -> str:
    base = timings["cc"]
    idle = timings["cc, nothing to do"]
    lines = [f"build of {project} with make -j{jobs}, median of {repeat} (wall s / CPU s; ratio to cc)"]
    for name, t in timings.items():
        ref = idle if "nothing to do" in name else base
        wall, cpu = statistics.median(t.wall), statistics.median(t.cpu)
        ratio = (f"{wall / statistics.median(ref.wall):5.2f}x / {cpu / statistics.median(ref.cpu):5.2f}x"
                 if statistics.median(ref.cpu) > 0 else "")
        lines.append(f"  {name:24s} {wall:7.2f} / {cpu:7.2f}   {ratio}")
    lines.append(f"  (cc: {cc}; s2s-cc: {s2s_cc()}, optimize server {'on' if server else 'off'})")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m polybench.build_bench", description=__doc__.split("\n\n")[0])
    ap.add_argument("project", nargs="?", type=Path, default=DEFAULT_PROJECT, help="a directory with a Makefile")
    ap.add_argument("--jobs", "-j", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--cc", default="gcc", help="the plain compiler, also s2s-cc's real one (default gcc)")
    ap.add_argument("--target", default="all", help="the make target (default all)")
    ap.add_argument("--server", choices=("on", "off"), default="on",
                    help="s2s-cc's optimize server (default on, as s2s-cc runs; its time counts)")
    ns = ap.parse_args(argv)
    if not (ns.project / "Makefile").is_file():
        ap.error(f"{ns.project} has no Makefile")
    timings = run(ns.project.resolve(), ns.jobs, ns.repeat, ns.cc, ns.target, ns.server == "on")
    sys.stdout.write(report(timings, ns.project, ns.jobs, ns.repeat, ns.cc, ns.server == "on"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
