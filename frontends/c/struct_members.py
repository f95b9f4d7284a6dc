"""Struct members a loop nest reads, taken into locals before it.

Real code passes its arrays and sizes in structs: ``t->v[i * t->ncols + j]``, ``g->u[...]``,
``src->row[y]``. The polyhedral model needs names whose values the nest does not change; a
member read through a pointer is memory any store could change. Before an outermost loop, each
member ``s->m`` it reads becomes a local ``T s_m = s->m;`` and the loop reads the local, when:

* ``s`` is a local or parameter pointing to a struct whose definition the file holds (not a
  union), its address never taken, not assigned in the loop;
* the member is a number, a pointer to numbers (of any depth) or an array of numbers (read as a
  pointer to its first element);
* the loop never assigns, increments or takes the address of a member of that name (through any
  pointer);
* no store in the loop may reach the member: by C's effective-type rule (C11 6.5p7, what gcc
  assumes at -O2 unless ``-fno-strict-aliasing``) a store of a ``double`` cannot change an
  ``int``, a ``long`` or a pointer. A store of the member's own type (signedness and typedef
  names aside), of a character type, of a pointer where the member is one, of anything whose
  type is not known here, and any call but a pure math function are taken as reaching it; without
  strict aliasing every store to memory is;
* ``s`` is dereferenced whenever the loop is entered, so that reading ``s->m`` before it cannot
  fault where the user's code would not: in an earlier statement of the block, in the loop's
  initialisation or condition, or in the first iteration before anything could end it, inner
  loops included (then the local is read under the conditions that the first iteration gets
  there: the loop's entry and that of each inner loop on the way, in names the nest does not
  change, ``T s_m = 0 < n && 0 < w ? s->m : 0;``).

Members of a struct object (``s.m``, ``s`` a struct variable) follow the same rules, with nothing
to dereference.

An array of structs subscripted in the loop (``b[i].vx``, ``p[i].pos[k]``) is read as one array
of its members' number type, ``double *b_as_double = (double *)b;`` and ``b_as_double[7 * i +
3]``, where every member the loop reads of it has that one type at an offset that is a whole
number of elements: the members of one element and those of its neighbours are then distinct or
equal exactly as their subscripts say. The layout s2s assumes (natural alignment, LP64) is
checked when compiling, in the declaration itself (``sizeof *b`` and ``__builtin_offsetof`` of
each member read): a packed struct is a compile-time error, and s2s-cc compiles the user's file
as it is.

Locals get fresh names; the hoisted declarations and the loop form one block, which the lifter
lifts as it would the user's. Nothing is rewritten inside ``sizeof``.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Callable

from pycparser import c_ast

from frontends.c.ast_rewrite import has_effects, rewrite_children, walk, written_names

from s2s.ir import PURE_FUNCTIONS

# Typedefs of the C library whose underlying type is known (LP64 Linux).
_LIBRARY_TYPEDEFS = {
    "size_t": "long", "ssize_t": "long", "ptrdiff_t": "long", "intptr_t": "long", "uintptr_t": "long",
    "int64_t": "long", "uint64_t": "long", "int32_t": "int", "uint32_t": "int", "int16_t": "short",
    "uint16_t": "short", "int8_t": "char", "uint8_t": "char", "off_t": "long", "time_t": "long",
}
_LOOPS = (c_ast.For, c_ast.While, c_ast.DoWhile)
_ANYTHING = "*"   # a store of unknown type: it may reach any member


@dataclass
class StructTypes:
    """The file's struct definitions by tag and its typedefs by name."""

    structs: dict[str, list[c_ast.Decl]] = field(default_factory=dict)
    typedefs: dict[str, c_ast.Node] = field(default_factory=dict)

    def add(self, decl: c_ast.Decl | c_ast.Typedef) -> None:
        if isinstance(decl, c_ast.Typedef):
            self.typedefs[decl.name] = decl.type
        for node in walk(decl):
            if isinstance(node, c_ast.Struct) and node.name and node.decls is not None:
                self.structs[node.name] = node.decls

    def resolve(self, t: c_ast.Node) -> c_ast.Node:
        """``t`` with typedef names of the file replaced by what they name, at the top."""
        seen = 0
        while (isinstance(t, c_ast.TypeDecl) and isinstance(t.type, c_ast.IdentifierType)
               and len(t.type.names) == 1 and t.type.names[0] in self.typedefs and seen < 32):
            t = self.typedefs[t.type.names[0]]
            seen += 1
        return t

    def members(self, t: c_ast.Node) -> list[c_ast.Decl] | None:
        """The members of the struct ``t`` (a TypeDecl) names; None for anything else."""
        t = self.resolve(t)
        if not isinstance(t, c_ast.TypeDecl) or not isinstance(t.type, c_ast.Struct):
            return None
        struct = t.type
        decls = struct.decls if struct.decls is not None else self.structs.get(struct.name or "")
        return decls if decls and all(isinstance(d, c_ast.Decl) and d.name for d in decls) else None

    def alias_class(self, t: c_ast.Node | None) -> str:
        """What a store of type ``t`` may change under the effective-type rule: ``pointer``,
        ``char`` (anything), a number type's name with signedness, qualifiers and typedefs
        taken away, or ``*`` where the type is not known."""
        if t is None:
            return _ANYTHING
        t = self.resolve(t)
        if isinstance(t, c_ast.PtrDecl):
            return "pointer"
        if isinstance(t, c_ast.ArrayDecl):
            return self.alias_class(t.type)
        if isinstance(t, c_ast.TypeDecl) and isinstance(t.type, c_ast.Enum):
            return "int"
        if not isinstance(t, c_ast.TypeDecl) or not isinstance(t.type, c_ast.IdentifierType):
            return _ANYTHING
        names = [n for n in t.type.names if n not in ("signed", "unsigned", "const", "volatile")]
        if len(names) == 1 and names[0] in _LIBRARY_TYPEDEFS:
            return _LIBRARY_TYPEDEFS[names[0]]
        if len(names) == 1 and names[0] in self.typedefs:
            return _ANYTHING
        if "char" in names:
            return "char"
        if "double" in names:
            return "long double" if "long" in names else "double"
        for known in ("float", "_Bool", "short"):
            if known in names:
                return known
        if "long" in names:
            return "long"
        if not names or names == ["int"]:
            return "int"
        return _ANYTHING


