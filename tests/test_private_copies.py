"""Private copies of scratch arrays per iteration (s2s.analysis.privatization): which arrays an
iteration may copy, how the OpenMP back end gives each thread its copies, and that the
cross-check on generated code keeps a parallel loop only where the copies suffice."""
from __future__ import annotations

import dataclasses
import subprocess
import textwrap

import pytest

from backends.c import CPrinter
from backends.openmp import OpenMPPrinter
from frontends.c import lift_c_file
from s2s.analysis import find_scops
from s2s.analysis.privatization import privatizable
from s2s.ir import For, Map, Schedule, SDFGBuilder, Sequence, walk
from s2s.ir.validate import problems
from s2s.transforms.verify_parallel import demote_unproven_maps


def _lifted(tmp_path, body: str):
    src = tmp_path / "k.c"
    src.write_text("double T[40], S[40], X[30][40];\n"
                   f"void k(int nq, int np) {{\n  int q, p;\n{textwrap.indent(body, '  ')}}}\n")
    unit, _ = lift_c_file(str(src), [])
    return unit.functions[0]


# (body, whether each iteration of q may have a copy of T of its own)
CASES = [
    # written, then read, in each iteration
    ("for (q = 0; q < nq; q++) {\n  for (p = 0; p < np; p++)\n    T[p] = X[q][p];\n"
     "  for (p = 0; p < np; p++)\n    X[q][p] = T[p] * 2.0;\n}\n", True),
    # ... and read after the loop: the last iteration wrote every element read
    ("for (q = 0; q < nq; q++) {\n  for (p = 0; p < np; p++)\n    T[p] = X[q][p];\n"
     "  for (p = 0; p < np; p++)\n    X[q][p] = T[p] * 2.0;\n}\nfor (p = 0; p < np; p++)\n  S[p] = T[p];\n", True),
    # read after the loop, written by earlier iterations only (the last one writes less)
    ("for (q = 0; q < nq; q++) {\n  for (p = 0; p < nq - q; p++)\n    T[p] = X[q][p];\n"
     "  for (p = 0; p < nq - q; p++)\n    X[q][p] = T[p] * 2.0;\n}\nfor (p = 0; p < np; p++)\n  S[p] = T[p];\n",
     False),
    # a value of the previous iteration is read
    ("for (q = 0; q < nq; q++)\n  for (p = 0; p < np; p++) {\n    X[q][p] = T[p];\n    T[p] = X[q][p] * 2.0;\n  }\n",
     False),
    # a sum over q
    ("for (q = 0; q < nq; q++)\n  for (p = 0; p < np; p++)\n    T[p] += X[q][p];\n", False),
    # a value from before the loop is read inside it
    ("for (p = 0; p < np; p++)\n  T[p] = 1.0;\nfor (q = 0; q < nq; q++)\n  for (p = 0; p < np; p++)\n"
     "    X[q][p] = T[p];\n", False),
]


@pytest.mark.parametrize("body, expected", CASES)
def test_an_iteration_may_copy_an_array_it_writes_before_reading(tmp_path, body, expected):
    (scop,) = find_scops(_lifted(tmp_path, body))
    loop = next(l for l in scop.loops if l.node.var == "q")
    assert privatizable(scop, loop, "T") is expected


@pytest.mark.parametrize("body, expected", CASES[:4])
def test_the_cross_check_keeps_a_parallel_loop_only_where_its_copies_suffice(tmp_path, body, expected):
    sdfg = _lifted(tmp_path, body)
    (loop,) = [n for n in sdfg.body.children if isinstance(n, For) and n.var == "q"]
    as_map = Map(loop.id, "q", loop.init, loop.cond.rhs, loop.update.rhs, loop.body, Schedule.CPU_MULTICORE,
                 private=("T",))
    seq = Sequence("S.gen", tuple(as_map if c is loop else c for c in sdfg.body.children))
    checked, unproven = demote_unproven_maps(sdfg, seq)
    assert (unproven == []) is expected
    assert any(isinstance(n, Map) for n in walk(checked)) is expected
    # without the copies, every one of these loops conflicts with itself
    _, unproven = demote_unproven_maps(sdfg, Sequence("S.gen", tuple(
        dataclasses.replace(as_map, private=()) if c is loop else c for c in sdfg.body.children)))
    assert unproven == [loop.id]


def _scratch_loop():
    b = SDFGBuilder("rows")
    b.symbol("n")
    b.array("T", "double", [4, 8])
    b.array("X", "double", ["n", 4, 8])
    with b.map("r", 0, "n", Schedule.CPU_MULTICORE):
        with b.loop("q", 0, 4):
            with b.loop("p", 0, 8):
                b.assign("T[q][p]", "X[r][q][p] * 2.0")
        with b.loop("q", 0, 4):
            with b.loop("p", 0, 8):
                b.assign("X[r][q][p]", "T[q][p] + T[3 - q][p]")
    sdfg = b.build()
    (loop,) = sdfg.body.children
    sdfg = dataclasses.replace(sdfg, body=dataclasses.replace(sdfg.body, children=(
        dataclasses.replace(loop, private=("T",)),)))
    return sdfg


def test_openmp_gives_each_thread_copies_and_the_last_iteration_the_array(tmp_path):
    sdfg = _scratch_loop()
    assert problems(sdfg) == []
    printer = OpenMPPrinter(sdfg)
    text = printer.statement(sdfg.body.children[0])
    assert "s2s_copies_T = (double *)__builtin_malloc(sizeof(double) * (4) * (8) * omp_get_max_threads());" in text
    assert "double (*const T)[8] = r == n - 1 ? s2s_shared_T : (double (*)[8]) (s2s_copies_T + " in text
    assert text.count("#pragma omp parallel for") == 1
    assert "} else {" in text   # without memory for the copies: the loop in order
    # plain C runs the loop in order on the array itself
    assert "s2s_copies" not in CPrinter(sdfg).statement(sdfg.body.children[0])
    src = tmp_path / "rows.c"
    helpers = "".join(printer.helpers.values())   # (whether the cores are free, asked at run time)
    src.write_text(f"{helpers}void rows(int n, double T[4][8], double X[][4][8])\n{text}\n")
    subprocess.run(["cc", "-fopenmp", "-Wall", "-Werror", "-fsyntax-only", str(src)], check=True)


def test_private_copies_name_array_containers():
    sdfg = _scratch_loop()
    loop = sdfg.body.children[0]
    bad = dataclasses.replace(sdfg, body=dataclasses.replace(sdfg.body, children=(
        dataclasses.replace(loop, private=("n",)),)))
    assert any("private copies of 'n'" in p for p in problems(bad))
