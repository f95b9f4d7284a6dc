"""Hot loop nests of a program and what s2s did to each, from ``s2s-cc --s2s-report`` lines.

The convention (docs/benchmarking.md, "Realistic programs"): a comment ``/* hot */`` before a
loop marks the nest that loop heads as hot; ``/* hot: not affine (why) */`` marks a hot nest that
stays non-affine even once its pointers are resolved (subscripts or bounds that are data), which
the goal's share leaves out. Only blank lines, comments and preprocessor lines (``#pragma omp``)
may stand between the marker and the loop.

What s2s did to a nest comes from the build log of ``S2S_REPORT=1 s2s-cc``: one line per SCoP
(``FILE:LINE: FUNC: SCoP at Ln optimized (...)`` or ``... left as is (reason)``), a line per nest
that is not a SCoP where s2s-cc writes them (``FILE:LINE: FUNC: loop nest at Ln not a SCoP:
reason``), or a note that the file was compiled unchanged. Which SCoPs lie in which nest comes
from s2s's own front end and SCoP detection (``find_scops``) run on the source here (the report
names a SCoP by its first line only), and so does why a nest is not a SCoP where the report
does not say (``find_scops``' obstacles).

A nest is *optimized* when a SCoP inside it was (``inner`` when that SCoP is not the whole nest:
its outer loops stayed as written); otherwise the reasons are those of the report lines of its
SCoPs, and the obstacle that keeps its outermost loop out of a SCoP.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from s2s.driver.why_report import NEST_LINE, SCOP_LINE

_MARKER = re.compile(r"/\*\s*hot\b\s*(?::\s*(?P<note>.*?))?\s*\*/", re.S)
_LOOP = re.compile(r"\b(for|while|do)\b")
REPORT_PREFIX = "s2s-cc: report: "
NOTE_PREFIX = "s2s-cc: note: "


class MarkerError(ValueError):
    """A ``/* hot */`` marker that no loop follows."""


@dataclass(frozen=True)
class HotNest:
    line: int          # the line of the nest's outermost loop (``for``, ``while`` or ``do``)
    end: int           # the last line of the nest
    marker: int        # the line of the marker
    affine: bool       # False for ``/* hot: not affine ... */``
    note: str = ""     # the marker's text after ``hot:``


@dataclass(frozen=True)
class ScopSpan:
    function: str
    line: int          # its first line, as the report gives it
    end: int
    node: str          # the IR id of its first node (``L2``)


@dataclass
class NestModel:
    """A hot nest with what s2s's front end sees in it (independent of the configuration)."""

    nest: HotNest
    function: str | None
    scops: list[ScopSpan] = field(default_factory=list)  # SCoPs inside the nest (or holding it)
    obstacle: str | None = None  # why its outermost loop is not in a SCoP; None when it is

    @property
    def whole(self) -> bool:
        """Whether one SCoP holds the whole nest."""
        return self.obstacle is None


@dataclass(frozen=True)
class ReportLine:
    file: str
    line: int
    function: str
    node: str
    verdict: str   # "optimized" | "left as is" | "rebuilt through isl" | "not a SCoP"
    reason: str

    @property
    def applied(self) -> bool:
        return self.verdict not in ("left as is", "not a SCoP")


@dataclass
class NestOutcome:
    """What one configuration's build did to one hot nest."""

    nest: HotNest
    function: str | None
    status: str            # "optimized" | "inner" | "left as is" | "not a SCoP" | "unchanged" | "no report"
    reasons: list[str] = field(default_factory=list)

    @property
    def optimized(self) -> bool:
        return self.status in ("optimized", "inner")

    def to_json(self) -> dict:
        return {"line": self.nest.line, "end": self.nest.end, "function": self.function,
                "affine": self.nest.affine, "note": self.nest.note, "status": self.status,
                "optimized": self.optimized, "reasons": list(self.reasons)}


# --- the markers -----------------------------------------------------------------------------------

def _blank_out(text: str) -> str:
    """``text`` with comments, string and character literals replaced by spaces (newlines kept)."""
    out = list(text)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
        else:
            i += 1
            continue
        for k in range(i, j):
            if out[k] != "\n":
                out[k] = " "
        i = j
    return "".join(out)


