"""Identity tests over the C corpus (tests/corpus/*.c).

For every program: build it with the real compiler (``cc``) and with ``s2s-cc`` in identity mode
(lift every function, regenerate every loop nest, transform nothing), run both, and require

* byte-identical stdout and the same exit status;
* no ``s2s-cc: note:`` line (a note means s2s-cc fell back to the user's file), except for the
  files listed in ``EXPECTED_FALLBACK`` (each with the reason);
* no diagnostics from s2s-cc where cc printed none;
* the generated file that ``s2s-cc`` kept under ``S2S_KEEP`` preserves the user's text outside the
  loop nests it rewrote: every ``#include`` line, every comment outside function bodies and every
  function signature verbatim, and every other line outside the statements that contain loops
  (see ``c_build.preserved_pieces``), in order;
* and it is not simply the original: identity mode really regenerated at least one loop nest.

A few programs are also built with ``-O0 -g``, ``-O3 -march=native`` and ``-O2 -Wall -Wextra
-Werror``; with ``-g`` the debug information must name the user's file and the user's declaration
lines, as with the real compiler.

On a failure the message names the kept generated file (it stays in pytest's tmp directory) and
shows a diff between it and the original.
"""
from __future__ import annotations

import difflib
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from c_build import (  # noqa: E402
    CORPUS_DIR, NOTE_PREFIX, REAL_CC, check_pieces_in_order, compile_c, describe, find_kept_source, listing,
    notes_in, preserved_pieces, run_program, s2s_cc_path, s2s_env, scan)

CORPUS = sorted(p.name for p in CORPUS_DIR.glob("*.c"))

# Files s2s-cc is expected to hand back unchanged (with a note), because they are written in a
# dialect our C parser does not accept. They must still build and behave identically.
EXPECTED_FALLBACK = {
    "gnu_nested_functions.c": "GCC nested functions (a function definition inside a block) are not C the parser accepts",
    "gnu_elvis.c": "the GNU conditional with an omitted operand (a ?: b) has no rule in pycparser/pycparserext",
}

# Extra flag sets, each for a few programs only (to keep the suite fast).
FLAG_VARIANTS = {
    "-O0 -g": ["loop_shapes.c", "stencils_polybench.c", "file_line_macros.c", "vla_restrict.c"],
    "-O3 -march=native": ["loop_shapes.c", "linalg_kernels.c", "pointer_loops.c", "gnu_extensions.c",
                          "float_precision.c"],
    # every corpus file is warning-free under these flags with cc; regenerated code must be too
    "-O2 -Wall -Wextra -Werror": ["loop_shapes.c", "stdlib_alloc_sort.c", "image_filters.c", "vla_restrict.c",
                                  "string_ops.c"],
}

LIBS = ["-lm"]


def test_corpus_is_present():
    assert len(CORPUS) >= 25, f"expected the C corpus under {CORPUS_DIR}"
    for name in EXPECTED_FALLBACK:
        assert name in CORPUS, f"EXPECTED_FALLBACK names a file that is not in the corpus: {name}"
    for names in FLAG_VARIANTS.values():
        for name in names:
            assert name in CORPUS, name


