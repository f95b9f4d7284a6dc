"""Saved failures: one small C file each, whose first comment says how to rebuild and run it.

    /* s2s-fuzz: seed=1234 target=openmp tile=4,2,8 fuse=smart kernels=on work=- profitability=on args=7,12 */
    /* s2s-fuzz-xfail: <why, while the bug is open> */      (optional)

``tests/fuzz_regressions/*.c`` are such files; the test suite checks each one both ways with
``check_file``, and marks the ones with an xfail line as expected failures (strict: fixing the bug
makes the test fail until the line is removed).
"""
from __future__ import annotations

import dataclasses

import re
from dataclasses import dataclass
from pathlib import Path

from s2s.fuzz.model import BuildConfig
from s2s.fuzz.runner import Outcome, RunOptions, check_source

_HEADER = re.compile(r"/\* s2s-fuzz: (.*?) \*/")
_XFAIL = re.compile(r"/\* s2s-fuzz-xfail: (.*?) \*/")


@dataclass(frozen=True)
class SavedCase:
    path: Path
    seed: int
    target: str
    config: BuildConfig
    args: list[str]
    xfail: str  # why it is expected to fail, or ""

    @property
    def source(self) -> str:
        return self.path.read_text()


def read_case(path: Path) -> SavedCase:
    text = path.read_text()
    m = _HEADER.search(text)
    if m is None:
        raise ValueError(f"{path}: no '/* s2s-fuzz: ... */' header")
    fields = dict(item.split("=", 1) for item in m.group(1).split())
    config = BuildConfig(tile="" if fields.get("tile", "-") == "-" else fields["tile"],
                         fuse=fields.get("fuse", "smart"), kernels=fields.get("kernels", "on"),
                         work="" if fields.get("work", "-") == "-" else fields["work"],
                         profitability=fields.get("profitability", "on"))
    args = [] if fields.get("args", "-") == "-" else fields["args"].split(",")
    x = _XFAIL.search(text)
    return SavedCase(path, int(fields.get("seed", "0")), fields.get("target", "c"), config, args,
                     x.group(1) if x else "")


def check_file(path: Path, options: RunOptions | None = None) -> Outcome:
    case = read_case(path)
    options = options or RunOptions()
    if options.target != case.target:
        options = dataclasses.replace(options, target=case.target)
    return check_source(case.source, case.args, case.config.env(), options)
