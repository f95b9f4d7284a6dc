"""s2s-cc on a mid-size C project of our own (tests/projects/toolkit).

The project is a utility library (strings, containers, parsers, codecs: most of its files have
no loop nest s2s can work on, a few no loop at all) and five files of numeric kernels on
malloc'd flat arrays (matrix products, image filters, stencils, column statistics, n-body),
archived into build/libtoolkit.a and linked into a driver whose output ``make check`` compares
with expected.txt. It is the project on which the build-time cost of ``make CC=s2s-cc`` over plain
``make CC=gcc`` is measured; here we build a copy of it once with ``make -j2 CC=<s2s-cc> check``
in the default mode (work thresholds as in a user's build), with ``S2S_REPORT=1``, and require:

* ``make check`` passes (the optimized program prints exactly what gcc's does) and s2s-cc never
  fell back to the original file (no ``s2s-cc: note:``);
* the report names at least one loop nest it optimized;
* the build is as warning-free under s2s-cc (with ``-Wall -Wextra``) as it is under gcc.
"""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from c_build import NOTE_PREFIX, PROJECTS_DIR, s2s_cc_path, s2s_env  # noqa: E402

PROJECT = PROJECTS_DIR / "toolkit"
OPTIMIZED = re.compile(r"s2s-cc: report: (\S+?):(\d+): (\w+): SCoP at \S+ optimized")

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make not installed")


def _show(p: subprocess.CompletedProcess) -> str:
    return f"make {' '.join(p.args[1:])} -> {p.returncode}\n--- stdout ---\n{p.stdout[-4000:]}\n--- stderr ---\n{p.stderr[-4000:]}"


@pytest.fixture(scope="module")
def build(tmp_path_factory):
    """A copy of the project built with ``make -j2 CC=<s2s-cc> check`` (once for the module)."""
    work = tmp_path_factory.mktemp("toolkit") / "toolkit"
    # without the outputs of a build made in the tree by hand (build/ and the program)
    shutil.copytree(PROJECT, work, ignore=lambda d, names: {"build", "toolkit"} & set(names) if Path(d) == PROJECT else ())
    # A cache of its own, empty: the build runs the optimizer on every file (module fixtures come
    # before the per-test settings of conftest.py).
    env = s2s_env(mode="pluto", S2S_REPORT="1", S2S_CACHE=str(work.parent / "s2s-cache"))
    for var in ("CFLAGS", "CPPFLAGS", "LDFLAGS", "LDLIBS", "MAKEFLAGS", "MFLAGS"):
        env.pop(var, None)
    run = subprocess.run(["make", "-j2", f"CC={s2s_cc_path()}", "check"], cwd=work, env=env,
                         capture_output=True, text=True, timeout=600)
    return {"run": run}


def test_check_passes(build):
    run = build["run"]
    assert run.returncode == 0, _show(run)
    assert "toolkit check: OK" in run.stdout
    notes = [line for line in (run.stdout + run.stderr).splitlines() if NOTE_PREFIX in line]
    assert not notes, "s2s-cc fell back:\n" + "\n".join(notes)


def test_report_names_optimized_nests(build):
    run = build["run"]
    assert run.returncode == 0, _show(run)
    optimized = [m.groups() for m in OPTIMIZED.finditer(run.stderr)]
    assert optimized, "no loop nest optimized; the report says:\n" + "\n".join(
        line for line in run.stderr.splitlines() if "report:" in line)


def test_no_warnings(build):
    run = build["run"]
    assert run.returncode == 0, _show(run)
    warnings = [line for line in run.stderr.splitlines() if "warning:" in line]
    assert not warnings, "\n".join(warnings)
