"""Helpers for the tests that build real C programs with ``cc`` and with ``s2s-cc``.

* where the tools are (``s2s_cc_path``, ``REAL_CC``) and how to run them (``compile_c``, ``run_program``);
* ``s2s_env``: the environment of an ``s2s-cc`` run (mode, kept-file directory);
* ``find_kept_source``: the generated C file ``s2s-cc`` left under ``S2S_KEEP``;
* a small C scanner (``scan``) that knows where the function bodies and the loop statements of a
  source file are, so tests can check that the generated file keeps every byte of the user's file
  outside the loop nests it rewrote (``preserved_pieces``, ``check_pieces_in_order``).

The scanner is deliberately simple (no preprocessing, no types): it tokenises the original text,
skips comments, strings and preprocessor lines, matches braces, decides which top-level ``{`` opens
a function body (the head before it ends with ``)`` and has no ``=``), and inside bodies parses
statements just enough to find every ``for`` / ``while`` / ``do`` statement.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CORPUS_DIR = REPO / "tests" / "corpus"
PROJECTS_DIR = REPO / "tests" / "projects"
REAL_CC = "cc"
NOTE_PREFIX = "s2s-cc: note:"


def s2s_cc_path() -> Path:
    """The ``s2s-cc`` next to the running interpreter (the venv's), else the repo's ``.venv``, else PATH."""
    candidates = [Path(sys.executable).parent / "s2s-cc", REPO / ".venv" / "bin" / "s2s-cc"]
    for c in candidates:
        if c.is_file() and os.access(c, os.X_OK):
            return c
    found = shutil.which("s2s-cc")
    if found:
        return Path(found)
    raise FileNotFoundError("s2s-cc not found (install the project: pip install -e .)")


# where s2s keeps state (its cache of optimized files): tests/conftest.py gives each test its own
STATE_VARIABLES = ("S2S_CACHE", "S2S_CACHE_DIR")


def without_settings(env: dict[str, str] | os._Environ = os.environ) -> dict[str, str]:
    """``env`` without S2S_* settings (the test's own state directories stay)."""
    return {k: v for k, v in env.items() if not k.startswith("S2S_") or k in STATE_VARIABLES}


def s2s_env(keep_dir: Path | None = None, mode: str = "identity", **extra: str) -> dict[str, str]:
    """Environment for an ``s2s-cc`` run: inherited, minus stray S2S_* settings, plus ours."""
    env = without_settings()
    env["S2S_MODE"] = mode
    env["S2S_CC"] = REAL_CC
    if keep_dir is not None:
        env["S2S_KEEP"] = str(keep_dir)
    env.update(extra)
    return env


def plain_env() -> dict[str, str]:
    return without_settings()


def compile_c(compiler: str | Path, args: list[str], cwd: Path, env: dict[str, str] | None = None,
              timeout: float = 180) -> subprocess.CompletedProcess:
    return subprocess.run([str(compiler), *args], cwd=cwd, env=env if env is not None else plain_env(),
                          capture_output=True, text=True, timeout=timeout)


def run_program(exe: Path, cwd: Path, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([str(exe)], cwd=cwd, capture_output=True, timeout=timeout)


def outputs_of_both_builds(src: Path, generated: str, openmp: bool, threads: int = 2) -> tuple[str, str]:
    """The standard output of ``src`` built with ``cc`` and of ``generated`` (its optimized
    text) built with ``cc`` (``-fopenmp`` if asked, run on ``threads`` threads). Without FMA
    contraction, so that vector kernels and scalar loops round alike and outputs compare bit for bit."""
    opt = src.with_suffix(".opt.c")
    opt.write_text(generated)
    flags = ["-O2", "-ffp-contract=off", "-march=native"]
    ref_exe, opt_exe = src.with_suffix(".ref"), src.with_suffix(".opt")
    subprocess.run([REAL_CC, *flags, str(src), "-o", str(ref_exe), "-lm"], check=True)
    subprocess.run([REAL_CC, *flags, *(["-fopenmp"] if openmp else []), str(opt), "-o", str(opt_exe), "-lm"],
                   check=True)
    env = {**os.environ, "OMP_NUM_THREADS": str(threads)}
    ref = subprocess.run([str(ref_exe)], capture_output=True, text=True, check=True).stdout
    out = subprocess.run([str(opt_exe)], capture_output=True, text=True, check=True, env=env).stdout
    return ref, out


def optimized_and_both_outputs(path: Path, program: str, target: str, kernels: bool = True):
    """``program`` written to ``path`` and optimized by the pipeline (mode pluto, ``target``,
    with or without matrix-multiply ``kernels``): the pipeline's result, and the outputs of both
    builds (``outputs_of_both_builds``)."""
    from s2s.driver.pipeline import PipelineOptions, optimize_c_file

    path.write_text(program)
    result = optimize_c_file(str(path), [], PipelineOptions(mode="pluto", target=target, kernels=kernels))
    ref, out = outputs_of_both_builds(path, result.source, openmp=target == "openmp")
    return result, ref, out


def describe(proc: subprocess.CompletedProcess, what: str) -> str:
    def text(x):
        return x.decode(errors="replace") if isinstance(x, bytes) else (x or "")
    return (f"{what}: exit {proc.returncode}\n  cmd: {' '.join(map(str, proc.args))}\n"
            f"--- stdout ---\n{text(proc.stdout)[-3000:]}\n--- stderr ---\n{text(proc.stderr)[-3000:]}")


def notes_in(proc: subprocess.CompletedProcess) -> list[str]:
    out = (proc.stdout or "") + (proc.stderr or "")
    return [line for line in out.splitlines() if NOTE_PREFIX in line]


def find_kept_source(keep_dir: Path, source_name: str, original: str) -> Path | None:
    """The generated C file for ``source_name`` under ``keep_dir`` (layout not fixed by the tests).

    Preference: a ``.c`` file whose name contains the source's stem; among several, one whose text
    starts with a ``#line`` directive, then the newest."""
    if not keep_dir.is_dir():
        return None
    stem = Path(source_name).stem
    files = [p for p in keep_dir.rglob("*") if p.is_file()]
    named = [p for p in files if stem in p.name]
    pool = [p for p in named if p.suffix == ".c"] or [p for p in files if p.suffix == ".c"] or named
    if not pool:
        return None

    def score(p: Path):
        try:
            head = p.read_text(errors="replace")[:200]
        except OSError:
            head = ""
        return (head.lstrip().startswith("#line"), p.stat().st_mtime)

    return max(pool, key=score)


def listing(d: Path) -> str:
    if not d.exists():
        return f"{d} does not exist"
    items = sorted(str(p.relative_to(d)) for p in d.rglob("*"))
    return f"{d}: " + (", ".join(items) if items else "(empty)")


# --------------------------------------------------------------------------------------------
# A small C scanner
# --------------------------------------------------------------------------------------------

@dataclass
class Tok:
    kind: str  # "pp" (a whole preprocessor line), "id", "num", "str", "chr", "punct"
    text: str
    start: int
    end: int  # exclusive


_PUNCTS = sorted(
    "... <<= >>= -> ++ -- << >> <= >= == != && || *= /= %= += -= &= ^= |= ## "
    "[ ] ( ) { } . & * + - ~ ! / % < > ^ | ? : ; = , #".split(),
    key=len, reverse=True)
_ID_RE = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
_NUM_RE = re.compile(r"\.?[0-9](?:[eEpP][+-]|[0-9A-Za-z_.])*")


def _skip_quoted(src: str, i: int) -> int:
    q = src[i]
    i += 1
    while i < len(src) and src[i] != q and src[i] != "\n":
        i += 2 if src[i] == "\\" else 1
    return min(i + 1, len(src))


def tokenize(src: str) -> tuple[list[Tok], list[tuple[int, int]]]:
    """Tokens (comments skipped, each preprocessor line one "pp" token) and comment spans."""
    toks: list[Tok] = []
    comments: list[tuple[int, int]] = []
    i, n = 0, len(src)
    line_start = True  # only whitespace/comments so far on this line
    while i < n:
        c = src[i]
        if c == "\n":
            line_start = True
            i += 1
            continue
        if c in " \t\r\f\v":
            i += 1
            continue
        if c == "\\" and i + 1 < n and src[i + 1] == "\n":
            i += 2
            continue
        if src.startswith("/*", i):
            j = src.find("*/", i + 2)
            j = n if j < 0 else j + 2
            comments.append((i, j))
            i = j
            continue
        if src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
            comments.append((i, j))
            i = j
            continue
        if c == "#" and line_start:
            j = i
            while j < n and src[j] != "\n":
                if src[j] == "\\" and j + 1 < n and src[j + 1] == "\n":
                    j += 2
                elif src[j] in "\"'":
                    j = _skip_quoted(src, j)
                elif src.startswith("/*", j):
                    k = src.find("*/", j + 2)
                    j = n if k < 0 else k + 2
                elif src.startswith("//", j):
                    k = src.find("\n", j)
                    j = n if k < 0 else k
                else:
                    j += 1
            toks.append(Tok("pp", src[i:j], i, j))
            i = j
            continue
        line_start = False
        if c in "\"'":
            j = _skip_quoted(src, i)
            toks.append(Tok("str" if c == '"' else "chr", src[i:j], i, j))
            i = j
            continue
        m = _ID_RE.match(src, i)
        if m:
            toks.append(Tok("id", m.group(), i, m.end()))
            i = m.end()
            continue
        m = _NUM_RE.match(src, i)
        if m:
            toks.append(Tok("num", m.group(), i, m.end()))
            i = m.end()
            continue
        for p in _PUNCTS:
            if src.startswith(p, i):
                toks.append(Tok("punct", p, i, i + len(p)))
                i += len(p)
                break
        else:
            toks.append(Tok("punct", c, i, i + 1))
            i += 1
    return toks, comments


_OPEN = {"(": ")", "[": "]", "{": "}"}
_LOOP_KW = {"for", "while", "do"}
_KEYWORDS = {"case", "default", "if", "else", "switch", "for", "while", "do", "return", "goto",
             "break", "continue", "sizeof", "typedef", "struct", "union", "enum"}


def _match(toks: list[Tok], i: int) -> int:
    """Index of the bracket closing the one at ``toks[i]``."""
    stack = [_OPEN[toks[i].text]]
    j = i + 1
    while j < len(toks):
        t = toks[j].text if toks[j].kind == "punct" else None
        if t in _OPEN:
            stack.append(_OPEN[t])
        elif t in (")", "]", "}"):
            stack.pop()
            if not stack:
                return j
        j += 1
    raise ValueError(f"unbalanced {toks[i].text!r} at offset {toks[i].start}")


@dataclass
class Function:
    head_start: int  # first token of the signature
    head_end: int  # end of the last token before "{"
    body_open: int  # offset of "{"
    body_close: int  # offset just after "}"


@dataclass
class Scan:
    src: str
    toks: list[Tok]
    comments: list[tuple[int, int]]
    functions: list[Function] = field(default_factory=list)
    loops: list[tuple[int, int]] = field(default_factory=list)  # spans of loop statements (and loop-macro uses)
    # spans of the statements directly in a function body that contain a loop (or a loop-macro use):
    # the regions a pipeline may regenerate; everything else must survive byte for byte
    regions: list[tuple[int, int]] = field(default_factory=list)
    loop_macros: set[str] = field(default_factory=set)

    def signature(self, f: Function) -> str:
        return self.src[f.head_start:f.head_end]

    def includes(self) -> list[str]:
        return [t.text for t in self.toks if t.kind == "pp" and re.match(r"#\s*include\b", t.text)]

    def toplevel_comments(self) -> list[str]:
        inside = [(f.body_open, f.body_close) for f in self.functions]
        return [self.src[a:b] for a, b in self.comments if not any(lo <= a < hi for lo, hi in inside)]


def _loop_macros(toks: list[Tok]) -> set[str]:
    """Names of macros defined in the file whose expansion contains a loop (directly or via another)."""
    bodies: dict[str, str] = {}
    for t in toks:
        if t.kind != "pp":
            continue
        m = re.match(r"#\s*define\s+([A-Za-z_]\w*)(\([^)]*\))?(.*)", t.text, re.S)
        if m:
            bodies[m.group(1)] = m.group(3)
    loops = {name for name, body in bodies.items() if re.search(r"\b(for|while|do)\b", body)}
    changed = True
    while changed:
        changed = False
        for name, body in bodies.items():
            if name not in loops and any(re.search(rf"\b{re.escape(l)}\b", body) for l in loops):
                loops.add(name)
                changed = True
    return loops


def scan(src: str) -> Scan:
    toks, comments = tokenize(src)
    s = Scan(src, toks, comments, loop_macros=_loop_macros(toks))
    # top level: find function definitions; a preprocessor line or ";" starts a new declaration
    i, head = 0, 0  # head: index of the first token of the current top-level declaration
    while i < len(toks):
        t = toks[i]
        if t.kind == "pp" or _is(t, ";"):
            i += 1
            head = i
            continue
        if t.kind == "punct" and t.text in ("(", "["):
            i = _match(toks, i) + 1
            continue
        if _is(t, "{"):
            close = _match(toks, i)
            prev = toks[i - 1] if i > head else None
            has_eq = any(_is(toks[k], "=") for k in _depth0(toks, head, i))
            if prev is not None and _is(prev, ")") and not has_eq:
                s.functions.append(Function(toks[head].start, prev.end, t.start, toks[close].end))
                body = [u for u in toks[i:close + 1] if u.kind != "pp"]
                k = 1
                while k < len(body) - 1:
                    before = len(s.loops)
                    nxt = _parse_stmt(body, k, len(body) - 1, s)
                    if len(s.loops) > before:
                        s.regions.append((body[k].start, body[nxt - 1].end))
                    k = nxt
                i = close + 1
                head = i
                continue
            i = close + 1
            continue
        i += 1
    # top-level uses of loop macros (e.g. a macro that defines a whole function with a loop)
    inside = [(f.body_open, f.body_close) for f in s.functions]
    code = [t for t in toks if t.kind != "pp"]
    for k, t in enumerate(code):
        if t.kind == "id" and t.text in s.loop_macros and not any(lo <= t.start < hi for lo, hi in inside):
            end = t.end
            if k + 1 < len(code) and code[k + 1].text == "(":
                end = code[_match(code, k + 1)].end
            s.loops.append((t.start, end))
            s.regions.append((t.start, end))
    s.loops.sort()
    s.regions.sort()
    return s


def _depth0(code: list[Tok], a: int, b: int):
    k = a
    while k < b:
        if code[k].kind == "punct" and code[k].text in _OPEN:
            k = _match(code, k) + 1
            continue
        yield k
        k += 1


def _is(t: Tok, text: str) -> bool:
    return t.text == text and t.kind in ("punct", "id")


def _parse_items(code: list[Tok], i: int, end: int, s: Scan) -> None:
    while i < end:
        i = _parse_stmt(code, i, end, s)


def _parse_stmt(code: list[Tok], i: int, end: int, s: Scan) -> int:
    t = code[i]
    if _is(t, "{"):
        j = _match(code, i)
        _parse_items(code, i + 1, j, s)
        return j + 1
    if _is(t, ";"):
        return i + 1
    if t.kind == "id" and t.text in ("for", "while"):
        j = _match(code, i + 1)
        k = _parse_stmt(code, j + 1, end, s)
        s.loops.append((t.start, code[k - 1].end))
        return k
    if t.kind == "id" and t.text == "do":
        k = _parse_stmt(code, i + 1, end, s)
        assert _is(code[k], "while"), f"do without while at offset {t.start}"
        p = _match(code, k + 1)
        assert _is(code[p + 1], ";")
        s.loops.append((t.start, code[p + 1].end))
        return p + 2
    if t.kind == "id" and t.text == "if":
        j = _match(code, i + 1)
        k = _parse_stmt(code, j + 1, end, s)
        if k < end and _is(code[k], "else"):
            k = _parse_stmt(code, k + 1, end, s)
        return k
    if t.kind == "id" and t.text == "switch":
        j = _match(code, i + 1)
        return _parse_stmt(code, j + 1, end, s)
    if t.kind == "id" and t.text in ("case", "default"):
        j, pending = i + 1, 0
        while j < end:
            if code[j].kind == "punct" and code[j].text in _OPEN:
                j = _match(code, j) + 1
                continue
            if _is(code[j], "?"):
                pending += 1
            elif _is(code[j], ":"):
                if pending == 0:
                    break
                pending -= 1
            j += 1
        return j + 1 if j + 1 >= end or _is(code[j + 1], "}") else _parse_stmt(code, j + 1, end, s)
    if t.kind == "id" and t.text not in _KEYWORDS and i + 1 < end and _is(code[i + 1], ":"):
        return i + 2 if i + 2 >= end or _is(code[i + 2], "}") else _parse_stmt(code, i + 2, end, s)
    # an expression statement or a declaration: up to ";" at depth 0; a loop keyword at depth 0
    # ends it early (the text before was a macro such as one expanding to _Pragma(...)): then the
    # macro and the loop after it count as one statement.
    j, has_loop_macro = i, False
    while j < end:
        u = code[j]
        if u.kind == "punct" and u.text in _OPEN:
            for k in range(j, _match(code, j) + 1):
                if code[k].kind == "id" and code[k].text in s.loop_macros:
                    has_loop_macro = True
            j = _match(code, j) + 1
            continue
        if u.kind == "id" and u.text in s.loop_macros:
            has_loop_macro = True
        if u.kind == "id" and u.text in _LOOP_KW and j > i:
            k = _parse_stmt(code, j, end, s)
            s.loops.append((t.start, code[k - 1].end))
            return k
        if _is(u, ";"):
            j += 1
            break
        j += 1
    if has_loop_macro:
        s.loops.append((t.start, code[j - 1].end))
    return max(j, i + 1)


def preserved_pieces(s: Scan) -> list[str]:
    """The text the generated file must keep, as an ordered list of stripped line pieces: every
    line of the original outside the regions (statements directly in a function body that contain
    a loop, uses of loop-expanding macros), skipping preprocessor lines inside function bodies
    (a pragma may belong to the loop below it)."""
    excluded = list(s.regions)
    for t in s.toks:
        if t.kind == "pp" and any(f.body_open < t.start < f.body_close for f in s.functions):
            excluded.append((t.start, t.end))
    excluded.sort()
    keep = []
    pos = 0
    for a, b in excluded:
        if a > pos:
            keep.append(s.src[pos:a])
        pos = max(pos, b)
    keep.append(s.src[pos:])
    pieces = []
    for chunk in keep:
        for line in chunk.split("\n"):
            line = line.strip()
            if line:
                pieces.append(line)
    return pieces


def check_pieces_in_order(pieces: list[str], generated: str) -> str | None:
    """None when every piece occurs in ``generated`` in order; else a message about the first miss."""
    pos = 0
    for k, p in enumerate(pieces):
        j = generated.find(p, pos)
        if j < 0:
            anywhere = generated.find(p)
            where = "out of order (it occurs earlier)" if anywhere >= 0 else "missing"
            before = pieces[max(0, k - 2):k]
            return f"piece #{k} {where}: {p!r}\n  preceded in the original by: {before!r}"
        pos = j + len(p)
    return None
