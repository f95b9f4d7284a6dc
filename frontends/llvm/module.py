"""Reading LLVM IR with llvmlite into a small model of its functions, blocks and instructions.

llvmlite parses textual (``.ll``) and bitcode (``.bc``) modules with the LLVM it carries (older
modules, typed pointers included, are upgraded as LLVM reads them) and runs three of LLVM's own
passes first: loop-simplify (a preheader, one latch and dedicated exits per loop), LCSSA (a value
of a loop used after it goes through a phi of its exit) and the instruction namer (every value and
block named, so that operands can be told apart). What llvmlite does not expose as attributes
(predicates, wrap flags, a GEP's element type, branch targets) is read from each instruction's
text.
"""
from __future__ import annotations

import contextlib
import os
import re
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from frontends.llvm.layout import StructLayout, struct_layouts
from s2s.errors import S2SError


# what this LLVM says of a module from an older clang with -march=native: features it no longer
# knows (avx512er, ...), which it ignores; said once per function, it buried a build's output
_IGNORED_FEATURE = re.compile(rb"^'[-+][\w.]+' is not a recognized feature for this target \(ignoring feature\)$")


class LLVMReadError(S2SError):
    """A module that LLVM cannot read or that does not verify."""


@dataclass(frozen=True)
class Value:
    """An operand: a named value (``%x``, ``@g``) or a constant, with its LLVM type's text."""

    type: str
    name: str | None = None     # a local or global value's name, without its sigil
    constant: str | None = None  # a constant's text (``0``, ``1.500000e+00``, ``0x3FB9...``, ``null``)
    is_global: bool = False

    @property
    def is_constant(self) -> bool:
        return self.constant is not None


@dataclass
class Instruction:
    name: str | None             # the value it defines (None: none)
    opcode: str
    type: str                    # the type of the value it defines (``void`` where none)
    operands: list[Value]
    text: str                    # as LLVM prints it
    predicate: str | None = None  # icmp / fcmp
    flags: frozenset[str] = frozenset()   # nsw, nuw, exact, inbounds, fast-math flags
    element_type: str | None = None       # getelementptr's source element type, load's type
    callee: str | None = None
    tbaa: tuple[str, ...] = ()   # the type its !tbaa tag accesses, then that type's ancestors (none: no tag)
    incoming: list[tuple[Value, str]] = field(default_factory=list)   # phi: (value, block)
    targets: list[str] = field(default_factory=list)                  # br: true target first


@dataclass
class Block:
    name: str
    instructions: list[Instruction]

    @property
    def terminator(self) -> Instruction:
        return self.instructions[-1]

    @property
    def successors(self) -> list[str]:
        return list(self.terminator.targets)


@dataclass
class Function:
    name: str
    return_type: str
    params: list[tuple[str, str]]   # (name, type)
    blocks: list[Block]
    declaration: bool = False
    linkage: str = "external"   # llvmlite's name of the linkage ("internal": C's static)
    noalias: frozenset[str] = frozenset()   # parameters marked noalias (C's restrict)
    dereferenceable: dict[str, int] = field(default_factory=dict)   # parameter -> bytes LLVM says it may read

    def block(self, name: str) -> Block:
        return next(b for b in self.blocks if b.name == name)


@dataclass
class Module:
    functions: list[Function]
    globals: dict[str, str]   # name -> value type of the module's global variables
    text: str                 # the module as read and prepared, in LLVM's text
    global_linkage: dict[str, str] = field(default_factory=dict)   # name -> llvmlite's linkage name
    structs: dict[str, StructLayout] = field(default_factory=dict)  # struct type (as GEPs write it) -> layout

    @property
    def from_fortran(self) -> bool:
        """Whether flang made the module (its dummy arguments then follow Fortran's rule: one the
        procedure writes is reached through no other name)."""
        return 'source_filename = "FIRModule"' in self.text[:2000]


