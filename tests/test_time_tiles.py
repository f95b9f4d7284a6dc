"""Time tiles for stencils: a skewed band whose point loops run one statement of the time step at
a time, each innermost loop a vector loop (statement_split.py), chosen over the user's vectorized
loops where the data a time step sweeps exceed this core's share of the largest cache that streams
much faster than memory (time_tiles.py): on one thread, and under threads as a wavefront of tiles
where its code can be checked (else the parallel loops of each time step). The outputs are bit for bit those of the user's loops: the
split reorders whole statement instances, never an operation inside one."""
from __future__ import annotations

import os
import random
import subprocess

import pytest

from c_build import optimized_and_both_outputs, outputs_of_both_builds
from frontends.c import lift_c_file
from s2s.analysis import compute_dependences, find_scops
from s2s.driver.pipeline import PipelineOptions, optimize_c_file
from s2s.schedule.pluto import PlutoScheduler
from s2s.schedule.statement_split import statement_split
from s2s.schedule.tree import rows_map
from s2s.tuning.recipe import RecipeBook, ScopRecipe
from s2s.transforms.decisions import Step
from s2s.transforms.time_tiles import FastCache

# Explicit diffusion with a 9-point Laplacian and a heat source into a second buffer, copied
# back each step: 256 MiB of declared arrays, run at small sizes.
HEAT = """#include <stdio.h>
#define N 4096
/* explicit diffusion with a 9-point Laplacian and a heat source, two buffers: the new field is
   computed into v, then copied back to u */
static double u[N][N], v[N][N], q[N][N];
void diffuse(int steps, int n, double kappa, double u[N][N], double v[N][N], double q[N][N]) {
  for (int t = 0; t < steps; t++) {
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        v[i][j] = u[i][j] + kappa * (4.0 * (u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1])
                                     + u[i - 1][j - 1] + u[i - 1][j + 1] + u[i + 1][j - 1] + u[i + 1][j + 1]
                                     - 20.0 * u[i][j]) + q[i][j];
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        u[i][j] = v[i][j];
  }
}
int main(void) {
  int sizes[][2] = {{3, 5}, {7, 40}, {40, 133}};
  for (int s = 0; s < 3; s++) {
    int steps = sizes[s][0], n = sizes[s][1];
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) {
        u[i][j] = ((i * 37 + j * 11) % 101) / 101.0;
        q[i][j] = (i == n / 2 && j == n / 3) ? 1.0 : 0.0;
      }
    diffuse(steps, n, 0.05, u, v, q);
    for (int i = 0; i < n; i += 3)
      for (int j = 0; j < n; j += 5)
        printf("%a\\n", u[i][j]);
  }
  return 0;
}
"""

# Acoustic waves on a staggered grid (fdtd-2d's shape, in floats): a boundary row, two velocity
# fields, then the pressure from their divergence.
WAVE = """#include <stdio.h>
#define NX 3000
#define NY 3000
/* acoustic waves on a staggered grid: velocities from the pressure's gradient, then the
   pressure from the velocities' divergence; a source drives the first row */
static float p[NX][NY], vx[NX][NY], vy[NX][NY], src[1000];
void propagate(int steps, int nx, int ny, float c, float rho, float p[NX][NY], float vx[NX][NY],
               float vy[NX][NY], const float src[1000]) {
  for (int t = 0; t < steps; t++) {
    for (int j = 0; j < ny; j++)
      p[0][j] = src[t];
    for (int i = 0; i < nx - 1; i++)
      for (int j = 0; j < ny; j++)
        vx[i][j] = vx[i][j] - rho * (p[i + 1][j] - p[i][j]);
    for (int i = 0; i < nx; i++)
      for (int j = 0; j < ny - 1; j++)
        vy[i][j] = vy[i][j] - rho * (p[i][j + 1] - p[i][j]);
    for (int i = 1; i < nx; i++)
      for (int j = 1; j < ny; j++)
        p[i][j] = p[i][j] - c * (vx[i][j] - vx[i - 1][j] + vy[i][j] - vy[i][j - 1]);
  }
}
int main(void) {
  int sizes[][3] = {{2, 4, 6}, {9, 33, 17}, {30, 70, 129}};
  for (int s = 0; s < 3; s++) {
    int steps = sizes[s][0], nx = sizes[s][1], ny = sizes[s][2];
    for (int t = 0; t < steps; t++)
      src[t] = (t % 7) * 0.25f;
    for (int i = 0; i < nx; i++)
      for (int j = 0; j < ny; j++) {
        p[i][j] = ((i * 13 + j * 7) % 31) / 31.0f;
        vx[i][j] = vy[i][j] = 0.0f;
      }
    propagate(steps, nx, ny, 0.3f, 0.2f, p, vx, vy, src);
    for (int i = 0; i < nx; i += 2)
      for (int j = 0; j < ny; j += 3)
        printf("%a %a %a\\n", p[i][j], vx[i][j], vy[i][j]);
  }
  return 0;
}
"""

