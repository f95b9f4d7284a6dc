"""isl's AST read back as the order it runs statement instances in, and checked against the
dependences: the last check before generated code replaces the user's loops."""
from __future__ import annotations

import textwrap
from pathlib import Path

import islpy as isl
import pytest

from frontends.c import lift_c_file
from s2s.analysis import compute_dependences, find_scops
from s2s.driver.pipeline import PipelineOptions, optimize_c_file
from s2s.schedule.ast_order import ast_fault, ast_order
from s2s.schedule.legality import is_legal
from tests.test_scheduler import _source_scop, kernel_scop

STENCIL = """
void f(int n, int t, double A[100][100]) {
  for (int k = 0; k < t; k++)
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        A[i][j] = (A[i - 1][j] + A[i][j - 1] + A[i][j] + A[i][j + 1] + A[i + 1][j]) / 5.0;
}
"""


def ast_of(scop, schedule_text: str) -> isl.AstNode:
    tree = isl.Schedule.from_domain(scop.domain).insert_partial_schedule(
        isl.MultiUnionPwAff.from_union_map(isl.UnionMap.read_from_str(scop.domain.get_ctx(), schedule_text)))
    return isl.AstBuild.from_context(scop.context).node_from_schedule(tree)


def test_the_original_order_reads_back_as_the_original_order(tmp_path):
    scop = _source_scop(tmp_path, STENCIL)
    order = ast_order(scop, ast_of(scop, "[n, t] -> { S_B0[k, i, j] -> [k, i, j] }"))
    expected = isl.UnionMap.read_from_str(order.get_ctx(), "[n, t] -> { S_B0[k, i, j] -> [k, i, j] }")
    assert order.is_equal(expected.intersect_domain(scop.domain))
    assert ast_fault(scop, compute_dependences(scop), ast_of(scop, "[n, t] -> { S_B0[k, i, j] -> [k, i, j] }")) is None


def test_an_order_that_breaks_a_dependence_is_a_fault(tmp_path):
    scop = _source_scop(tmp_path, STENCIL)
    deps = compute_dependences(scop)
    # i and k swapped: a later sweep's row before an earlier sweep's next row
    fault = ast_fault(scop, deps, ast_of(scop, "[n, t] -> { S_B0[k, i, j] -> [i, k, j] }"))
    assert fault == "the generated code runs a dependence backwards"


def test_code_for_part_of_the_domain_is_a_fault(tmp_path):
    scop = _source_scop(tmp_path, STENCIL)
    deps = compute_dependences(scop)
    partial = isl.Schedule.from_domain(scop.domain.intersect(
        isl.UnionSet.read_from_str(scop.domain.get_ctx(), "[n, t] -> { S_B0[k, i, j] : j <= 50 }")))
    ast = isl.AstBuild.from_context(scop.context).node_from_schedule(partial)
    assert ast_fault(scop, deps, ast) == "the generated code does not run every statement instance"


def test_tiled_skewed_stencil_code_checks_cheaply():
    """Tile loops bounded by min and max of several floor divisions: each bound taken apart
    (as a piecewise function each would double the pieces, and the check took minutes)."""
    scop = kernel_scop("seidel-2d", "LARGE")
    deps = compute_dependences(scop)
    tree = isl.Schedule.from_domain(scop.domain).insert_partial_schedule(isl.MultiUnionPwAff.from_union_map(
        isl.UnionMap.read_from_str(scop.domain.get_ctx(), "{ S_B0[t, i, j] -> [t, t + i, 2t + i + j] }")))
    band = tree.get_root().child(0)
    tiled = band.band_tile(isl.MultiVal.read_from_str(scop.domain.get_ctx(), "{ [32, 32, 32] }")).get_schedule()
    ast = isl.AstBuild.from_context(scop.context).node_from_schedule(tiled)
    assert ast_fault(scop, deps, ast, max_operations=300_000) is None
    # past its time budget (isl's step counter misses some of its work) the check gives up: a fault
    assert ast_fault(scop, deps, ast, budget_s=0.001) == "the generated code is too dear to check"