def read_module(path: str | Path | None = None, text: str | None = None) -> Module:
    """The module of ``path`` (``.ll`` or ``.bc``) or of ``text``, prepared (module docstring)."""
    import llvmlite.binding as llvm

    context = llvm.create_context()   # (its own: in the global one, a second module's types get other names)
    try:
        if text is not None:
            module = llvm.parse_assembly(text, context)
        elif str(path).endswith(".bc"):
            module = llvm.parse_bitcode(Path(path).read_bytes(), context)
        else:
            module = llvm.parse_assembly(Path(path).read_text(), context)
        module.verify()
    except RuntimeError as exc:
        raise LLVMReadError(f"{path or 'module'}: LLVM cannot read it: {str(exc).strip().splitlines()[0]}") from None
    _prepare(module)
    text = str(module)
    tbaa = _tbaa_types(text)
    bodies = _instruction_lines(text)
    functions = [_function(f, tbaa, bodies.get(f.name, [])) for f in module.functions]
    globals_ = {g.name: str(g.global_value_type) for g in module.global_variables}
    linkage = {g.name: g.linkage.name for g in module.global_variables}
    literal = sorted({i.element_type for f in functions for b in f.blocks for i in b.instructions
                      if i.opcode == "getelementptr" and (i.element_type or "").startswith(("{", "<{"))})
    return Module(functions, globals_, text, linkage, struct_layouts(module, literal))