# A relaxation in place through a scratch array: a point's new value feeds the next row's and
# the next column's first statement within the same sweep.
RELAX = """#include <stdio.h>
#define N 2048
/* a relaxation sweep in place: each point's new value feeds its neighbours below and to the
   right within the same sweep, through a scratch array */
static double a[N][N], b[N][N];
void relax(int steps, int n, double a[N][N], double b[N][N]) {
  for (int t = 0; t < steps; t++)
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++) {
        b[i][j] = 0.25 * (a[i - 1][j] + a[i][j - 1] + a[i][j] + a[i][j + 1]);
        a[i][j] = b[i][j] + 0.125 * b[i - 1][j];
      }
}
int main(void) {
  int sizes[][2] = {{3, 5}, {7, 40}, {20, 101}};
  for (int s = 0; s < 3; s++) {
    int steps = sizes[s][0], n = sizes[s][1];
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++)
        a[i][j] = b[i][j] = ((i * 37 + j * 11) % 101) / 101.0;
    relax(steps, n, a, b);
    for (int i = 0; i < n; i += 3)
      for (int j = 0; j < n; j += 5)
        printf("%a\\n", a[i][j]);
  }
  return 0;
}
"""


def _line(result, function: str) -> str:
    return next(ln for ln in result.report if f": {function}: SCoP" in ln)


@pytest.fixture
def server_cache(monkeypatch):
    """A core's share of the last-level cache as on most servers (16 MiB): HEAT's and WAVE's
    data exceed it whatever the host's caches are (some EPYCs give one core 240 MiB)."""
    import s2s.transforms.machine_options as machine_options

    monkeypatch.setattr(machine_options, "fast_cache", lambda topo, profile: FastCache(16 << 20, "L3"))


@pytest.mark.parametrize("program, function", [(HEAT, "diffuse"), (WAVE, "propagate")])
def test_time_steps_beyond_the_cache_are_tiled_with_their_statements_apart(tmp_path, server_cache, program, function):
    result, ref, out = optimized_and_both_outputs(tmp_path / "stencil.c", program, "c")
    line = _line(result, function)
    assert "its point loops one statement at a time" in line and "tiles" in line, line
    assert out == ref


def test_under_threads_the_time_tiles_run_as_a_checked_wavefront(tmp_path, server_cache):
    result, ref, out = optimized_and_both_outputs(tmp_path / "stencil.c", HEAT, "openmp")
    line = _line(result, "diffuse")
    assert "wavefront of tiles, checked exactly" in line and "one statement at a time" in line, line
    assert out == ref


def test_under_threads_a_stencil_without_a_tiled_band_keeps_its_parallel_loops(tmp_path, server_cache):
    result, ref, out = optimized_and_both_outputs(tmp_path / "stencil.c", WAVE, "openmp")
    assert "original order kept instead of skewed tiles" in _line(result, "propagate"), result.report
    assert out == ref


