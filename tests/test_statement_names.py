"""Statements of generated blocks, whose ids hold dots (``B.load.C_r0``, scalar replacement's),
get isl names isl can read: the analysis of optimized code (the Highway target's SIMD loops, the
CUDA target's kernels) models them like any other."""
from __future__ import annotations

import dataclasses

from frontends.c import lift_c_file
from s2s.analysis import compute_dependences, find_scops
from s2s.analysis.scop import _statement_name
from s2s.ir import Block, Sequence
from s2s.ir.rewrite import map_sequences


def test_a_block_id_with_dots_is_a_statement_of_the_model(tmp_path):
    src = tmp_path / "k.c"
    src.write_text("void k(int n, double *a, double *b) {\n  for (int i = 1; i < n; i++)\n"
                   "    a[i] = 2 * b[i - 1];\n}\n")
    unit, _ = lift_c_file(str(src), [])
    sdfg = unit.functions[0]
    renamed = map_sequences(sdfg.body, lambda s: dataclasses.replace(s, children=tuple(
        dataclasses.replace(c, id="B.load.a_r0") if isinstance(c, Block) else c for c in s.children)))
    assert isinstance(renamed, Sequence)
    (scop,) = find_scops(dataclasses.replace(sdfg, body=renamed))
    (stmt,) = scop.statements
    assert stmt.block.id == "B.load.a_r0" and stmt.name == "S_B_2e_load_2e_a_r0"
    assert compute_dependences(scop).flow.is_empty()


def test_statement_names_stay_apart():
    assert _statement_name("B3", set()) == "S_B3"
    assert _statement_name("B.3", {"S_B_2e_3"}) == "S_B_2e_3_1"
