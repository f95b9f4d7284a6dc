"""The C front end: the real compiler's preprocessor, pycparser(ext), and a lifter into s2s.ir."""
from frontends.c.translation_unit import lift_c_file, lift_translation_unit
from frontends.c.parse import parse
from frontends.c.preprocess import preprocess

__all__ = ["lift_c_file", "lift_translation_unit", "parse", "preprocess"]
