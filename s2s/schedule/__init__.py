"""Scheduling: choosing new schedules for SCoPs, and code generation from a schedule."""
from s2s.schedule.codegen import CodegenError, generate, substitute_block

__all__ = ["CodegenError", "generate", "substitute_block"]