def _skip_space(code: str, i: int) -> int:
    while i < len(code) and code[i].isspace():
        i += 1
    return i


def _matching(code: str, i: int) -> int:
    """The index after the bracket closing the one at ``i``."""
    pairs = {"(": ")", "[": "]", "{": "}"}
    stack = []
    for j in range(i, len(code)):
        c = code[j]
        if c in pairs:
            stack.append(pairs[c])
        elif stack and c == stack[-1]:
            stack.pop()
            if not stack:
                return j + 1
    raise MarkerError("unbalanced brackets")


def _statement_end(code: str, i: int) -> int:
    """The index after the C statement starting at ``i`` (comments already blanked)."""
    i = _skip_space(code, i)
    if code.startswith("{", i):
        return _matching(code, i)
    m = re.compile(r"(for|while|if|do|else)\b").match(code, i)
    if m and m.group(1) in ("for", "while", "if"):
        j = _skip_space(code, m.end())
        j = _statement_end(code, _matching(code, j))
        if m.group(1) == "if":
            k = _skip_space(code, j)
            if re.compile(r"else\b").match(code, k):
                j = _statement_end(code, k + 4)
        return j
    if m and m.group(1) == "do":
        j = _skip_space(code, _statement_end(code, m.end()))
        j = _matching(code, _skip_space(code, j + len("while")))
        return code.index(";", j) + 1
    depth = 0
    for j in range(i, len(code)):
        c = code[j]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == ";" and depth == 0:
            return j + 1
    raise MarkerError("statement without end")


def hot_nests(text: str) -> list[HotNest]:
    """The hot nests marked in the C source ``text``, in source order."""
    code = _blank_out(text)
    found = []
    for m in _MARKER.finditer(text):
        marker = text.count("\n", 0, m.start()) + 1
        i = m.end()
        while True:  # blank lines, comments (blanked) and preprocessor lines up to the loop
            i = _skip_space(code, i)
            if code.startswith("#", i):
                j = code.find("\n", i)
                while j > 0 and code[j - 1] == "\\":
                    j = code.find("\n", j + 1)
                i = len(code) if j < 0 else j
                continue
            break
        loop = _LOOP.match(code, i)
        if loop is None:
            raise MarkerError(f"line {marker}: a /* hot */ marker not followed by a loop")
        end = _statement_end(code, i)
        note = " ".join((m.group("note") or "").split())
        found.append(HotNest(line=code.count("\n", 0, i) + 1, end=code.count("\n", 0, end - 1) + 1,
                             marker=marker, affine=not note.lower().startswith("not affine"), note=note))
    return found


# --- what s2s's front end sees ------------------------------------------------------------------

def nest_models(path: Path, nests: Sequence[HotNest], cpp_args: Sequence[str] = (), compiler: str = "cc") -> list[NestModel]:
    """Each nest of ``path`` with its function, the SCoPs in it and the obstacle of its outermost
    loop (s2s's front end and SCoP detection, as s2s-cc runs them)."""
    from frontends.c import lift_c_file
    from s2s.analysis import find_scops
    from s2s.ir import LOOPS, Opaque, walk

    unit, _ = lift_c_file(str(path), list(cpp_args), compiler)
    spans: list[tuple[str, int, int]] = []   # (function, first line, last line)
    scops: list[tuple[ScopSpan, set[int]]] = []   # each SCoP and the lines of its loops
    at_line: dict[int, object] = {}   # line -> the outermost loop or opaque statement there
    stopped: dict[int, str] = {}      # line of a nest left out of every SCoP -> what stopped it
    for sdfg in unit.functions:
        lines = [n.origin.line for n in walk(sdfg.body) if getattr(n, "origin", None) is not None]
        if sdfg.origin is not None:
            lines.append(sdfg.origin.line)
        if lines:
            spans.append((sdfg.name, min(lines), max(lines)))
        obstacles: list = []
        for scop in find_scops(sdfg, obstacles):
            inside = [n for r in scop.nodes for n in walk(r) if getattr(n, "origin", None) is not None]
            if inside:
                first = scop.first_line or min(n.origin.line for n in inside)
                scops.append((ScopSpan(sdfg.name, first, max(n.origin.line for n in inside), scop.nodes[0].id),
                              {n.origin.line for n in inside if isinstance(n, LOOPS)}))
        for o in obstacles:
            if o.nest.origin is not None:
                stopped.setdefault(o.nest.origin.line, o.describe())
        for n in walk(sdfg.body):
            if isinstance(n, (*LOOPS, Opaque)) and n.origin is not None and n.origin.line not in at_line:
                at_line[n.origin.line] = n
    models = []
    for nest in nests:
        function = next((name for name, a, b in spans if a <= nest.line <= b), None)
        model = NestModel(nest, function)
        mine = [(s, loops) for s, loops in scops if s.function == function]
        holder = next((s for s, loops in mine if nest.line in loops), None)
        model.scops = [holder] if holder else [s for s, _ in mine if nest.line <= s.line <= nest.end]
        if holder is None:
            node = at_line.get(nest.line)
            if nest.line in stopped:
                model.obstacle = stopped[nest.line]
            elif isinstance(node, Opaque):
                model.obstacle = f"code s2s does not model: {node.reason}"
            elif node is not None:
                model.obstacle = "in no SCoP of its own"
            else:
                model.obstacle = "s2s's front end found no loop at this line"
        models.append(model)
    return models