# The schedule the Pluto-style scheduler once found for fuzz seed 2008158's kernel (before it
# counted the equalities of a domain): legal, but its third band member repeats an earlier one
# for every statement, and for it isl's AST runs S_B7's whole j loop (c4) before S_B6 at one
# (c0, c1), where the schedule puts S_B6 between two of those iterations.
HOISTING_TREE = (
    '{ domain: "[n] -> { S_B8[i, j, k = -1 + i] : (j) mod 2 = 0 and 2 <= i <= 10 and 0 <= j < n; S_B4'
    '[i] : 0 <= i <= n; S_B2[i, j, k] : 0 <= i <= n and 0 <= j <= -2 + n and 0 <= k < n; S_B5[]; S_B6'
    '[i, j] : (j) mod 2 = 0 and 2 <= i <= 10 and 0 <= j < n; S_B7[i, j, k = -1 + i] : (j) mod 2 = 0 a'
    'nd 2 <= i <= 10 and 0 <= j < n; S_B1[i] : 0 <= i <= n; S_B3[i, j, k] : 0 <= i <= n and 0 <= j <='
    ' -2 + n and 0 <= k < n; S_B9[] }", child: { sequence: [ { filter: "[n] -> { S_B2[i, j, k]; S_B3['
    'i, j, k]; S_B1[i] }", child: { schedule: "[n] -> [{ S_B2[i, j, k] -> [(j)] : 0 <= i <= n and 0 <'
    '= j <= -2 + n and 0 <= k < n; S_B3[i, j, k] -> [(i)] : 0 <= i <= n and 0 <= j <= -2 + n and 0 <='
    ' k < n; S_B1[i] -> [(i)] : 0 <= i <= n }]", child: { schedule: "[n] -> [{ S_B2[i, j, k] -> [(i)]'
    ' : 0 <= i <= n and 0 <= j <= -2 + n and 0 <= k < n; S_B3[i, j, k] -> [(1 + j)] : 0 <= i <= n and'
    ' 0 <= j <= -2 + n and 0 <= k < n; S_B1[i] -> [(0)] : 0 <= i <= n }]", child: { schedule: "[n] ->'
    ' [{ S_B2[i, j, k] -> [(i)] : 0 <= i <= n and 0 <= j <= -2 + n and 0 <= k < n; S_B3[i, j, k] -> ['
    '(i)] : 0 <= i <= n and 0 <= j <= -2 + n and 0 <= k < n; S_B1[i] -> [(i)] : 0 <= i <= n }]", chil'
    'd: { sequence: [ { filter: "[n] -> { S_B1[i] }" }, { filter: "[n] -> { S_B3[i, j, k]; S_B2[i, j,'
    ' k] }", child: { schedule: "[n] -> [{ S_B3[i, j, k] -> [(j)] : 0 <= i <= n and 0 <= j <= -2 + n '
    'and 0 <= k < n; S_B2[i, j, k] -> [(j)] : 0 <= i <= n and 0 <= j <= -2 + n and 0 <= k < n }]", ch'
    'ild: { schedule: "[n] -> [{ S_B3[i, j, k] -> [(k)] : 0 <= i <= n and 0 <= j <= -2 + n and 0 <= k'
    ' < n; S_B2[i, j, k] -> [(k)] : 0 <= i <= n and 0 <= j <= -2 + n and 0 <= k < n }]", child: { seq'
    'uence: [ { filter: "[n] -> { S_B2[i, j, k] }" }, { filter: "[n] -> { S_B3[i, j, k] }" } ] } } } '
    '} ] } } } } }, { filter: "[n] -> { S_B4[i] }", child: { schedule: "[n] -> [{ S_B4[i] -> [(i)] : '
    '0 <= i <= n }]", child: { schedule: "[n] -> [{ S_B4[i] -> [(i)] : 0 <= i <= n }]" } } }, { filte'
    'r: "[n] -> { S_B5[] }" }, { filter: "[n] -> { S_B7[i, j, k]; S_B6[i, j]; S_B8[i, j, k] }", child'
    ': { schedule: "[n] -> [{ S_B7[i, j, k] -> [(i)] : k = -1 + i and (j) mod 2 = 0 and 2 <= i <= 10 '
    'and 0 <= j < n; S_B6[i, j] -> [(i)] : (j) mod 2 = 0 and 2 <= i <= 10 and 0 <= j < n; S_B8[i, j, '
    'k] -> [(1 + j)] : k = -1 + i and (j) mod 2 = 0 and 2 <= i <= 10 and 0 <= j < n }]", child: { sch'
    'edule: "[n] -> [{ S_B7[i, j, k] -> [(i)] : k = -1 + i and (j) mod 2 = 0 and 2 <= i <= 10 and 0 <'
    '= j < n; S_B6[i, j] -> [(2j)] : (j) mod 2 = 0 and 2 <= i <= 10 and 0 <= j < n; S_B8[i, j, k] -> '
    '[(i)] : k = -1 + i and (j) mod 2 = 0 and 2 <= i <= 10 and 0 <= j < n }]", child: { schedule: "[n'
    '] -> [{ S_B7[i, j, k] -> [(i)] : k = -1 + i and (j) mod 2 = 0 and 2 <= i <= 10 and 0 <= j < n; S'
    '_B6[i, j] -> [(i)] : (j) mod 2 = 0 and 2 <= i <= 10 and 0 <= j < n; S_B8[i, j, k] -> [(i)] : k ='
    ' -1 + i and (j) mod 2 = 0 and 2 <= i <= 10 and 0 <= j < n }]", child: { schedule: "[n] -> [{ S_B'
    '7[i, j, k] -> [(j)] : k = -1 + i and (j) mod 2 = 0 and 2 <= i <= 10 and 0 <= j < n; S_B6[i, j] -'
    '> [(j)] : (j) mod 2 = 0 and 2 <= i <= 10 and 0 <= j < n; S_B8[i, j, k] -> [(j)] : k = -1 + i and'
    ' (j) mod 2 = 0 and 2 <= i <= 10 and 0 <= j < n }]", child: { sequence: [ { filter: "[n] -> { S_B'
    '6[i, j] }" }, { filter: "[n] -> { S_B8[i, j, k]; S_B7[i, j, k] }", child: { schedule: "[n] -> [{'
    ' S_B8[i, j, k] -> [(-1 + i)] : k = -1 + i and (j) mod 2 = 0 and 2 <= i <= 10 and 0 <= j < n; S_B'
    '7[i, j, k] -> [(-1 + i)] : k = -1 + i and (j) mod 2 = 0 and 2 <= i <= 10 and 0 <= j < n }]", chi'
    'ld: { sequence: [ { filter: "[n] -> { S_B7[i, j, k] }" }, { filter: "[n] -> { S_B8[i, j, k] }" }'
    ' ] } } } ] } } } } } }, { filter: "[n] -> { S_B9[] }" } ] } }'
)


