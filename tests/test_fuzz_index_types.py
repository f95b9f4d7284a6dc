"""The fuzzer's counters and sizes of other types than int (``size_t``, ``unsigned``, ``long``, ...).

* some programs of every seed range get them, in the idioms of unsigned code, often with a size of
  0 to 3; the others are the programs those seeds always gave (the types come from a stream of
  their own);
* the model computes what C computes: its evaluator against gcc on random bounds, and programs the
  model accepts at sizes where ``n - 1`` wraps build with ``-Wall -Wextra -Werror`` and run clean
  under ASan and UBSan;
* the shrinker keeps them valid, and a small campaign through the real s2s-cc finds nothing wrong.
"""
from __future__ import annotations

import functools
import os
import random
import re
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from s2s import cli
from s2s.fuzz import generate, shrink, to_c
from s2s.fuzz import cint, generator
from s2s.fuzz.model import Cond, Loop, Poly, walk_nodes
from s2s.fuzz.shrink import size
from s2s.fuzz.sizing import TooBig, finalize

SEEDS = range(0, 120)
STRICT = ("-std=c99", "-Wall", "-Wextra", "-Wno-unused-parameter", "-Werror")
SANITIZE = ("-O0", "-g", "-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-ffp-contract=off")


@functools.lru_cache(maxsize=None)
def _program(seed: int):
    return generate(seed)


def _typed(seeds=SEEDS):
    return [_program(s) for s in seeds if _program(s).types]


def test_other_counter_types_are_generated_at_some_rate():
    typed = _typed()
    assert 0.15 * len(SEEDS) <= len(typed) <= 0.45 * len(SEEDS), len(typed)
    kinds = {t for p in typed for _, t in p.types}
    assert {"size_t", "unsigned", "long"} <= kinds, kinds
    joined = "\n".join(to_c(p) for p in typed)
    for pattern in (r"void kernel\(size_t n", r"void kernel\(unsigned n", r"void kernel\(long n",
                    r"for \((size_t|unsigned long|unsigned) (\w) = [^;]+; \2-- > [^;]+;\)",  # i-- > 0
                    r"for \(unsigned (\w) = [^;]+; \1 > [^;]+; \1--\)",  # i > 0, reading a[i - 1]
                    r"\[\w - 1\]", r"; \w \+ [123] <=? [nmp];",  # i + 2 < n
                    r"if \([nmp] >= [123]\)", r"\w < [nmp] - [123];",  # a guard, a bound that subtracts
                    r"\n  (size_t|unsigned|long) \w(, \w)*( = 0)?[,;]"):  # C89 style
        assert re.search(pattern, joined), pattern
    small = [p for p in typed if any(v <= 2 for name, v in p.params if name != generator.BIG_PARAM)]
    assert len(small) >= len(typed) // 3, len(small)


def test_other_seeds_keep_their_programs(monkeypatch):
    """Where the type stream keeps int, the program is the one drawn without any typing; where it
    does not, the same program's loops and arrays, retyped."""
    seeds = range(0, 40)
    normal = {s: _program(s) for s in seeds}
    monkeypatch.setattr(generator, "TYPED_SHARE", 0.0)
    for s in seeds:
        plain = generate(s)
        if not normal[s].types:
            assert normal[s] == plain, s
        else:
            assert [a.name for a in normal[s].arrays] == [a.name for a in plain.arrays]
            assert [n.var for n in walk_nodes(normal[s].body) if isinstance(n, Loop)] == \
                [n.var for n in walk_nodes(plain.body) if isinstance(n, Loop)]


# ---- the model's arithmetic is C's ---------------------------------------------------------------------------
def test_the_evaluator_computes_what_gcc_computes(tmp_path):
    rng = random.Random(5)
    names = ("i", "j", "n")
    cases = []
    while len(cases) < 300:
        types = {v: rng.choice(tuple(cint.INDEX_TYPES)) for v in names}
        env = {v: rng.choice((0, 1, 2, 3, 7, 40)) for v in names}
        terms = tuple((rng.choice((1, 1, -1, 2, -2, 3)), tuple(rng.sample(names, rng.choice((1, 1, 2)))))
                      for _ in range(rng.randint(1, 3)))
        poly = Poly(terms, rng.randint(-4, 4))
        try:
            value = cint.evaluate(poly, env, types)
        except cint.SignedOverflow:
            continue
        cases.append((types, env, poly, value))
    body = []
    for types, env, poly, value in cases:
        decls = " ".join(f"{types[v]} {v} = {env[v]};" for v in names)
        fmt, cast = ("%lld", "long long") if value.kind[1] else ("%llu", "unsigned long long")
        body.append(f'  {{ {decls} printf("{fmt}\\n", ({cast})({poly.c()})); }}')
    src = tmp_path / "eval.c"
    src.write_text("#include <stdio.h>\n#include <stddef.h>\nint main(void)\n{\n" + "\n".join(body)
                   + "\n  return 0;\n}\n")
    subprocess.run(["cc", "-O0", "-w", str(src), "-o", str(tmp_path / "eval")], check=True)
    out = subprocess.run([str(tmp_path / "eval")], capture_output=True, text=True, check=True).stdout.split()
    for (types, env, poly, value), printed in zip(cases, out):
        assert int(printed) == value.value, (poly.c(), types, env)


