"""s2s.ir: builder, validation, JSON round trip, text dump."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from frontends.c import lift_c_file
from s2s.errors import ValidationError
from s2s.ir import (
    Access, Array, Binary, Block, Break, Const, For, Map, Schedule, SDFGBuilder, Sequence, Sym, Tasklet,
    dump, dumps, loads, problems, validate,
)

ROOT = Path(__file__).resolve().parent.parent


def axpy():
    b = SDFGBuilder("axpy")
    b.symbol("n")
    b.array("x", "double", ["n"])
    b.array("y", "double", ["n"])
    b.scalar("a", "double")
    with b.loop("i", 0, "n"):
        b.assign("y[i]", "y[i] + a * x[i]")
    return b.build()


def test_builder_makes_dataflow_with_memlets():
    sdfg = axpy()
    validate(sdfg)
    loop = sdfg.body.children[0]
    assert isinstance(loop, For) and loop.var == "i"
    block = loop.body.children[0]
    assert isinstance(block, Block)
    (tasklet,) = [n for n in block.graph.nodes if isinstance(n, Tasklet)]
    reads = {(e.data, e.subset) for e in block.graph.in_edges(tasklet.id)}
    assert reads == {("y", (Sym("i"),)), ("a", ()), ("x", (Sym("i"),))}
    (write,) = block.graph.out_edges(tasklet.id)
    assert (write.data, write.subset) == ("y", (Sym("i"),))
    # the loop variable stays symbolic: it is not read through a memlet
    assert "i" not in {e.data for e in block.graph.edges}


def test_ids_are_unique_and_stable():
    a, b = axpy(), axpy()
    ids = [n.id for n in a.nodes()]
    assert len(ids) == len(set(ids))
    assert ids == [n.id for n in b.nodes()]
    assert a.find("L0").var == "i"


def test_map_and_schedule_round_trip():
    b = SDFGBuilder("scale")
    b.symbol("n")
    b.array("x", "float", ["n"])
    with b.map("i", 0, "n", Schedule.CPU_MULTICORE):
        b.assign("x[i]", "2 * x[i]")
    sdfg = b.build()
    validate(sdfg)
    assert isinstance(sdfg.body.children[0], Map)
    assert loads(dumps(sdfg)) == sdfg


def test_json_round_trip_is_exact_for_builder_ir():
    text = dumps(axpy())
    assert dumps(loads(text)) == text


CORPUS = sorted((ROOT / "tests" / "corpus").glob("*.c"))
KERNELS = sorted((ROOT / "polybench" / "suite").glob("*/**/*.c"))


@pytest.mark.parametrize("path", [p for p in CORPUS + KERNELS if "utilities" not in p.parts][:80],
                         ids=lambda p: p.stem)
def test_json_round_trip_is_exact_for_real_programs(path):
    args = ["-std=gnu11", f"-I{ROOT / 'polybench/suite/utilities'}", f"-I{path.parent}"]
    try:
        unit, _ = lift_c_file(str(path), args)
    except Exception as exc:  # dialects the parser rejects are the driver's fallback's business
        pytest.skip(f"not liftable: {exc}")
    validate(unit)
    text = dumps(unit)
    again = loads(text)
    assert dumps(again) == text
    assert [f.name for f in again.functions] == [f.name for f in unit.functions]
    assert dump(again) == dump(unit)


def test_validation_names_element_and_rule():
    sdfg = axpy()
    bad_loop = dataclasses.replace(sdfg.body.children[0], var="nope")
    bad = dataclasses.replace(sdfg, body=Sequence("S9", (bad_loop, Break("K0"))))
    found = problems(bad)
    assert any("axpy/L0" in p and "loop variable 'nope'" in p for p in found)
    assert any("break outside a loop" in p for p in found)
    with pytest.raises(ValidationError, match="invalid IR"):
        validate(bad)


def test_validation_catches_memlet_rank_mismatch():
    sdfg = axpy()
    loop = sdfg.body.children[0]
    block = loop.body.children[0]
    edges = tuple(dataclasses.replace(e, subset=(Sym("i"), Sym("i"))) if e.data == "x" else e
                  for e in block.graph.edges)
    graph = dataclasses.replace(block.graph, edges=edges)
    new_loop = dataclasses.replace(loop, body=Sequence("S0", (dataclasses.replace(block, graph=graph),)))
    found = problems(dataclasses.replace(sdfg, body=Sequence("S1", (new_loop,))))
    assert any("2 subscripts, rank is 1" in p for p in found)


def test_dump_is_readable():
    text = dump(axpy())
    assert "sdfg axpy(n, x, y, a)" in text
    assert "array  x: double[n] argument" in text
    assert "L0 for i = 0; i < n; i = i + 1" in text
    assert "y[i] <- in_y + in_a * in_x" in text


def test_expression_printing_keeps_structure():
    from s2s.ir import format_expr
    e = Binary("-", Sym("a"), Binary("-", Sym("b"), Sym("c")))
    assert format_expr(e) == "a - (b - c)"
    assert format_expr(Binary("*", Binary("+", Sym("a"), Sym("b")), Access("A", (Sym("i"),)))) == "(a + b) * A[i]"
    from s2s.ir import Unary
    assert format_expr(Unary("-", Unary("-", Sym("x")))) == "-(-x)"
    assert format_expr(Unary("-", Const("-1"))) == "-(-1)"


def test_expression_printing_parenthesizes_what_gcc_asks_to():
    """Nestings C parses without parentheses but -Wparentheses reports get them anyway."""
    from s2s.ir import Unary, format_expr
    a, b, c = Sym("a"), Sym("b"), Sym("c")
    assert format_expr(Binary("||", Binary("&&", a, b), c)) == "(a && b) || c"
    assert format_expr(Binary("||", a, Binary("&&", b, c))) == "a || (b && c)"
    assert format_expr(Binary("&&", Binary("||", a, b), c)) == "(a || b) && c"
    assert format_expr(Binary("<<", Binary("+", a, b), c)) == "(a + b) << c"
    assert format_expr(Binary("&", Binary("==", a, b), c)) == "(a == b) & c"
    assert format_expr(Binary("|", Binary("&", a, b), c)) == "(a & b) | c"
    assert format_expr(Binary("==", Binary("<", a, b), c)) == "(a < b) == c"
    assert format_expr(Binary("&&", Binary("<", a, b), c)) == "a < b && c"
    assert format_expr(Binary("+", Binary("*", a, b), c)) == "a * b + c"
    assert format_expr(Binary("==", Unary("!", a), b)) == "(!a) == b"