def test_under_threads_time_tiles_run_as_a_wavefront(tmp_path, monkeypatch):
    """fdtd-2d's time tiles, checked as a wavefront, run on two threads (the work thresholds are
    off in tests), with the arrays beyond a last-level cache of 1 MiB."""
    from polybench.registry import KERNELS, SUITE_ROOT, kernel_source
    import s2s.transforms.machine_options as machine_options

    monkeypatch.setattr(machine_options, "fast_cache", lambda topo, profile: FastCache(1 << 20, "L3"))
    source = kernel_source(KERNELS["fdtd-2d"])
    flags = [f"-I{SUITE_ROOT / 'utilities'}", f"-I{source.parent}", "-DTMAX=12", "-DNX=300", "-DNY=340",
             "-DPOLYBENCH_DUMP_ARRAYS", "-DPOLYBENCH_DUMP_FULL_PRECISION"]
    result = optimize_c_file(str(source), flags, PipelineOptions(mode="pluto", target="openmp"))
    line = _line(result, "kernel_fdtd_2d")
    assert "one statement at a time" in line and "wavefront of tiles" in line, line
    generated = tmp_path / "fdtd.c"
    generated.write_text(result.source)
    outputs = []
    for src, extra in ((source, []), (generated, ["-fopenmp"])):
        exe = tmp_path / f"{len(outputs)}.exe"
        subprocess.run(["cc", "-O2", "-ffp-contract=off", *flags, *extra, str(src),
                        str(SUITE_ROOT / "utilities" / "polybench.c"), "-o", str(exe), "-lm"], check=True)
        run = subprocess.run([str(exe)], capture_output=True, text=True, check=True,
                             env={**os.environ, "OMP_NUM_THREADS": "2"})
        outputs.append(run.stderr)
    assert outputs[0] == outputs[1] and "begin dump" in outputs[0]


def test_time_steps_within_the_cache_keep_the_users_loops(tmp_path):
    small = HEAT.replace("#define N 4096", "#define N 160")
    result, ref, out = optimized_and_both_outputs(tmp_path / "small.c", small, "c")
    line = _line(result, "diffuse")
    assert "left as is" in line and "of data stay in this core's" in line, line
    assert out == ref


# A 5-point diffusion on arrays the caller allocates, of a size known only at run time.
HEAT_ALLOCATED = """
#include <stdio.h>
#include <stdlib.h>
void diffuse(int steps, int n, double kappa, double (*u)[n], double (*v)[n]) {
  for (int t = 0; t < steps; t++) {
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        v[i][j] = u[i][j] + kappa * (u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1] - 4.0 * u[i][j]);
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        u[i][j] = v[i][j];
  }
}
int main(void) {
  for (int n = 57; n <= 400; n += 343) {
    double (*u)[n] = malloc(sizeof(double) * n * n), (*v)[n] = malloc(sizeof(double) * n * n);
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++)
        u[i][j] = v[i][j] = ((i * 37 + j * 11) % 101) / 101.0;
    diffuse(9, n, 0.1, u, v);
    for (int i = 0; i < n; i += 3)
      for (int j = 0; j < n; j += 5)
        printf("%a\\n", u[i][j]);
    free(u); free(v);
  }
  return 0;
}
"""


def test_time_steps_of_a_size_known_only_at_run_time_are_tiled_where_they_leave_the_cache(tmp_path, monkeypatch):
    """A test at run time chooses: the time tiles for 400 x 400 (2.4 MiB, beyond a last-level
    cache of 1 MiB), the user's loops for 57 x 57; both print the user's results."""
    import s2s.transforms.machine_options as machine_options

    monkeypatch.setattr(machine_options, "fast_cache", lambda topo, profile: FastCache(1 << 20, "L3"))
    result, ref, out = optimized_and_both_outputs(tmp_path / "allocated.c", HEAT_ALLOCATED, "c")
    line = _line(result, "diffuse")
    assert "one statement at a time" in line and "only where its data exceed 1.0 MiB (run-time test)" in line, line
    assert "> 1048576.0" in result.source
    assert out == ref
    # (under threads, the parallel loops of each time step, whatever the size)
    threaded, ref, out = optimized_and_both_outputs(tmp_path / "threads.c", HEAT_ALLOCATED, "openmp")
    assert "original order kept instead of skewed tiles" in _line(threaded, "diffuse")
    assert "1048576.0" not in threaded.source and out == ref


