"""Differential fuzzing of the optimizer (``s2s fuzz``): random affine loop programs, built with
``cc -O0`` and through ``s2s-cc`` in pluto mode, must print the same bytes.

    generate(seed) -> Program          the program model (s2s.fuzz.model), a pure function of the seed
    to_c(program) -> str               the C file
    check_source(src, args, env, options) -> Outcome
    shrink(program, still_fails) -> Program
    run_fuzz(count, seed, options, jobs, keep) -> Summary
    read_case(path), check_file(path)  saved failures (tests/fuzz_regressions)
"""
from s2s.fuzz.campaign import Summary, run_fuzz
from s2s.fuzz.generator import generate
from s2s.fuzz.model import Program
from s2s.fuzz.printer import to_c
from s2s.fuzz.regressions import check_file, read_case
from s2s.fuzz.runner import Outcome, RunOptions, check_source
from s2s.fuzz.shrink import shrink

__all__ = ["Outcome", "Program", "RunOptions", "Summary", "check_file", "check_source", "generate", "read_case",
           "run_fuzz", "shrink", "to_c"]