class Built:
    """One program built twice (cc and s2s-cc) in a private directory, and both runs."""

    def __init__(self, tmp_path: Path, name: str, flags: list[str], mode: str = "identity"):
        self.name = name
        self.dir = tmp_path
        self.keep = tmp_path / "s2s-keep"
        self.keep.mkdir()
        self.original = (CORPUS_DIR / name).read_text()
        shutil.copy(CORPUS_DIR / name, tmp_path / name)
        self.ref_build = compile_c(REAL_CC, [*flags, name, "-o", "ref.exe", *LIBS], cwd=tmp_path)
        assert self.ref_build.returncode == 0, describe(self.ref_build, f"{REAL_CC} failed on {name} (a corpus bug)")
        self.s2s_build = compile_c(s2s_cc_path(), [*flags, name, "-o", "s2s.exe", *LIBS], cwd=tmp_path,
                                   env=s2s_env(self.keep, mode=mode))
        self.kept = find_kept_source(self.keep, name, self.original)
        assert self.s2s_build.returncode == 0, describe(self.s2s_build, f"s2s-cc failed on {name}") + self.kept_info()
        self.ref_run = run_program(tmp_path / "ref.exe", tmp_path)
        self.s2s_run = run_program(tmp_path / "s2s.exe", tmp_path)
        assert self.ref_run.returncode == 0, describe(self.ref_run, f"{name} built by {REAL_CC} did not exit 0")
        assert self.ref_run.stdout, f"{name} printed nothing"

    def kept_info(self, max_lines: int = 200) -> str:
        if self.kept is None:
            return f"\n(no generated file kept: {listing(self.keep)})"
        gen = self.kept.read_text(errors="replace")
        diff = list(difflib.unified_diff(self.original.splitlines(), gen.splitlines(), f"original/{self.name}",
                                         f"generated/{self.kept.name}", lineterm="", n=2))
        more = f"\n... ({len(diff) - max_lines} more diff lines)" if len(diff) > max_lines else ""
        return f"\ngenerated file: {self.kept}\n" + "\n".join(diff[:max_lines]) + more

    def check_same_behaviour(self) -> None:
        if self.s2s_run.stdout != self.ref_run.stdout or self.s2s_run.returncode != self.ref_run.returncode:
            out_diff = "\n".join(difflib.unified_diff(
                self.ref_run.stdout.decode(errors="replace").splitlines(),
                self.s2s_run.stdout.decode(errors="replace").splitlines(), "cc", "s2s-cc", lineterm="", n=1))
            pytest.fail(f"{self.name}: program built by s2s-cc behaves differently "
                        f"(exit {self.ref_run.returncode} vs {self.s2s_run.returncode})\n"
                        f"--- stdout diff ---\n{out_diff}\n--- s2s stderr ---\n"
                        f"{self.s2s_run.stderr.decode(errors='replace')[-2000:]}" + self.kept_info())

    def check_no_fallback(self) -> None:
        notes = notes_in(self.s2s_build)
        assert not notes, f"{self.name}: s2s-cc fell back:\n" + "\n".join(notes) + self.kept_info(40)

    def check_no_new_diagnostics(self) -> None:
        """Where cc is silent, s2s-cc is silent too (a -Werror build must not break)."""
        if (self.ref_build.stderr or "").strip():
            return
        extra = [line for line in (self.s2s_build.stderr or "").splitlines() if line.strip() and NOTE_PREFIX not in line]
        assert not extra, f"{self.name}: s2s-cc printed diagnostics cc did not:\n" + "\n".join(extra[:40]) + self.kept_info(80)

    def check_regenerated(self) -> None:
        """Identity mode must really regenerate loop nests: the kept file is not just the original."""
        assert self.kept is not None, f"{self.name}: s2s-cc kept no generated file under S2S_KEEP ({listing(self.keep)})"
        body = "\n".join(line for line in self.kept.read_text().splitlines() if not line.startswith("#line"))
        original = "\n".join(self.original.splitlines())
        assert body != original, f"{self.name}: identity mode regenerated no loop nest (generated file = original)"


def _check_preserved(b: Built) -> None:
    """The generated file keeps the user's text outside the loop nests."""
    assert b.kept is not None, f"{b.name}: s2s-cc kept no generated file under S2S_KEEP ({listing(b.keep)})"
    gen = b.kept.read_text()
    s = scan(b.original)
    problems = []
    for inc in s.includes():
        if inc not in gen:
            problems.append(f"#include line missing: {inc!r}")
    for c in s.toplevel_comments():
        if c not in gen:
            problems.append(f"comment outside functions missing: {c[:120]!r}")
    for f in s.functions:
        sig = s.signature(f)
        if sig not in gen:
            problems.append(f"function signature missing: {sig!r}")
    # every line piece outside loop statements, in the original order
    msg = check_pieces_in_order(preserved_pieces(s), gen)
    if msg:
        problems.append("text outside loop nests not preserved: " + msg)
    if problems:
        pytest.fail(f"{b.name}: generated file does not preserve the original:\n  " + "\n  ".join(problems)
                    + b.kept_info())


