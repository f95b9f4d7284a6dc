"""The C structs that stand for a module's LLVM struct types in the C this front end writes.

A struct view holds only the members the lifted functions reach, each named for its byte offset
in the outermost struct (``m8``: nested structs are flattened, as their members lie), at that
offset, with ``char`` padding before it and after the last one up to the LLVM type's size, so
that ``p[i].m8`` steps over whole elements as LLVM's ``getelementptr`` does. A member whose
values are pointers has the type the code reads through them (``double *m0`` for a
``std::vector<double>``'s data); one that is only compared or measured is ``void *`` until
another function reads through it. A layout check after each definition makes the C compiler
refuse a view that does not lie where LLVM's data layout says (and s2s-cc then compiles the
user's file as it is).
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from frontends.llvm.layout import StructLayout, scalar_size


@dataclass(frozen=True)
class Member:
    offset: int
    size: int
    declaration: str   # its C declaration without the semicolon (``double *m0``, ``long long m24[2][3]``)
    loose: bool = False   # a pointer of unknown pointee (``void *``): any other reading of it wins


class ViewConflict(Exception):
    """Two functions (or two accesses) that need one member to be two things."""


class StructViews:
    def __init__(self, layouts: dict[str, StructLayout]):
        self.layouts = layouts
        self.members: dict[str, dict[int, Member]] = {}

    def merged(self, members: dict[str, dict[int, Member]]) -> StructViews:
        """These views with ``members`` added (``ViewConflict`` where a member differs)."""
        out = StructViews(self.layouts)
        out.members = {s: dict(m) for s, m in self.members.items()}
        for struct, found in members.items():
            have = out.members.setdefault(struct, {})
            for offset, member in found.items():
                old = have.get(offset)
                if old is None or old.loose and member.size == old.size:
                    have[offset] = member
                elif old != member and not (member.loose and member.size == old.size):
                    raise ViewConflict(f"{struct} at byte {offset}: {old.declaration} and {member.declaration}")
        for struct in members:
            _check_overlaps(struct, out.members[struct])
        return out

    def definitions(self) -> list[str]:
        """Forward declarations, then each view with its padding and its layout check."""
        if not self.members:
            return []
        lines = [f"struct {view_name(s)};" for s in sorted(self.members)]
        for struct in sorted(self.members):
            name = view_name(struct)
            size = self.layouts[struct].size
            body, at = [], 0
            for member in sorted(self.members[struct].values(), key=lambda m: m.offset):
                if member.offset > at:
                    body.append(f"  char s2s_pad{at}[{member.offset - at}];")
                body.append(f"  {member.declaration};")
                at = member.offset + member.size
            if size > at:
                body.append(f"  char s2s_pad{at}[{size - at}];")
            lines.append(f"struct {name} {{\n" + "\n".join(body) + "\n};")
            checks = [f"sizeof(struct {name}) == {size}"] + [
                f"__builtin_offsetof(struct {name}, m{m.offset}) == {m.offset}" for m in self.members[struct].values()]
            lines.append(f"typedef char {name}_layout[({' && '.join(checks)}) ? 1 : -1];")
        return lines


def view_name(struct: str) -> str:
    """The C name of the view of the LLVM struct type ``struct`` (as GEPs write it)."""
    if struct.startswith("%"):
        text = re.sub(r"\W+", "_", struct.strip('%"')).strip("_")
        return f"s2s_{text}"[:60] + ("_" + hashlib.sha256(struct.encode()).hexdigest()[:6] if len(text) > 50 else "")
    return "s2s_literal_" + hashlib.sha256(struct.encode()).hexdigest()[:8]


def _check_overlaps(struct: str, members: dict[int, Member]) -> None:
    at, last = 0, None
    for member in sorted(members.values(), key=lambda m: m.offset):
        if member.offset < at:
            raise ViewConflict(f"{struct}: {last.declaration} and {member.declaration} overlap")
        at, last = member.offset + member.size, member


def pointer_rows(functions, layouts: dict[str, StructLayout]) -> dict[str, int]:
    """Struct types that hold nothing but pointers, that some function indexes as an array
    (``std::vector<std::vector<double>>``'s rows: each a ``std::vector<double>``, three pointers),
    by how many pointers one holds: C reads such an array as an array of pointers
    (``double **rows``, row ``i``'s data at ``rows[3 * i]``), which the C front end reads as row
    pointers, rather than as views of structs."""
    indexed = {i.element_type for f in functions for b in f.blocks for i in b.instructions
               if i.opcode == "getelementptr" and i.element_type in layouts and len(i.operands) > 1
               and not (i.operands[1].is_constant and i.operands[1].constant == "0")}
    out = {}
    for struct in indexed:
        leaves = _leaves(struct, layouts, 0)
        size = layouts[struct].size
        if leaves and all(t == "ptr" for _, t in leaves) and [o for o, _ in leaves] == list(range(0, size, 8)):
            out[struct] = len(leaves)
    return out


def _leaves(struct: str, layouts: dict[str, StructLayout], at: int) -> list[tuple[int, str]]:
    out = []
    for offset, member in layouts[struct].members:
        if member in layouts:
            out += _leaves(member, layouts, at + offset)
        elif scalar_size(member) is not None:
            out.append((at + offset, member))
        else:
            return []   # (arrays and the like: not a row of pointers)
    return out

