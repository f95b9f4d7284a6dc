"""The C back end: IR -> C text, spliced into the user's original file."""
from backends.c.printer import CPrinter, merged_definitions
from backends.c.splice import Replacement, line_directive, splice

__all__ = ["CPrinter", "Replacement", "line_directive", "merged_definitions", "splice"]