def test_loops_and_conditions_run_as_c_runs_them():
    i, n = {"i": "size_t", "n": "size_t"}, {"i": 0, "n": 0}
    # j = i - 2 wraps at i = 0: j < i + 3 is false at once
    band = Loop("j", Poly(((1, ("i",)),), -2), Poly(((1, ("i",)),), 3), ())
    assert band.values(dict(n), {**i, "j": "size_t"}) == []
    assert list(band.values(dict(n))) == [-2, -1, 0, 1, 2]  # as int
    # i < n - 1 at n = 0 runs away; i + 1 < n does not run
    ascending = Loop("i", Poly(), Poly(((1, ("n",)),), -1), ())
    with pytest.raises(cint.RunsAway):
        ascending.values(dict(n), i)
    assert replace(ascending, style="plus").values(dict(n), i) == []
    # descending to 0 written for unsigned counters, and the int way (which never ends)
    down = Loop("i", Poly(), Poly(((1, ("n",)),), 0), (), descending=True)
    env = {"n": 3}
    assert replace(down, style="postdec").values(env, i) == [2, 1, 0]
    assert replace(down, style="gt").values(env, i) == [3, 2, 1]
    with pytest.raises(cint.RunsAway):
        down.values(env, i)
    assert list(down.values(env)) == [2, 1, 0]
    assert Cond(Poly(((1, ("i",)),), -1), "==", Poly((), 1), modulus=2).holds({"i": 0}, i)
    assert not Cond(Poly(((1, ("i",)),), -1), "==", Poly((), 1), modulus=2).holds({"i": 0})


def _build_and_run(program, tmp_path: Path, tag: str, strict: bool = True) -> subprocess.CompletedProcess:
    src = tmp_path / f"{tag}.c"
    src.write_text(to_c(program))
    exe = tmp_path / tag
    subprocess.run(["cc", *(STRICT if strict else ()), *SANITIZE, str(src), "-o", str(exe), "-lm"], check=True)
    return subprocess.run([str(exe), *program.args()], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "ASAN_OPTIONS": "detect_leaks=0"})


def test_typed_programs_build_with_werror_and_run_clean_under_sanitizers(tmp_path):
    """Each at its own sizes and, as the shrinker would try, at sizes 0 to 2 where the model
    accepts them (``finalize`` runs the loops as C does, wrapped bounds included)."""
    programs = [p for p in _typed() if re.search(r"[nmp] - [123]", to_c(p))][:5]
    assert len(programs) == 5
    built = 0
    for p in programs:
        variants = [p]
        for value in (0, 1, 2):
            try:
                variants.append(finalize(replace(p, params=tuple((name, value if name != generator.BIG_PARAM else v)
                                                                  for name, v in p.params))))
            except TooBig:
                continue
        for k, v in enumerate(variants[:3]):
            run = _build_and_run(v, tmp_path, f"p{p.seed}_{k}")
            assert run.returncode == 0, f"seed {p.seed} at {v.args()}: {run.stderr[-2000:]}"
            built += 1
    assert built >= 10


def test_shrinking_keeps_typed_programs_valid(tmp_path):
    program = next(p for p in _typed() if size(p) >= 10 and any(
        isinstance(n, Loop) and n.style in ("postdec", "gt") for n in walk_nodes(p.body)))
    tried = []

    def still_fails(candidate):
        tried.append(candidate)
        return bool(candidate.types) and any(isinstance(n, Loop) and n.descending for n in walk_nodes(candidate.body))

    small = shrink(program, still_fails, max_checks=200)
    assert size(small) <= 2 and small.types
    for k, candidate in enumerate(tried[::max(1, len(tried) // 4)][:4] + [small]):
        run = _build_and_run(candidate, tmp_path, f"c{k}", strict=False)  # (loop variables left unused)
        assert run.returncode == 0, f"{to_c(candidate)}\n{run.stderr[-2000:]}"


# ---- through the real optimizer ------------------------------------------------------------------------------------
CAMPAIGN_SEED = 4100060  # 10 programs, 7 of them with other counter types; 4100069 found a wrong answer


def test_a_small_campaign_with_other_counter_types_passes(tmp_path, capsys):
    assert len(_typed(range(CAMPAIGN_SEED, CAMPAIGN_SEED + 10))) >= 6
    rc = cli.main(["fuzz", "--count", "10", "--seed", str(CAMPAIGN_SEED), "--keep", str(tmp_path / "keep"),
                   "--jobs", "2", "--quiet"])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "10 programs (c): 0 mismatches" in out and " 0 invalid" in out, out