@contextlib.contextmanager
def without_ignored_features():
    """LLVM's own messages on stderr (file descriptor 2), less those of ``_IGNORED_FEATURE``."""
    sys.stderr.flush()
    with tempfile.TemporaryFile() as caught:
        saved = os.dup(2)
        os.dup2(caught.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            caught.seek(0)
            kept = [line for line in caught.read().splitlines(keepends=True)
                    if not _IGNORED_FEATURE.match(line.rstrip(b"\n"))]
            if kept:
                os.write(2, b"".join(kept))


def _prepare(module) -> None:
    import llvmlite.binding as llvm

    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    machine = llvm.Target.from_default_triple().create_target_machine()
    builder = llvm.create_pass_builder(machine, llvm.create_pipeline_tuning_options())
    passes = llvm.create_new_module_pass_manager()
    passes.add_loop_simplify_pass()
    passes.add_lcssa_pass()
    passes.add_instruction_namer_pass()
    with without_ignored_features():
        passes.run(module, builder)


_TARGET = re.compile(r"label %([-\w.$]+)")
_FLAGS = ("nsw", "nuw", "exact", "inbounds", "fast", "nnan", "ninf", "nsz", "arcp", "contract", "afn",
          "reassoc", "disjoint", "nneg", "samesign")
_CALLEE = re.compile(r"call [^@%]*[@%]([-\w.$]+)\(")


def _function(f, tbaa: dict[str, tuple[str, ...]], lines: list[str]) -> Function:
    params = [(a.name, str(a.type)) for a in f.arguments]
    noalias = frozenset(a.name for a in f.arguments if b"noalias" in set(a.attributes))
    readable = {a.name: int(m.group(1)) for a in f.arguments for attribute in a.attributes
                if (m := re.fullmatch(rb"dereferenceable\((\d+)\)", attribute)) is not None}
    linkage = f.linkage.name
    if f.is_declaration:
        return Function(f.name, _return_type(f), params, [], declaration=True, linkage=linkage)
    blocks = [Block(b.name, [_instruction(i) for i in b.instructions]) for b in f.blocks]
    instructions = [i for b in blocks for i in b.instructions]
    if len(lines) == len(instructions):   # (the module's text numbers metadata as the module does)
        for inst, line in zip(instructions, lines):
            if inst.opcode in ("load", "store") and (tag := _TBAA_TAG.search(line)) is not None:
                inst.tbaa = tbaa.get(tag.group(1), ())
    return Function(f.name, _return_type(f), params, blocks, linkage=linkage, noalias=noalias,
                    dereferenceable=readable)


_DEFINE = re.compile(r'^define [^@]*@("(?:[^"]*)"|[-\w.$]+)\(.*?^\}', re.MULTILINE | re.DOTALL)


def _instruction_lines(text: str) -> dict[str, list[str]]:
    """Each defined function's instructions as the module's text writes them, in order."""
    bodies = {}
    for m in _DEFINE.finditer(text):
        lines = m.group(0).splitlines()[1:-1]
        bodies[m.group(1).strip('"')] = [line.strip() for line in lines
                                        if line.strip() and not line.strip().startswith(";")
                                        and not re.match(r"^[-\w.$\"]+:", line.strip())]
    return bodies


_METADATA = re.compile(r"^!(\d+) = (?:distinct )?!\{(.*)\}$", re.MULTILINE)
_TBAA_TAG = re.compile(r"!tbaa !(\d+)")


def _tbaa_types(text: str) -> dict[str, tuple[str, ...]]:
    """By metadata number of each type-based alias analysis tag the module has: the type it
    accesses and that type's ancestors (``("double", "omnipotent char", "Simple C++ TBAA")``).
    Two accesses whose types are neither one an ancestor of the other do not reach the same
    memory: the language's aliasing rule, as clang wrote it down."""
    nodes = {m.group(1): [part.strip() for part in m.group(2).split(",")] for m in _METADATA.finditer(text)}

    def chain(number: str) -> tuple[str, ...]:
        names: list[str] = []
        while number in nodes and len(names) < 32:
            parts = nodes[number]
            if not parts or not parts[0].startswith('!"'):
                break
            names.append(parts[0][2:-1])
            number = parts[1][1:] if len(parts) > 1 and parts[1].startswith("!") else ""
        return tuple(names)

    tags = {}
    for number, parts in nodes.items():
        # (a tag: base type, access type, offset; the access type names the memory's type)
        if len(parts) >= 3 and parts[0].startswith("!") and parts[1].startswith("!") and parts[2].startswith("i64"):
            tags[number] = chain(parts[1][1:])
    return tags


def _return_type(f) -> str:
    return str(f.global_value_type).split(" (", 1)[0]


def _instruction(i) -> Instruction:
    text = str(i).strip()
    opcode = i.opcode
    head = text.split(" = ", 1)[1] if " = " in text and text.startswith("%") else text
    words = head.replace(",", " ").split()
    flags = frozenset(w for w in words[1:6] if w in _FLAGS)
    operands = [_value(o) for o in i.operands]
    inst = Instruction(i.name or None, opcode, str(i.type), operands, text, flags=flags)
    if opcode in ("icmp", "fcmp"):
        inst.predicate = next(w for w in words[1:] if w not in _FLAGS)
    elif opcode == "getelementptr":
        after = head.split("getelementptr", 1)[1].split()
        inst.element_type = type_at(" ".join(w for w in after if w not in _FLAGS and not w.startswith("inrange")))
    elif opcode == "load":
        inst.element_type = str(i.type)
    elif opcode == "call":
        match = _CALLEE.search(text)
        inst.callee = match.group(1) if match else None
        operands.pop()   # (the callee is the last operand)
    elif opcode == "phi":
        inst.incoming = list(zip(operands, [b.name for b in i.incoming_blocks]))
    if opcode in ("br", "switch"):
        targets = _TARGET.findall(text)
        inst.targets = targets
        if opcode == "br" and len(targets) == 2:
            inst.operands = operands[:1]
    return inst


def type_at(text: str) -> str:
    """The LLVM type that ``text`` starts with (brackets, braces and vectors balanced)."""
    depth = 0
    for k, ch in enumerate(text):
        if ch in "[{<":
            depth += 1
        elif ch in "]}>":
            depth -= 1
        elif ch == "," and depth == 0:
            return text[:k].strip()
        elif ch == " " and depth == 0 and k > 0:
            return text[:k].strip()
    return text.strip()


def _value(o) -> Value:
    import llvmlite.binding as llvm

    type_text = str(o.type)
    kind = o.value_kind
    if kind in (llvm.ValueKind.argument, llvm.ValueKind.instruction, llvm.ValueKind.basic_block):
        return Value(type_text, name=o.name)
    if kind in (llvm.ValueKind.global_variable, llvm.ValueKind.function):
        return Value(type_text, name=o.name, is_global=True)
    text = str(o).strip()
    if text.startswith(type_text + " "):
        text = text[len(type_text) + 1:]
    return Value(type_text, constant=text)