def test_isl_code_that_hoists_a_statement_out_of_its_loop_is_caught():
    path = Path(__file__).parent / "fuzz_regressions" / "strided_statements_wrong_order.c"
    unit, _ = lift_c_file(str(path), [])
    (scop,) = find_scops(next(f for f in unit.functions if f.name == "kernel"))
    deps = compute_dependences(scop)
    tree = isl.Schedule.read_from_str(scop.domain.get_ctx(), "".join(HOISTING_TREE))
    assert is_legal(deps, tree)          # the schedule is right ...
    ast = isl.AstBuild.from_context(scop.context).node_from_schedule(tree)
    fault = ast_fault(scop, deps, ast)
    if fault is None:
        pytest.skip("this isl generates right code for the schedule")
    assert fault == "the generated code runs a dependence backwards"   # ... its code is not


def test_the_optimizer_keeps_the_users_loops_when_the_code_fails_the_check(tmp_path, monkeypatch):
    import s2s.transforms.polyhedral as polyhedral
    monkeypatch.setattr(polyhedral, "ast_fault", lambda scop, deps, ast, *budget: "the generated code runs a dependence backwards")
    path = tmp_path / "f.c"
    path.write_text(textwrap.dedent(STENCIL))
    result = optimize_c_file(path, [], PipelineOptions(mode="pluto", report=True, profitability=False))
    assert not result.changed
    assert any("the generated code runs a dependence backwards" in line for line in result.report)