def _band(tmp_path, program: str):
    path = tmp_path / "k.c"
    path.write_text(program)
    unit, _ = lift_c_file(str(path), [])
    function = next(f for f in unit.functions if f.name != "main")
    (scop,) = find_scops(function)
    deps = compute_dependences(scop)
    rows = PlutoScheduler(scop, deps).schedule().rows
    first = next(k for k, r in enumerate(rows) if r.kind == "hyperplane" and r.band == 0)
    members = [r for r in rows if r.kind == "hyperplane" and r.band == 0]
    return scop, deps, rows[:first], members


def test_a_later_statement_that_feeds_an_earlier_one_within_a_time_step_is_not_split(tmp_path):
    scop, deps, outer, members = _band(tmp_path, RELAX)
    assert statement_split(scop, scop.statements, rows_map(scop, outer + members), len(outer), deps.validity) is None
    scop, deps, outer, members = _band(tmp_path, HEAT)
    split = statement_split(scop, scop.statements, rows_map(scop, outer + members), len(outer), deps.validity)
    assert split is not None and split.parallel == (True, True)
    # (and tiled without its gain checks, the relaxation keeps its fused point loops)
    path = tmp_path / "relax.c"
    path.write_text(RELAX)
    result = optimize_c_file(str(path), [], PipelineOptions(mode="pluto", target="c", profitability=False))
    assert "one statement at a time" not in _line(result, "relax")
    ref, out = outputs_of_both_builds(path, result.source, openmp=False)
    assert out == ref


def test_the_split_is_a_recipe_step(tmp_path):
    path = tmp_path / "heat.c"
    path.write_text(HEAT)
    options = PipelineOptions(mode="pluto", target="c", report=True)
    first = optimize_c_file(str(path), [], options)
    (recipe,) = [r for r in first.recipes if r.function == "diffuse"]
    (split,) = [s for s in recipe.steps if s.kind == "split-statements"]
    assert split.values == {"enabled": True}
    steps = tuple(Step.of(s.kind, s.target, enabled=False) if s is split else s for s in recipe.steps)
    saved = tmp_path / "r.json"
    RecipeBook(recipes=[ScopRecipe(recipe.scop, recipe.function, recipe.line, steps)]).save(saved)
    # (on one thread the tiles pay only with the split: without it the user's loops stay)
    again = optimize_c_file(str(path), [], PipelineOptions(mode="pluto", target="c", report=True, recipes=str(saved)))
    assert "skewed tiles would not vectorize" in _line(again, "diffuse")
    unchecked = PipelineOptions(mode="pluto", target="c", report=True, recipes=str(saved), profitability=False)
    tiled = optimize_c_file(str(path), [], unchecked)
    line = _line(tiled, "diffuse")
    assert "tiles" in line and "one statement at a time" not in line, line
    ref, out = outputs_of_both_builds(path, tiled.source, openmp=False)
    assert out == ref


