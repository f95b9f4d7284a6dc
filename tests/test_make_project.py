"""s2s-cc as a drop-in compiler for a real Makefile project (tests/projects/calc).

The project has three library sources archived into a static library with ``ar``, a main program,
headers under include/, ``-D``/``-I`` flags, ``-MMD -MP`` dependency files, and a ``check`` target
that compares the program's output with expected.txt. We build it in two copies, one with
``make CC=<venv>/bin/s2s-cc`` and one with plain ``make`` (cc), and require:

* both ``make -j2 check`` pass, and s2s-cc never fell back (no ``s2s-cc: note:``);
* s2s-cc kept a generated file for every source (so the pipeline really ran);
* the two builds leave the same set of files (no temporaries left behind by s2s-cc);
* the .d files name the real sources and headers, exactly as cc's do (same targets and prerequisites);
* a second ``make`` is a no-op, and touching a header rebuilds exactly what cc's build rebuilds
  (``test_incremental_rebuilds``, on copies of its own).

tests/projects/grid passes ``-fopenmp`` only when compiling and links without ``CFLAGS``, as many
Makefiles do; its library, once s2s parallelizes it, needs the OpenMP runtime. ``make check`` must pass
through s2s-cc in pluto mode and in the default mode, linking the library as an archive and as objects
(``test_openmp_only_when_compiling``).
"""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from c_build import NOTE_PREFIX, PROJECTS_DIR, listing, plain_env, s2s_cc_path, s2s_env  # noqa: E402

PROJECT = PROJECTS_DIR / "calc"
SOURCES = ["src/vec.c", "src/stats.c", "src/rpn.c", "main.c"]
OBJECTS = ["build/vec.o", "build/stats.o", "build/rpn.o", "build/main.o"]

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make not installed")


def _env(base: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in base.items() if k not in ("CFLAGS", "CPPFLAGS", "LDFLAGS", "LDLIBS", "MAKEFLAGS", "MFLAGS")}
    return env


