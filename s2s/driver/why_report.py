"""A build's report: every ``s2s-cc`` process appends its report lines to ``$S2S_REPORT_FILE``,
and ``s2s analyze --why`` sums them up: how many loop nests were optimized, and for those that
were not, the reasons, most frequent first, each with the places it stopped.

Many compiler processes of one ``make -j`` append to the file at once: each writes its lines in
one ``write`` to a descriptor opened with ``O_APPEND``, under an exclusive ``flock``, so the
blocks never interleave.
"""
from __future__ import annotations

import os
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Iterable

OPTIMIZED = "optimized"
LEFT_AS_IS = "SCoP left as is"
NOT_A_SCOP = "not a SCoP"
FELL_BACK = "file compiled unchanged"

# the report's lines about a SCoP and about a loop nest that is none (s2s.driver.pipeline writes them)
SCOP_LINE = re.compile(r"^(?P<file>.+?):(?P<line>\d+): (?P<func>[A-Za-z_]\w*): SCoP at (?P<node>\S+) "
                       r"(?P<verdict>optimized|rebuilt through isl|left as is) \((?P<reason>.*)\)$")
NEST_LINE = re.compile(r"^(?P<file>.+?):(?P<line>\d+): (?P<func>[A-Za-z_]\w*): loop nest at (?P<node>\S+) "
                       r"(?P<verdict>not a SCoP): (?P<reason>.*)$")
_NO_LOOP = re.compile(r"^(?P<file>.+): no loop; compiled as it is$")
_SKIPPED = re.compile(r"^(?P<file>.+): optimization skipped \((?P<reason>.*)\); compiled unchanged$")
_FILE_DONE = re.compile(r"^(?P<file>.+): (?:unchanged|optimized)$")
_OBSTACLE_AT = re.compile(r"\s+\(at [^()]*:\d+:\d+\)$")


def append_report(path: str, lines: Iterable[str]) -> None:
    """Append ``lines`` to the report file ``path`` in one locked write (never raises: a report
    that cannot be written must not break the build)."""
    data = "".join(line.rstrip("\n") + "\n" for line in lines).encode("utf-8", "surrogateescape")
    if not data:
        return
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    except OSError:
        return
    try:
        try:
            import fcntl

            fcntl.flock(fd, fcntl.LOCK_EX)
        except (ImportError, OSError):
            pass
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    except OSError:
        pass
    finally:
        os.close(fd)


@dataclass
class Outcome:
    kind: str           # OPTIMIZED, LEFT_AS_IS, NOT_A_SCOP
    where: str          # file:line
    function: str
    reason: str


@dataclass
class WhySummary:
    outcomes: list[Outcome] = field(default_factory=list)
    files: set[str] = field(default_factory=set)
    files_without_loops: set[str] = field(default_factory=set)
    fell_back: dict[str, str] = field(default_factory=dict)   # file -> why it was compiled unchanged

    def count(self, kind: str) -> int:
        return sum(o.kind == kind for o in self.outcomes)

    def by_reason(self, kind: str) -> list[tuple[str, list[Outcome]]]:
        """Outcomes of ``kind`` grouped by reason (names and numbers left out), most first."""
        groups: dict[str, list[Outcome]] = defaultdict(list)
        for o in self.outcomes:
            if o.kind == kind:
                groups[reason_class(o.reason)].append(o)
        return sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))


def reason_class(reason: str) -> str:
    """A reason without what is particular to one place: names in quotes, node ids, numbers."""
    text = _OBSTACLE_AT.sub("", reason)
    text = re.sub(r"`[^`]*`|'[^']*'|\"[^\"]*\"", "…", text)
    text = re.sub(r"\b[A-Z]\d+\b", "#", text)
    text = re.sub(r"\b\d+(\.\d+)?\b", "N", text)
    text = re.sub(r"\b(variables?|arrays?|scalars?|call|calls|function|update of) [A-Za-z_]\w*(, [A-Za-z_]\w*)*",
                  lambda m: m.group(1) + " …", text)
    return text