# --- the report of one build -------------------------------------------------------------------

def parse_report(log: str) -> tuple[list[ReportLine], list[str]]:
    """The SCoP lines of ``s2s-cc --s2s-report`` in a build log, and its notes (a file compiled
    unchanged, ...)."""
    lines, notes = [], []
    for raw in log.splitlines():
        if raw.startswith(NOTE_PREFIX):
            notes.append(raw[len(NOTE_PREFIX):].strip())
        elif raw.startswith(REPORT_PREFIX):
            text = raw[len(REPORT_PREFIX):].strip()
            m = SCOP_LINE.match(text) or NEST_LINE.match(text)
            if m:
                lines.append(ReportLine(m.group("file"), int(m.group("line")), m.group("func"), m.group("node"),
                                        m.group("verdict"), m.group("reason")))
    return lines, notes


def outcomes(models: Sequence[NestModel], source: Path, log: str) -> list[NestOutcome] | None:
    """What the build whose log is ``log`` did to each hot nest of ``source``; None when the log
    holds no report of s2s-cc at all (a build without s2s)."""
    lines, notes = parse_report(log)
    name = source.name
    mine = [r for r in lines if Path(r.file).name == name]
    unchanged = [n for n in notes if ("compiled unchanged" in n or "optimization skipped" in n)
                 and (n.startswith("optimization skipped") or Path(n.split(": ", 1)[0]).name == name)]
    if not mine and not unchanged and REPORT_PREFIX not in log:
        return None
    result = []
    for m in models:
        out = NestOutcome(m.nest, m.function, "no report")
        said = sorted((r.line != m.nest.line, r.line, r.reason) for r in mine if r.verdict == "not a SCoP"
                      and r.function == m.function and m.nest.line <= r.line <= m.nest.end)
        obstacle = said[0][2] if said else m.obstacle   # the report's words where it has them
        if unchanged:
            out.status, out.reasons = "unchanged", [_short(n) for n in unchanged]
            result.append(out)
            continue
        verdicts = [(s, next((r for r in mine if r.function == s.function and r.line == s.line
                              and r.verdict != "not a SCoP"), None)) for s in m.scops]
        applied = [s for s, r in verdicts if r is not None and r.applied]
        if applied:
            out.status = "optimized" if m.whole else "inner"
            if not m.whole:
                out.reasons.append(f"outer loop not in a SCoP: {obstacle}")
        elif m.scops:
            out.status = "left as is" if m.whole else "not a SCoP"
            if not m.whole:
                out.reasons.append(obstacle)
            for s, r in verdicts:
                what = r.reason if r is not None else "no report line"
                out.reasons.append(what if m.whole else f"inner SCoP at line {s.line} left as is ({what})")
        else:
            out.status = "not a SCoP"
            out.reasons.append(obstacle)
        result.append(out)
    return result


def _short(note: str) -> str:
    path, sep, rest = note.partition(": ")
    return (Path(path).name + sep + rest) if sep and "/" in path else note