def _random_time_steps(seed: int) -> str:
    """A time loop over 2 to 4 sweeps, each writing one of four arrays from shifted reads of any
    of them (in place or not), its loops over a margin of 1 or 2."""
    r = random.Random(seed)
    sweeps = []
    for _ in range(r.randint(2, 4)):
        reads = " + ".join(f"{r.choice(['0.25', '0.5', '0.125'])} * {r.choice('abcd')}[i + {r.choice([-1, 0, 1])}]"
                           f"[j + {r.choice([-1, 0, 1])}]" for _ in range(r.randint(1, 4)))
        lo, hi = r.choice([1, 2]), r.choice([1, 2])
        sweeps.append(f"    for (int i = {lo}; i < n - {hi}; i++)\n      for (int j = {lo}; j < n - {hi}; j++)\n"
                      f"        {r.choice('abcd')}[i][j] = {reads};")
    body = "\n".join(sweeps)
    return f"""#include <stdio.h>
#define N 3000
static double a[N][N], b[N][N], c[N][N], d[N][N];
void step(int steps, int n, double a[N][N], double b[N][N], double c[N][N], double d[N][N]) {{
  for (int t = 0; t < steps; t++) {{
{body}
  }}
}}
int main(void) {{
  int sizes[][2] = {{{{2, 7}}, {{5, 37}}, {{13, 70}}}};
  for (int s = 0; s < 3; s++) {{
    int steps = sizes[s][0], n = sizes[s][1];
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) {{
        a[i][j] = ((i * 37 + j * 11) % 101) / 101.0; b[i][j] = ((i * 7 + j * 5) % 31) / 31.0;
        c[i][j] = ((i + 3 * j) % 13) / 13.0; d[i][j] = ((5 * i + j) % 17) / 17.0;
      }}
    step(steps, n, a, b, c, d);
    for (int i = 0; i < n; i += 2)
      for (int j = 0; j < n; j += 3)
        printf("%a %a %a %a\\n", a[i][j], b[i][j], c[i][j], d[i][j]);
  }}
  return 0;
}}
"""


@pytest.mark.parametrize("seed", range(8))
def test_random_time_steps_give_the_users_results(tmp_path, seed):
    """Random sweeps per time step, split where legal (with the gain checks and without them),
    bit for bit the user's loops' results."""
    path = tmp_path / "steps.c"
    path.write_text(_random_time_steps(seed))
    for profitability in (True, False):
        result = optimize_c_file(str(path), [], PipelineOptions(mode="pluto", target="c", profitability=profitability))
        ref, out = outputs_of_both_builds(path, result.source, openmp=False)
        assert out == ref, _line(result, "step")


def _host(l2_bandwidth, l3_bandwidth, dram_bandwidth):
    """A two-core host with 2 MiB of L2 per core and 105 MiB of L3 shared by both, and an
    ``s2s machine`` profile of it with these one-thread bandwidths (GB/s); None: not measured."""
    from s2s.perf.machine import MachineProfile
    from s2s.perf.topology import CacheLevel, Topology

    topo = Topology(cpu_model="test", vendor=None, arch="x86_64", isa=("avx2",), sockets=1, cores=2,
                    threads_per_core=1, logical_cpus=2, usable_cpus=2, numa_nodes=1,
                    caches=(CacheLevel(1, "Data", 48 << 10, 64, 12, 2, 1),
                            CacheLevel(2, "Unified", 2 << 20, 64, 16, 2, 1),
                            CacheLevel(3, "Unified", 105 << 20, 64, 15, 1, 2)))
    roofs = {level: speed * 1e9 for level, speed in (("L2", l2_bandwidth), ("L3", l3_bandwidth),
                                                      ("DRAM", dram_bandwidth)) if speed is not None}
    return topo, MachineProfile({"topology": topo.to_json(), "threads": {"1": 1}, "roofs": {"1": roofs}})


def test_time_tiles_must_leave_the_largest_cache_that_streams_much_faster_than_memory():
    """A last-level cache as slow as memory from one core (a server's mesh: 13 against 10 GB/s)
    is no cache time tiles need to leave: the L2 is; a fast one (40 GB/s) is; without a
    measurement, the last-level cache is, as sysfs gives it."""
    from s2s.transforms.machine_options import fast_cache

    slow_l3, fast_l3 = _host(100, 13, 10), _host(100, 40, 10)
    assert fast_cache(*slow_l3) == FastCache(2 << 20, "L2")
    assert fast_cache(*fast_l3) == FastCache(int(52.5 * 2**20), "L3")
    assert fast_cache(slow_l3[0], None) == FastCache(int(52.5 * 2**20), "L3")
    assert fast_cache(*_host(100, None, 10)) == FastCache(int(52.5 * 2**20), "L3")
    assert fast_cache(None, None).bytes == 8 << 20
