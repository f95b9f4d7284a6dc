"""Analyses on the IR: SCoP extraction and the isl model, dependences, liveness."""
from s2s.analysis.affine import AffineBuilder, NotAffine
from s2s.analysis.dependences import Dependences, LoopInfo, compute_dependences, loop_info
from s2s.analysis.liveness import live_loop_variables
from s2s.analysis.reductions import Reduction, loop_reductions, reductions
from s2s.analysis.scop import Loop, Scop, Statement, build_scop, find_scops
from s2s.analysis.scop_id import numbered_scop_ids, scop_id

__all__ = [
    "AffineBuilder", "NotAffine", "Dependences", "LoopInfo", "Reduction", "compute_dependences", "loop_info",
    "reductions", "loop_reductions", "live_loop_variables", "Loop", "Scop", "Statement", "build_scop", "find_scops", "scop_id",
    "numbered_scop_ids",
]