def parse_report(lines: Iterable[str]) -> WhySummary:
    """Read report lines (``s2s-cc: report:`` prefixes and recipe lines are skipped); a nest
    reported more than once (a file compiled twice) counts once, as last reported."""
    summary = WhySummary()
    latest: dict[tuple[str, str], Outcome] = {}
    for raw in lines:
        line = raw.rstrip("\n")
        line = re.sub(r"^s2s-cc: (?:report|note): ", "", line)
        if m := SCOP_LINE.match(line):
            kind = LEFT_AS_IS if m["verdict"] == "left as is" else OPTIMIZED
            latest[(f"{m['file']}:{m['line']}", "scop")] = Outcome(kind, f"{m['file']}:{m['line']}", m["func"], m["reason"])
            summary.files.add(m["file"])
        elif m := NEST_LINE.match(line):
            latest[(f"{m['file']}:{m['line']}", "nest")] = Outcome(NOT_A_SCOP, f"{m['file']}:{m['line']}", m["func"],
                                                                     m["reason"])
            summary.files.add(m["file"])
        elif m := _NO_LOOP.match(line):
            summary.files_without_loops.add(m["file"])
        elif m := _SKIPPED.match(line):
            summary.fell_back[m["file"]] = m["reason"]
            summary.files.add(m["file"])
        elif m := _FILE_DONE.match(line):
            summary.files.add(m["file"])
    summary.outcomes = list(latest.values())
    return summary


def format_summary(summary: WhySummary, examples: int = 3) -> str:
    nests = len(summary.outcomes)
    optimized = summary.count(OPTIMIZED)
    out = [f"{len(summary.files | summary.files_without_loops)} files: {len(summary.files_without_loops)} without a loop, "
           f"{len(summary.fell_back)} compiled unchanged after a failure",
           f"{nests} loop nests: {optimized} optimized"
           + (f" ({100.0 * optimized / nests:.0f}%)" if nests else "")
           + f", {summary.count(LEFT_AS_IS)} SCoPs left as they are, {summary.count(NOT_A_SCOP)} not SCoPs"]
    for kind, title in ((NOT_A_SCOP, "Not SCoPs, by the first construct that stopped them"),
                        (LEFT_AS_IS, "SCoPs left as they are, by reason")):
        groups = summary.by_reason(kind)
        if not groups:
            continue
        out += ["", f"{title}:"]
        for reason, members in groups:
            places = ", ".join(f"{o.where} ({o.function})" for o in members[:examples])
            more = f", +{len(members) - examples} more" if len(members) > examples else ""
            out.append(f"  {len(members):5d}  {reason}")
            out.append(f"         {places}{more}")
    if summary.fell_back:
        out += ["", "Files compiled unchanged (s2s failed on them):"]
        for reason, n in Counter(summary.fell_back.values()).most_common():
            files = sorted(f for f, r in summary.fell_back.items() if r == reason)
            out.append(f"  {n:5d}  {reason}")
            out.append(f"         {', '.join(files[:examples])}{f', +{n - examples} more' if n > examples else ''}")
    return "\n".join(out) + "\n"


def summary_json(summary: WhySummary) -> dict:
    return {
        "files": sorted(summary.files | summary.files_without_loops),
        "files_without_loops": sorted(summary.files_without_loops),
        "compiled_unchanged": dict(sorted(summary.fell_back.items())),
        "loop_nests": len(summary.outcomes),
        "optimized": summary.count(OPTIMIZED),
        "left_as_is": summary.count(LEFT_AS_IS),
        "not_scops": summary.count(NOT_A_SCOP),
        "reasons": {kind: [{"reason": reason, "count": len(members),
                            "places": [{"where": o.where, "function": o.function, "reason": o.reason}
                                       for o in members]}
                           for reason, members in summary.by_reason(kind)]
                    for kind in (NOT_A_SCOP, LEFT_AS_IS)},
    }
