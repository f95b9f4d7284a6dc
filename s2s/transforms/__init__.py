"""Transformations of the IR. Each checks legality before it applies and returns a new SDFG."""
from s2s.transforms.machine_options import optimize_options
from s2s.transforms.polyhedral import Choice, OptimizeOptions, choose_schedule
from s2s.transforms.scop_codegen import ScopOutcome, regenerate_scops

__all__ = ["Choice", "OptimizeOptions", "ScopOutcome", "choose_schedule", "optimize_options", "regenerate_scops"]