@pytest.mark.parametrize("name", CORPUS)
def test_identity(name, tmp_path):
    """cc -O2 vs s2s-cc -O2 (S2S_MODE=identity): same output, no fallback, original text kept."""
    b = Built(tmp_path, name, ["-O2"])
    b.check_same_behaviour()
    if name in EXPECTED_FALLBACK and notes_in(b.s2s_build):
        return  # the expected fallback: the program just has to behave the same
    b.check_no_fallback()
    b.check_no_new_diagnostics()
    _check_preserved(b)
    b.check_regenerated()


@pytest.mark.parametrize("name", CORPUS)
def test_pluto_openmp(name, tmp_path):
    """cc -O2 -Wall -fopenmp vs s2s-cc -O2 -Wall -fopenmp (S2S_MODE=pluto, so OpenMP code): the same output, byte
    for byte (every dependence on a memory cell keeps its order, so every cell sees the same
    floating-point operations in the same order), no fallback, no new diagnostics."""
    b = Built(tmp_path, name, ["-O2", "-Wall", "-fopenmp"], mode="pluto")
    b.check_same_behaviour()
    if name in EXPECTED_FALLBACK and notes_in(b.s2s_build):
        return
    b.check_no_fallback()
    b.check_no_new_diagnostics()


_FLAG_CASES = [pytest.param(name, flags, id=f"{name}[{flags}]")
               for flags, names in FLAG_VARIANTS.items() for name in names]


def _subprograms(exe: Path) -> dict[str, str]:
    """{function name: decl_line} of the subprograms in the DWARF info of ``exe`` defined in a corpus file."""
    out = subprocess.run(["readelf", "--debug-dump=info", str(exe)], capture_output=True, text=True).stdout
    result: dict[str, str] = {}
    cur: dict[str, str] | None = None
    for line in out.splitlines():
        if "Abbrev Number" in line:
            if cur and "name" in cur and "line" in cur:
                result.setdefault(cur["name"], cur["line"])
            cur = {} if "DW_TAG_subprogram" in line else None
            continue
        if cur is None:
            continue
        m = re.search(r"DW_AT_name\s*:\s*(?:\(indirect[^)]*\):\s*)?(\S+)", line)
        if m:
            cur["name"] = m.group(1)
        m = re.search(r"DW_AT_decl_line\s*:\s*(\d+)", line)
        if m:
            cur["line"] = m.group(1)
    if cur and "name" in cur and "line" in cur:
        result.setdefault(cur["name"], cur["line"])
    return result


def _compile_unit_names(exe: Path) -> list[str]:
    out = subprocess.run(["readelf", "--debug-dump=info", str(exe)], capture_output=True, text=True).stdout
    names, in_cu = [], False
    for line in out.splitlines():
        if "Abbrev Number" in line:
            in_cu = "DW_TAG_compile_unit" in line
            continue
        m = re.search(r"DW_AT_name\s*:\s*(?:\(indirect[^)]*\):\s*)?(\S+)", line)
        if in_cu and m:
            names.append(m.group(1))
    return names


@pytest.mark.parametrize("name, flags", _FLAG_CASES)
def test_identity_flags(name, flags, tmp_path):
    b = Built(tmp_path, name, flags.split())
    b.check_same_behaviour()
    b.check_no_fallback()
    b.check_no_new_diagnostics()
    if "-g" in flags.split() and shutil.which("readelf"):
        ref_cus, s2s_cus = _compile_unit_names(tmp_path / "ref.exe"), _compile_unit_names(tmp_path / "s2s.exe")
        assert name in ref_cus, ref_cus
        assert name in s2s_cus, f"debug info of the s2s-cc build does not name {name}: compile units {s2s_cus}"
        ref_fns, s2s_fns = _subprograms(tmp_path / "ref.exe"), _subprograms(tmp_path / "s2s.exe")
        user_fns = {f: ln for f, ln in ref_fns.items() if f in b.original}
        assert user_fns, "no user functions found in the reference debug info"
        wrong = {f: (ln, s2s_fns.get(f)) for f, ln in user_fns.items() if s2s_fns.get(f) != ln}
        assert not wrong, f"{name}: declaration lines in debug info differ (cc, s2s-cc): {wrong}" + b.kept_info(60)