def _make(cwd: Path, args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(["make", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def _show(p: subprocess.CompletedProcess) -> str:
    return f"make {' '.join(p.args[1:])} -> {p.returncode}\n--- stdout ---\n{p.stdout[-4000:]}\n--- stderr ---\n{p.stderr[-4000:]}"


def _parse_deps(path: Path) -> dict[str, set[str]]:
    """{target: prerequisites} of a make dependency file (backslash continuations joined)."""
    text = path.read_text().replace("\\\n", " ")
    rules: dict[str, set[str]] = {}
    for line in text.splitlines():
        if ":" not in line or line.startswith("\t"):
            continue
        target, _, prereqs = line.partition(":")
        rules.setdefault(target.strip(), set()).update(prereqs.split())
    return rules


def _files(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()}


def _mtimes(root: Path, rels: list[str]) -> dict[str, int]:
    return {r: (root / r).stat().st_mtime_ns for r in rels}


@pytest.fixture(scope="module")
def builds(tmp_path_factory):
    """Both copies of the project built with ``make -j2 check`` (once for the whole module)."""
    root = tmp_path_factory.mktemp("calc")
    cc_dir, s2s_dir, keep = root / "with-cc", root / "with-s2s", root / "s2s-keep"
    shutil.copytree(PROJECT, cc_dir)
    shutil.copytree(PROJECT, s2s_dir)
    keep.mkdir()
    s2s = str(s2s_cc_path())
    cc_env = _env(plain_env())
    s2s_make_env = _env(s2s_env(keep, mode="identity"))
    cc_run = _make(cc_dir, ["-j2", "check"], cc_env)
    s2s_run = _make(s2s_dir, ["-j2", f"CC={s2s}", "check"], s2s_make_env)
    return {"cc_dir": cc_dir, "s2s_dir": s2s_dir, "keep": keep, "s2s": s2s, "cc_env": cc_env,
            "s2s_env": s2s_make_env, "cc_run": cc_run, "s2s_run": s2s_run}


def test_check_passes_with_cc(builds):
    assert builds["cc_run"].returncode == 0, _show(builds["cc_run"])
    assert "calc check: OK" in builds["cc_run"].stdout


def test_check_passes_with_s2s_cc(builds):
    run = builds["s2s_run"]
    assert run.returncode == 0, _show(run)
    assert "calc check: OK" in run.stdout
    assert builds["s2s"] in run.stdout, "make did not use s2s-cc"
    notes = [line for line in (run.stdout + run.stderr).splitlines() if NOTE_PREFIX in line]
    assert not notes, "s2s-cc fell back:\n" + "\n".join(notes)


def test_s2s_cc_kept_every_source(builds):
    assert builds["s2s_run"].returncode == 0, _show(builds["s2s_run"])
    kept = [p.name for p in builds["keep"].rglob("*") if p.is_file()]
    for src in SOURCES:
        stem = Path(src).stem
        assert any(stem in k and k.endswith(".c") for k in kept), f"no generated file for {src}: {listing(builds['keep'])}"


def test_same_files_left_behind(builds):
    assert builds["s2s_run"].returncode == 0 and builds["cc_run"].returncode == 0
    cc_files, s2s_files = _files(builds["cc_dir"]), _files(builds["s2s_dir"])
    assert s2s_files == cc_files, (f"only in the s2s-cc build: {sorted(s2s_files - cc_files)}; "
                                   f"only in the cc build: {sorted(cc_files - s2s_files)}")


def test_dependency_files_name_the_real_sources(builds):
    assert builds["s2s_run"].returncode == 0 and builds["cc_run"].returncode == 0
    for obj, src in zip(OBJECTS, SOURCES):
        d = Path(obj).with_suffix(".d")
        s2s_dep = builds["s2s_dir"] / d
        assert s2s_dep.is_file(), f"s2s-cc build has no {d}"
        rules = _parse_deps(s2s_dep)
        assert obj in rules, f"{d} has no rule for {obj}: {s2s_dep.read_text()!r}"
        prereqs = rules[obj]
        assert src in prereqs, f"{d} does not name the real source {src}: {s2s_dep.read_text()!r}"
        bogus = [p for p in prereqs if re.search(r"s2s|/tmp/|\.s2s\.|\.i$", p) or (p.endswith(".c") and p != src)]
        assert not bogus, f"{d} names generated/temporary files: {bogus}"
        cc_rules = _parse_deps(builds["cc_dir"] / d)
        assert rules == cc_rules, f"{d} differs from cc's:\n s2s-cc: {rules}\n cc:     {cc_rules}"


def test_incremental_rebuilds(tmp_path):
    """A second make is a no-op; touching a header rebuilds exactly what cc's build rebuilds.

    Builds its own copies: it modifies them, and the read-only tests above share theirs."""
    keep = tmp_path / "s2s-keep"
    keep.mkdir()
    s2s = str(s2s_cc_path())
    setups = {"cc": (tmp_path / "with-cc", [], _env(plain_env())),
              "s2s": (tmp_path / "with-s2s", [f"CC={s2s}"], _env(s2s_env(keep, mode="identity")))}
    rebuilt = {}
    for kind, (d, args, env) in setups.items():
        shutil.copytree(PROJECT, d)
        first = _make(d, [*args, "all"], env)
        assert first.returncode == 0, f"{kind}: " + _show(first)
        q = _make(d, ["-q", *args, "all"], env)
        assert q.returncode == 0, f"{kind}: make -q says the fresh build is out of date:\n" + _show(q)
        before = _mtimes(d, [*OBJECTS, "build/libcalc.a", "calc"])
        again = _make(d, [*args, "all"], env)
        assert again.returncode == 0, f"{kind}: " + _show(again)
        assert "Nothing to be done" in again.stdout, f"{kind}: second make was not a no-op:\n" + _show(again)
        assert _mtimes(d, [*OBJECTS, "build/libcalc.a", "calc"]) == before

        time.sleep(0.05)
        (d / "include" / "calc" / "stats.h").touch()
        run = _make(d, [*args, "check"], env)
        assert run.returncode == 0, f"{kind}: " + _show(run)
        after = _mtimes(d, [*OBJECTS, "build/libcalc.a", "calc"])
        rebuilt[kind] = sorted(o for o in OBJECTS if after[o] != before[o])
        assert after["calc"] != before["calc"], f"{kind}: calc not relinked after a header change"
    assert rebuilt["cc"], "touching stats.h rebuilt nothing with cc (test bug)"
    assert rebuilt["s2s"] == rebuilt["cc"], f"rebuilt objects differ: s2s-cc {rebuilt['s2s']} vs cc {rebuilt['cc']}"


GRID = PROJECTS_DIR / "grid"
GRID_LIBRARY = ["build/init.o", "build/matmul.o", "build/stencil.o"]


@pytest.mark.parametrize("mode", ["pluto", None])  # None: s2s-cc's default mode
def test_openmp_only_when_compiling(tmp_path, mode):
    from s2s.driver.openmp_runtime import carries_marker

    d = tmp_path / "grid"
    shutil.copytree(GRID, d)
    env = _env(s2s_env(tmp_path / "keep", mode=mode or "identity", OMP_NUM_THREADS="2"))
    if mode is None:
        del env["S2S_MODE"]
    run = _make(d, ["-j2", f"CC={s2s_cc_path()}", "check"], env)
    assert run.returncode == 0, _show(run)
    assert "grid check: OK" in run.stdout
    notes = [line for line in (run.stdout + run.stderr).splitlines() if NOTE_PREFIX in line]
    assert not notes, "s2s-cc fell back:\n" + "\n".join(notes)
    marked = [o for o in GRID_LIBRARY if carries_marker(str(d / o))]
    assert not carries_marker(str(d / "build/main.o"))
    if mode in ("pluto", None):  # pluto is the default; else the test would not test what it is about
        assert marked, "s2s parallelized no loop of the library"