_SCALAR_BYTES = {"char": 1, "_Bool": 1, "short": 2, "int": 4, "long": 8, "float": 4, "double": 8,
                 "long double": 16, "pointer": 8}


def _layout(t: c_ast.Node, types: StructTypes, depth: int = 0) -> tuple[int, int, dict[str, tuple[int, c_ast.Node]]] | None:
    """(size, alignment, members by name with their offset and type) of the type ``t`` on LP64
    Linux (x86-64 and AArch64 alike); None where s2s does not know it (a union, a bit-field, an
    extent that is not a number). The generated code checks it against the compiler's."""
    t = types.resolve(t)
    if depth > 8:
        return None
    if isinstance(t, c_ast.ArrayDecl):
        inner = _layout(t.type, types, depth + 1)
        if inner is None or not isinstance(t.dim, c_ast.Constant) or t.dim.type != "int":
            return None
        return inner[0] * int(t.dim.value.rstrip("uUlL"), 0), inner[1], {}
    members = types.members(t) if isinstance(t, c_ast.TypeDecl) else None
    if members is not None:
        offset, align, out = 0, 1, {}
        for d in members:
            if d.bitsize is not None:
                return None
            inner = _layout(d.type, types, depth + 1)
            if inner is None:
                return None
            offset = -(-offset // inner[1]) * inner[1]
            out[d.name] = (offset, d.type)
            offset += inner[0]
            align = max(align, inner[1])
        return -(-offset // align) * align, align, out
    size = _SCALAR_BYTES.get(types.alias_class(t))
    return None if size is None else (size, size, {})


@dataclass(frozen=True)
class Hoisted:
    """``s->m`` read through the local ``local``, declared by ``declaration`` before the loop."""

    pointer: str
    member: str
    local: str
    declaration: c_ast.Decl


def _is_number(t: c_ast.Node, types: StructTypes) -> bool:
    return types.alias_class(t) not in (_ANYTHING, "pointer") and isinstance(types.resolve(t), c_ast.TypeDecl)


def _hoistable_type(t: c_ast.Node, types: StructTypes) -> bool:
    """A number, a pointer to numbers (any depth), or an array of numbers."""
    if isinstance(t, c_ast.ArrayDecl):
        return _is_number(t.type, types)
    while isinstance(t, c_ast.PtrDecl):
        t = t.type
    return isinstance(t, c_ast.TypeDecl) and isinstance(t.type, c_ast.IdentifierType) and _is_number(t, types)


def _outside_sizeof(node: c_ast.Node):
    """The nodes of ``node`` that C evaluates: none below ``sizeof``."""
    if isinstance(node, c_ast.UnaryOp) and node.op == "sizeof":
        return
    yield node
    for _, child in node.children():
        yield from _outside_sizeof(child)


def _member_refs(node: c_ast.Node):
    """``s->m`` and ``s.m`` of a named ``s``, outside ``sizeof``."""
    return (n for n in _outside_sizeof(node) if isinstance(n, c_ast.StructRef) and isinstance(n.name, c_ast.ID))


def _dereferenced(node: c_ast.Node | None, pointer: str) -> bool:
    """Whether evaluating the expression ``node`` certainly reads ``pointer->...`` (not under
    ``?:``, the right of ``&&``/``||``, ``sizeof`` or ``&``)."""
    if node is None:
        return False
    if isinstance(node, c_ast.StructRef) and node.type == "->" and isinstance(node.name, c_ast.ID) \
            and node.name.name == pointer:
        return True
    if isinstance(node, c_ast.UnaryOp) and node.op in ("sizeof", "&"):
        return False   # (``&s->m`` computes an address, reading nothing; counted as no read)
    if isinstance(node, c_ast.TernaryOp):
        return _dereferenced(node.cond, pointer)
    if isinstance(node, c_ast.BinaryOp) and node.op in ("&&", "||"):
        return _dereferenced(node.left, pointer)
    return any(_dereferenced(child, pointer) for _, child in node.children())


def _statement_dereferences(item: c_ast.Node, pointer: str) -> bool:
    """Whether executing the simple statement ``item`` certainly reads ``pointer->...``."""
    if isinstance(item, c_ast.Decl):
        return _dereferenced(item.init, pointer)
    if isinstance(item, c_ast.DeclList):
        return any(_dereferenced(d.init, pointer) for d in item.decls)
    if isinstance(item, (c_ast.Assignment, c_ast.FuncCall, c_ast.UnaryOp, c_ast.BinaryOp)):
        return _dereferenced(item, pointer)
    return False


def _may_leave(item: c_ast.Node, pure: Callable[[str], bool], in_loop: bool = False) -> bool:
    """Whether ``item`` may end the iteration of the loop whose body holds it early (``pure``:
    the functions whose calls return)."""
    if isinstance(item, (c_ast.Return, c_ast.Goto, c_ast.Label)):
        return True
    if isinstance(item, (c_ast.Break, c_ast.Continue)) and not in_loop:
        return True
    if isinstance(item, c_ast.FuncCall) and not (isinstance(item.name, c_ast.ID) and pure(item.name.name)):
        return True   # (exit, longjmp: a call is never passed over)
    if isinstance(item, c_ast.Switch):   # (a break in it ends the switch)
        return any(_may_leave(c, pure, in_loop) for _, c in item.children() if not isinstance(c, c_ast.Break))
    nested = in_loop or isinstance(item, _LOOPS)
    return any(_may_leave(child, pure, nested) for _, child in item.children())


@dataclass(frozen=True)
class _Entry:
    """What is known on the first iteration of the loops around a point of a nest: the first
    value of each of their variables (as C), and the names the nest assigns or declares."""

    firsts: dict[str, c_ast.Node]
    assigned: frozenset[str]
    type_of: Callable[[c_ast.Node], c_ast.Node | None]
    pure: Callable[[str], bool]


def _first_iteration_reads(body: c_ast.Node | None, pointer: str, at: _Entry) -> list[c_ast.Node] | None:
    """The conditions (all to hold) under which the first iteration of a loop with this body
    reads ``pointer->...`` before anything could end it; None where it may not. A loop in the
    body whose own first iteration reads it adds that the loop is entered, in names the nest
    does not change (``0 < w`` for ``for (x = 0; x < w; x++)``)."""
    items = body.block_items or [] if isinstance(body, c_ast.Compound) else [body] if body else []
    for item in items:
        if _statement_dereferences(item, pointer):
            return []
        if not isinstance(item, (c_ast.Decl, c_ast.Assignment, c_ast.UnaryOp, c_ast.BinaryOp, *_LOOPS,
                                 c_ast.If, c_ast.Compound)) or _may_leave(item, at.pure):
            return None
        if isinstance(item, _LOOPS) and (inner := _entered_and_read(item, pointer, at)) is not None:
            return inner
    return None


def _entered_and_read(loop: c_ast.Node, pointer: str, at: _Entry) -> list[c_ast.Node] | None:
    first = _first_value(loop, at.type_of)
    entry = _entry_condition(loop, first)
    if entry is None:
        return None
    entry = _substituted(entry, at.firsts)
    if _names_read(entry) & at.assigned:
        return None   # (a name the nest changes before the loop: not known before the nest)
    firsts = dict(at.firsts)
    if first is not None:
        firsts[first[0]] = _substituted(first[1], at.firsts)
    inner = _first_iteration_reads(loop.stmt, pointer, _Entry(firsts, at.assigned, at.type_of, at.pure))
    return None if inner is None else [entry, *inner]


def _names_read(node: c_ast.Node) -> set[str]:
    """The variables ``node`` reads (a member's name is none)."""
    if isinstance(node, c_ast.ID):
        return {node.name}
    if isinstance(node, c_ast.StructRef):
        return _names_read(node.name)
    return set().union(*(_names_read(child) for _, child in node.children()))


def _substituted(node: c_ast.Node, values: dict[str, c_ast.Node]) -> c_ast.Node:
    """A copy of ``node`` with each name of ``values`` replaced by its value (not a member's
    name: ``s->n``)."""
    def rewrite(n: c_ast.Node) -> c_ast.Node:
        if isinstance(n, c_ast.ID) and n.name in values:
            return copy.deepcopy(values[n.name])
        if isinstance(n, c_ast.StructRef):
            n.name = rewrite(n.name)
            return n
        return rewrite_children(n, rewrite)

    return rewrite(copy.deepcopy(node))


def _first_value(loop: c_ast.Node, type_of: Callable[[c_ast.Node], c_ast.Node | None]) -> tuple[str, c_ast.Node] | None:
    """A ``for`` loop's variable and its first value, converted to its type (None: no such)."""
    init = loop.init if isinstance(loop, c_ast.For) else None
    if isinstance(init, c_ast.DeclList) and len(init.decls) == 1 and init.decls[0].init is not None:
        var, value, var_type = init.decls[0].name, init.decls[0].init, init.decls[0].type
    elif isinstance(init, c_ast.Assignment) and init.op == "=" and isinstance(init.lvalue, c_ast.ID):
        var, value, var_type = init.lvalue.name, init.rvalue, type_of(init.lvalue)
    else:
        return None
    if has_effects(value, PURE_FUNCTIONS) or not isinstance(var_type, c_ast.TypeDecl):
        return None
    var_type = copy.deepcopy(var_type)
    var_type.declname = None
    return var, c_ast.Cast(c_ast.Typename(None, [], None, var_type), copy.deepcopy(value))


def _entry_condition(loop: c_ast.Node, first: tuple[str, c_ast.Node] | None) -> c_ast.Node | None:
    """The condition under which ``loop`` runs its body at least once, as C (None if unknown):
    its condition with the loop variable replaced by its ``first`` value (``_first_value``)."""
    if isinstance(loop, c_ast.DoWhile):
        return c_ast.Constant("int", "1")
    if isinstance(loop, c_ast.While):
        return copy.deepcopy(loop.cond) if not has_effects(loop.cond, PURE_FUNCTIONS) else None
    if not isinstance(loop, c_ast.For) or loop.cond is None or has_effects(loop.cond, PURE_FUNCTIONS):
        return None
    if loop.init is None:
        return copy.deepcopy(loop.cond)
    return None if first is None else _substituted(loop.cond, {first[0]: first[1]})


def _loop_parts(loop: c_ast.Node) -> list[c_ast.Node]:
    """The expressions a loop evaluates before its first iteration."""
    if isinstance(loop, c_ast.For):
        return [p for p in (loop.init, loop.cond) if p is not None]
    if isinstance(loop, c_ast.While):
        return [loop.cond]
    return []


class _Stores:
    """What the stores and calls of a loop may reach."""

    def __init__(self, loop: c_ast.Node, types: StructTypes, type_of: Callable[[c_ast.Node], c_ast.Node | None],
                 is_local: Callable[[str], bool], strict_aliasing: bool, pure: Callable[[str], bool]):
        self.classes: set[str] = set()
        self.member_names: set[str] = set()   # members assigned or whose address is taken
        for n in walk(loop):
            target = None
            if isinstance(n, c_ast.Assignment):
                target = n.lvalue
            elif isinstance(n, c_ast.UnaryOp) and n.op in ("++", "--", "p++", "p--"):
                target = n.expr
            elif isinstance(n, c_ast.UnaryOp) and n.op == "&" and isinstance(n.expr, c_ast.StructRef):
                self.member_names.add(n.expr.field.name)
            elif isinstance(n, c_ast.FuncCall):
                if not (isinstance(n.name, c_ast.ID) and pure(n.name.name)):
                    self.classes.add(_ANYTHING)
            if target is None:
                continue
            if isinstance(target, c_ast.StructRef):
                self.member_names.add(target.field.name)
            if isinstance(target, c_ast.ID) and is_local(target.name):
                continue
            self.classes.add(types.alias_class(type_of(target)) if strict_aliasing else _ANYTHING)

    def may_reach(self, alias_class: str) -> bool:
        return bool(self.classes & {_ANYTHING, "char", alias_class})


@dataclass
class Hoisting:
    """What ``hoist_members`` made of a loop: the block to lift instead (None: the loop as it
    is) and, per member left in place (``s->m``, ``s.m``), why."""

    block: c_ast.Compound | None
    refused: dict[str, str]


def hoist_members(loop: c_ast.Node, earlier: list[c_ast.Node], types: StructTypes,
                  type_of: Callable[[c_ast.Node], c_ast.Node | None], is_local: Callable[[str], bool],
                  written: set[str], fresh: Callable[[str], str], strict_aliasing: bool = True,
                  pure: Callable[[str], bool] = PURE_FUNCTIONS.__contains__) -> Hoisting:
    """The hoisted members' declarations and ``loop`` reading them. ``earlier``: the statements
    run before the loop in its blocks; ``type_of(e)``: the declared type of the lvalue ``e`` (None
    if unknown); ``is_local(name)``: a local or parameter whose address is never taken;
    ``written``: names the function assigns or takes the address of; ``fresh(base)``: an unused
    C name. Members of struct objects (``s.m``, ``s`` a struct variable) follow the same rules
    but need no dereference."""
    refs = list(_member_refs(loop))
    refused: dict[str, str] = {}
    if not refs and not any(True for _ in _element_refs(loop)):
        return Hoisting(None, refused)
    stores = _Stores(loop, types, type_of, is_local, strict_aliasing, pure)
    assigned_in_loop = _assigned(loop)
    flat = _flattened(loop, types, type_of, stores, is_local, assigned_in_loop, fresh, refused)
    hoisted: dict[tuple[str, str, str], Hoisted] = {}
    for ref in refs:
        pointer, member, arrow = ref.name.name, ref.field.name, ref.type
        key = (pointer, arrow, member)
        spelled = f"{pointer}{arrow}{member}"
        if key in hoisted or spelled in refused:
            continue
        decl = _member_decl(ref, type_of, types)
        why = _refusal(ref, decl, types, stores, is_local, written, assigned_in_loop)
        address = decl is not None and isinstance(decl.type, c_ast.ArrayDecl)   # (reads no memory)
        value: c_ast.Node = c_ast.StructRef(c_ast.ID(pointer), arrow, c_ast.ID(member))
        if why is None and arrow == "->" and not address and not (
                any(_statement_dereferences(s, pointer) for s in earlier)
                or any(_dereferenced(p, pointer) for p in _loop_parts(loop))):
            # (read where the nest's first iteration reads it: under the conditions that it does)
            conditions = _entered_and_read(loop, pointer, _Entry({}, frozenset(assigned_in_loop), type_of, pure))
            if conditions is None:
                why = f"{pointer} is not dereferenced whenever the loop is entered"
            else:
                value = c_ast.TernaryOp(_all(conditions), value, c_ast.Constant("int", "0"))
        if why is not None:
            refused[spelled] = why
            continue
        holder = types.resolve(type_of(ref.name))
        const = "const" in (getattr(holder.type if arrow == "->" else holder, "quals", None) or [])
        local = fresh(f"{pointer}_{member}")
        hoisted[key] = Hoisted(pointer, member, local, _declaration(local, decl.type, value, const))
    if not hoisted and not flat:
        return Hoisting(None, refused)
    loop = _rewritten(loop, {k: h.local for k, h in hoisted.items()}, flat)
    declarations = [f.declaration for f in flat.values()] + [h.declaration for h in hoisted.values()]
    return Hoisting(c_ast.Compound(declarations + [loop], coord=loop.coord), refused)


def _element_refs(node: c_ast.Node):
    """``b[e].m`` of a named ``b``, outside ``sizeof``."""
    return (n for n in _outside_sizeof(node) if isinstance(n, c_ast.StructRef) and n.type == "."
            and isinstance(n.name, c_ast.ArrayRef) and isinstance(n.name.name, c_ast.ID))


@dataclass(frozen=True)
class _Flat:
    """An array of structs read as an array of its members' one number type: ``b[e].m`` is
    ``local[e * stride + offsets[m]]``."""

    local: str
    stride: int
    offsets: dict[str, int]
    lengths: dict[str, int]   # members that are arrays: their length (``b[e].m[k]``)
    declaration: c_ast.Decl


def _flattened(loop: c_ast.Node, types: StructTypes, type_of, stores: _Stores, is_local,
               assigned_in_loop: set[str], fresh, refused: dict[str, str]) -> dict[str, _Flat]:
    """Per array of structs ``b`` the loop subscripts (``b[i].x``), how to read it as one array
    of numbers: where every member it reads is a number (or an array of numbers) of one type,
    at offsets the layout gives (checked when compiling: ``sizeof *b`` and each offset)."""
    by_base: dict[str, list[c_ast.StructRef]] = {}
    for ref in _element_refs(loop):
        by_base.setdefault(ref.name.name.name, []).append(ref)
    out: dict[str, _Flat] = {}
    for base, refs in by_base.items():
        spelled = f"{base}[]"
        declared = type_of(refs[0].name.name)
        held = types.resolve(declared) if declared is not None else None
        element = held.type if isinstance(held, (c_ast.PtrDecl, c_ast.ArrayDecl)) else None
        layout = _layout(element, types) if element is not None and types.members(element) is not None else None
        if layout is None:
            refused[spelled] = "the struct's layout is not known here (a union, a bit-field, or not defined in the file)"
            continue
        if base in assigned_in_loop or not (is_local(base) or isinstance(held, c_ast.ArrayDecl)
                                            or not stores.may_reach("pointer")):
            refused[spelled] = f"{base} may change in the loop"
            continue
        kinds, offsets, lengths = set(), {}, {}
        for ref in refs:
            offset, member_type = layout[2][ref.field.name]
            member_type = types.resolve(member_type)
            if isinstance(member_type, c_ast.ArrayDecl):
                dims = _layout(member_type, types)
                inner = _layout(member_type.type, types)
                if dims is None or inner is None or not _is_number(member_type.type, types):
                    kinds.add(None)
                    continue
                lengths[ref.field.name] = dims[0] // inner[0]
                member_type = member_type.type
            plain = types.resolve(member_type)
            if not _is_number(member_type, types) or not isinstance(plain.type, c_ast.IdentifierType):
                kinds.add(None)   # (an enum: its integer type is the compiler's to choose)
                continue
            kinds.add(" ".join(plain.type.names))
            offsets[ref.field.name] = offset
        size = _SCALAR_BYTES.get(types.alias_class(member_type)) if len(kinds) == 1 and None not in kinds else None
        if size is None or layout[0] % size or any(o % size for o in offsets.values()):
            refused[spelled] = "its members read in the loop are not all numbers of one type at whole offsets"
            continue
        const = "const" in (getattr(element, "quals", None) or [])
        local = fresh(f"{base}_as_{next(iter(kinds)).replace(' ', '_')}")
        out[base] = _Flat(local, layout[0] // size, {m: o // size for m, o in offsets.items()}, lengths,
                          _flat_declaration(local, next(iter(kinds)), base, const, layout[0], offsets))
    return out


def _flat_declaration(name: str, spelling: str, base: str, const: bool, size: int, offsets: dict[str, int]) -> c_ast.Decl:
    """``T *name = (T *)base + 0 * sizeof(char[checks ? 1 : -1]);``: the layout s2s assumed, or
    a compile-time error (s2s-cc then compiles the user's file as it is)."""
    quals = ["const"] if const else []
    element = c_ast.TypeDecl(name, quals, None, c_ast.IdentifierType(spelling.split()))
    pointer = c_ast.PtrDecl([], element)
    cast_type = c_ast.Typename(None, [], None, c_ast.PtrDecl([], c_ast.TypeDecl(None, quals, None,
                                                                               c_ast.IdentifierType(spelling.split()))))
    check: c_ast.Node = c_ast.BinaryOp("==", c_ast.UnaryOp("sizeof", c_ast.UnaryOp("*", c_ast.ID(base))),
                                       c_ast.Constant("int", str(size)))
    for member, offset in sorted(offsets.items()):
        at = c_ast.FuncCall(c_ast.ID("__builtin_offsetof"),
                            c_ast.ExprList([c_ast.ID(f"__typeof__(*{base})"), c_ast.ID(member)]))
        check = c_ast.BinaryOp("&&", check, c_ast.BinaryOp("==", at, c_ast.Constant("int", str(offset))))
    guard = c_ast.Typename(None, [], None, c_ast.ArrayDecl(
        c_ast.TypeDecl(None, [], None, c_ast.IdentifierType(["char"])),
        c_ast.TernaryOp(check, c_ast.Constant("int", "1"), c_ast.Constant("int", "-1")), []))
    value = c_ast.BinaryOp("+", c_ast.Cast(cast_type, c_ast.ID(base)),
                           c_ast.BinaryOp("*", c_ast.Constant("int", "0"), c_ast.UnaryOp("sizeof", guard)))
    return c_ast.Decl(name, [], [], [], [], pointer, value, None)


def _all(conditions: list[c_ast.Node]) -> c_ast.Node:
    out = conditions[0]
    for c in conditions[1:]:
        out = c_ast.BinaryOp("&&", out, c)
    return out


def _member_decl(ref: c_ast.StructRef, type_of, types: StructTypes) -> c_ast.Decl | None:
    holder = type_of(ref.name)
    holder = types.resolve(holder) if holder is not None else None
    if ref.type == "->":
        holder = holder.type if isinstance(holder, c_ast.PtrDecl) else None
    members = types.members(holder) if holder is not None else None
    return next((d for d in members or [] if d.name == ref.field.name), None)


def _refusal(ref: c_ast.StructRef, decl: c_ast.Decl | None, types: StructTypes, stores: _Stores, is_local,
             written: set[str], assigned_in_loop: set[str]) -> str | None:
    """Why ``ref`` (of the member ``decl``) cannot be read before the loop (None: it can,
    dereference aside)."""
    pointer, member = ref.name.name, ref.field.name
    if ref.type == "->" and (pointer in written or not is_local(pointer)):
        return f"{pointer} is assigned in the function or its address is taken"
    if pointer in assigned_in_loop:
        return f"{pointer} is assigned or declared in the loop"
    if decl is None:
        return "the struct's definition is not in the file (or it is a union)"
    if decl.bitsize is not None or not _hoistable_type(decl.type, types):
        return "the member is not a number, a pointer to numbers or an array of numbers"
    if isinstance(decl.type, c_ast.ArrayDecl):
        return None   # (its value is an address, which no store changes)
    if member in stores.member_names:
        return f"the loop assigns a member named {member} or takes its address"
    if stores.may_reach(types.alias_class(decl.type)):
        if _ANYTHING in stores.classes:
            return "the loop calls a function or stores where s2s cannot tell the type"
        return "the loop stores values of the member's type, which may reach it (copy it to a local)"
    return None


def _assigned(loop: c_ast.Node) -> set[str]:
    """The names the loop assigns, declares, increments or takes the address of."""
    return written_names(loop) | {n.name for n in walk(loop) if isinstance(n, c_ast.Decl) and n.name}


def _declaration(name: str, member_type: c_ast.Node, value: c_ast.Node, const_struct: bool) -> c_ast.Decl:
    """``T name = value;`` for a member of type ``member_type`` (an array member: a pointer to
    its first element, to const where the struct is read through a pointer to const)."""
    t = copy.deepcopy(member_type)
    if isinstance(t, c_ast.ArrayDecl):
        element = t.type
        if const_struct and "const" not in (element.quals or []):
            element.quals = ["const", *(element.quals or [])]
        t = c_ast.PtrDecl([], element)
    inner = t
    while not isinstance(inner, c_ast.TypeDecl):
        inner = inner.type
    inner.declname = name
    if isinstance(t, c_ast.TypeDecl):
        t.quals = [q for q in (t.quals or []) if q != "volatile"]
    return c_ast.Decl(name, [], [], [], [], t, value, None)


def _rewritten(loop: c_ast.Node, locals_: dict[tuple[str, str, str], str], flat: dict[str, _Flat]) -> c_ast.Node:
    loop = copy.deepcopy(loop)

    def element(ref: c_ast.StructRef, extra: c_ast.Node | None = None) -> c_ast.Node | None:
        """``b[e].m`` (``b[e].m[extra]``) through the flat array, where ``b`` is one."""
        if not (isinstance(ref, c_ast.StructRef) and ref.type == "." and isinstance(ref.name, c_ast.ArrayRef)
                and isinstance(ref.name.name, c_ast.ID) and ref.name.name.name in flat):
            return None
        f = flat[ref.name.name.name]
        member = ref.field.name
        if member not in f.offsets or (extra is None) != (member not in f.lengths):
            return None
        index: c_ast.Node = c_ast.BinaryOp("+", c_ast.BinaryOp("*", rewrite(ref.name.subscript),
                                                                c_ast.Constant("int", str(f.stride))),
                                           c_ast.Constant("int", str(f.offsets[member])))
        if extra is not None:
            index = c_ast.BinaryOp("+", index, extra)
        return c_ast.ArrayRef(c_ast.ID(f.local), index, coord=ref.coord)

    def rewrite(n: c_ast.Node) -> c_ast.Node:
        if isinstance(n, c_ast.UnaryOp) and n.op == "sizeof":
            return n   # (``sizeof s->m`` of an array member is not a pointer's size)
        if isinstance(n, c_ast.ArrayRef) and (e := element(n.name, rewrite(n.subscript))) is not None:
            return e
        if (e := element(n)) is not None:
            return e
        if isinstance(n, c_ast.StructRef) and isinstance(n.name, c_ast.ID) \
                and (n.name.name, n.type, n.field.name) in locals_:
            return c_ast.ID(locals_[(n.name.name, n.type, n.field.name)], coord=n.coord)
        return rewrite_children(n, rewrite)

    return rewrite(loop)
