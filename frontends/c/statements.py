"""C function bodies (pycparser AST) -> SDFG control trees.

What the IR models (canonical for loops, while/do loops, if/else, assignments and calls on scalars
and array elements, declarations) is lifted; every other statement (goto, switch, pointer walks,
struct members, inline asm, ...) becomes an Opaque node carrying its C text, so nothing is lost.
"""
from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass, field

from pycparser import c_ast

from frontends.c.parse import FUNC_DECL_TYPES

from frontends.c.ast_rewrite import walk, written_names
from frontends.c.c_text import declaration_text, node_text, statement_text
from frontends.c.counted_loops import as_for
from frontends.c.header_variables import one_variable
from frontends.c.inline_loops import inlined_call, inlined_declaration, type_text
from frontends.c.loop_continues import without_continues
from frontends.c.declarations import Unliftable, construct_name, container_for
from frontends.c.enum_values import enum_values
from frontends.c.expressions import ExpressionLifter
from frontends.c.inline_functions import InlineHelpers
from frontends.c.index_temporaries import index_temporaries_in_block, substitute_indices
from frontends.c.pointer_views import PointerView, substitute_views, views_in_block
from frontends.c.struct_members import StructTypes, hoist_members
from s2s.ir import (
    Access, Array, Binary, Block, Break, Const, Continue, ControlNode, Declare, Expr, For, IfElse, Range, TypeKind,
    Return, Scalar, Sequence, SourceSpan, Storage, Sym, Symbol, While,
)
from s2s.ir import expr as ex
from s2s.ir.builder import SDFGBuilder

_COMPOUND_ASSIGN = {"+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "|=", "^="}


@dataclass
class FileScope:
    """What the file declares outside functions: variables (by name), enum constants, functions
    and the static ones among them whose calls can be inlined."""

    variables: dict[str, c_ast.Decl] = field(default_factory=dict)
    enum_constants: set[str] = field(default_factory=set)
    enum_values: dict[str, int] = field(default_factory=dict)   # those of known value, in every function
    functions: set[str] = field(default_factory=set)
    types: StructTypes = field(default_factory=StructTypes)   # struct definitions and typedefs
    helpers: InlineHelpers = field(default_factory=InlineHelpers)


def address_taken_names(node: c_ast.Node) -> set[str]:
    """Names whose address is taken (``&s``) anywhere below ``node``: a pointer may reach them."""
    out: set[str] = set()

    class V(c_ast.NodeVisitor):
        def visit_UnaryOp(self, n):
            if n.op == "&" and isinstance(n.expr, c_ast.ID):
                out.add(n.expr.name)
            self.generic_visit(n)

    V().visit(node)
    return out


class FunctionLifter:
    def __init__(self, func: c_ast.FuncDef, file_scope: FileScope, main_file: str = "",
                 strict_aliasing: bool = True):
        self.func = func
        self.strict_aliasing = strict_aliasing   # C's effective-type rule holds (struct_members.py)
        self.main_file = main_file
        self.file_scope = file_scope
        signature = node_text(func.decl)
        self.b = SDFGBuilder(func.decl.name, signature)
        self.scopes: list[dict[str, str]] = [{}]
        # enum constants declared in a block: the block's scope, and their values (None: unknown)
        self.block_enums: list[tuple[dict[str, str], dict[str, int | None]]] = []
        self.loop_vars: list[str] = []
        self.written = written_names(func.body)
        self.address_taken = address_taken_names(func.body)
        self.views: dict[str, PointerView] = {}   # pointer views in scope (pointer_views.py), by C name
        self.indices: dict[str, c_ast.Node] = {}   # index temporaries in scope (index_temporaries.py): value
        self.members_left: dict[str, str] = {}   # struct members read in place (``s->m``): why
        self._members_hoisted: set[int] = set()   # (ids of the loops rewritten to read locals)
        inline = file_scope.helpers.call_site(self.is_variable, self._data)
        self.expr = ExpressionLifter(self.resolve, self.is_variable, self.views.get, self.members_left.get, inline,
                                     self.indices.get, self.enum_value, lambda c: self._element_of(c) is not None)
        self.opaque_reasons: list[str] = []
        self.loop_depth = 0
        self.before: list[c_ast.Node] = []   # the statements run before the current one, in its blocks
        self._declared_types = _declared_types(func, file_scope)
        self._used_names = _identifiers(func) | set(file_scope.variables) | file_scope.functions \
            | file_scope.enum_constants | set(file_scope.types.typedefs)

    # --- names ----------------------------------------------------------------------------------

    def is_variable(self, cname: str) -> bool:
        return any(cname in s for s in self.scopes) or cname in self.file_scope.variables

    def enum_value(self, cname: str) -> int | None:
        """The value of the enum constant ``cname`` names here; None where it names a variable, a
        function or nothing. A block's own constant of a value not known is no expression."""
        for scope in reversed(self.scopes):
            if cname in scope:
                return None
            for owner, values in self.block_enums:
                if owner is scope and cname in values:
                    if values[cname] is None:
                        raise Unliftable(f"enum constant {cname} of a value not known")
                    return values[cname]
        if cname in self.file_scope.variables:
            return None
        return self.file_scope.enum_values.get(cname)

    def resolve(self, cname: str) -> str:
        for scope in reversed(self.scopes):
            if cname in scope:
                return scope[cname]
        decl = self.file_scope.variables.get(cname)
        if decl is None:
            return cname  # an enum constant or a function
        if self.b.has_container(cname):
            existing = self.b.container(cname)
            if existing.storage is not Storage.GLOBAL:
                raise Unliftable(f"global {cname!r} is shadowed by a local of the same name")
            return cname
        self.b.add_container(container_for(decl, cname, Storage.GLOBAL, self.expr))
        return cname

    def declare_local(self, decl: c_ast.Decl, storage: Storage) -> str:
        """Brings ``decl`` into the innermost scope; reuses the C name unless that would shadow a
        live variable or clash with a different earlier declaration."""
        cname = decl.name
        data = container_for(decl, cname, storage, self._lift_dim, address_taken=cname in self.address_taken)
        active = any(cname in s for s in self.scopes)
        name = cname
        if self.b.has_container(cname):
            prev = self.b.container(cname)
            same = prev.declaration == data.declaration and prev.storage is storage
            if active or not same:
                name = self.b.unique_name(cname)
                data = container_for(decl, name, storage, self._lift_dim, address_taken=cname in self.address_taken)
                self.b.add_container(data)
        else:
            self.b.add_container(data)
        self.scopes[-1][cname] = name
        return name

    def _lift_dim(self, node: c_ast.Node) -> Expr:
        return self.expr(node)

    # --- function -------------------------------------------------------------------------------

    def lift(self, origin: SourceSpan | None = None, body_origins: dict[int, SourceSpan] | None = None):
        params = self.func.decl.type.args.params if self.func.decl.type.args else []
        for p in params:
            if not isinstance(p, c_ast.Decl) or p.name is None:
                continue  # (void), or an unnamed parameter
            data = container_for(p, p.name, Storage.ARGUMENT, self._lift_dim, is_param=p.name not in self.written,
                                 address_taken=p.name in self.address_taken, reassigned=p.name in self.written)
            self.b.add_container(data, param=True)
            self.scopes[0][p.name] = p.name
        # Declarations directly in the body keep their C names: code outside rewritten regions uses them.
        self.scopes.append({})
        items = self.func.body.block_items or []
        for s in items:
            if isinstance(s, c_ast.Decl) and s.name and not self.b.has_container(s.name):
                storage = Storage.STATIC_LOCAL if "static" in s.storage else Storage.STACK
                self.b.add_container(container_for(s, s.name, storage, self._lift_dim,
                                                   address_taken=s.name in self.address_taken))
        items = counted(items)
        children: list[ControlNode] = []
        for k, s in enumerate(items):
            span = (body_origins or {}).get(k)
            self.before = items[:k]
            for node in self.statement(s):
                children.append(_with_origin(node, span) if span is not None else node)
                span = None
        body = self.b.sequence(children)
        values = index_temporaries_in_block(items, self.written | self.address_taken, written_names, self._is_local,
                                            read_anywhere=True)
        sdfg = self.b.build(body, origin)
        fixed = []
        for k, value in values.items():
            try:
                fixed.append((self.resolve(items[k].name), self.expr(value)))
            except Unliftable:
                continue
        return dataclasses.replace(sdfg, fixed_values=tuple(fixed)) if fixed else sdfg

    # --- statements -----------------------------------------------------------------------------

    def statement(self, s: c_ast.Node) -> list[ControlNode]:
        if isinstance(s, c_ast.For) and (single := one_variable(s, self._signed_integer)) is not None:
            s = single   # (a header of several variables: a block of one loop of one)
        elif self.loop_depth and (inlined := inlined_call(
                s, self.file_scope.helpers.definitions, self._fresh_name, self._is_local, self._type_text,
                set(ex.PURE_FUNCTIONS))) is not None:
            s = inlined   # (a helper that loops, called in a loop: its statements in place of the call)
        if isinstance(s, (c_ast.For, c_ast.While, c_ast.DoWhile)) and self.loop_depth == 0 \
                and id(s) not in self._members_hoisted and not (self.before and isinstance(self.before[-1], c_ast.Pragma)):
            s = self._with_members_hoisted(s)   # (not under a pragma: it applies to the loop itself)
        method = getattr(self, "stmt_" + type(s).__name__, None)
        try:
            if method is None:
                raise Unliftable(construct_name(s, "statement"))
            nodes = method(s)
        except Unliftable as why:
            nodes = [self._opaque(s, str(why))]
        if s.coord is not None and s.coord.file == self.main_file and len(nodes) == 1 and nodes[0].origin is None:
            # where the statement starts, for messages; body_spans gives spliceable spans later
            nodes = [_with_origin(nodes[0], SourceSpan(self.main_file, -1, -1, s.coord.line, s.coord.column or 0))]
        return nodes

    def _opaque(self, s: c_ast.Node, reason: str) -> ControlNode:
        self.opaque_reasons.append(reason)
        return self.b.opaque(statement_text(self._renamed(s)), reason)

    def _renamed(self, s: c_ast.Node) -> c_ast.Node:
        """``s`` with references to renamed locals spelled as in the IR (scope-aware), pointer
        views read through their bases."""
        if self.indices:
            s = substitute_indices(s, self.indices)
        if self.views:
            s = substitute_views(s, self.views)
        live = {c: n for scope in self.scopes for c, n in scope.items() if c != n}
        if not live:
            return s
        s = copy.deepcopy(s)
        _rename_ids(s, live)
        return s

    def _is_local(self, cname: str) -> bool:
        """A local or parameter in scope whose address the function never takes."""
        return any(cname in scope for scope in self.scopes) and cname not in self.address_taken

    def _element_of(self, cname: str) -> tuple[str, int] | None:
        """(element type, number of subscripts) of the array or pointer ``cname`` names here."""
        if not self.is_variable(cname) or cname in self.views:
            return None
        data = self._data(self.resolve(cname))
        return (data.dtype.spelling, data.rank) if isinstance(data, Array) else None

    def as_sequence(self, s: c_ast.Node | None) -> Sequence:
        if s is None:
            return self.b.sequence([])
        if isinstance(s, c_ast.Compound):
            return self.stmt_Compound(s)[0]
        self.scopes.append({})
        try:
            return self.b.sequence(self.statement(s))
        finally:
            self.scopes.pop()

    def stmt_Compound(self, s: c_ast.Compound) -> list[ControlNode]:
        self.scopes.append({})
        items = counted(s.block_items or [])
        if self.loop_depth:   # (``T x = helper(...);``: ``T x;`` and the helper's statements)
            items = [new for item in items for new in inlined_declaration(
                item, self.file_scope.helpers.definitions, self._fresh_name, self._is_local, self._type_text,
                set(ex.PURE_FUNCTIONS)) or [item]]
        views = views_in_block(items, self.written | self.address_taken, self._element_of, written_names,
                               self._is_local)
        indices = index_temporaries_in_block(items, self.written | self.address_taken, written_names,
                                             lambda cname: self._is_local(cname) or cname in self.indices)
        outer, outer_indices = dict(self.views), dict(self.indices)
        outer_before = self.before
        children: list[ControlNode] = []
        try:
            for k, item in enumerate(items):
                if k in views:   # (read through its base from here on: no declaration)
                    self.views[item.name] = views[k]
                elif k in indices:   # (read as its value from here on: no declaration)
                    self.indices[item.name] = indices[k]
                else:
                    self.before = outer_before + items[:k]
                    children += self.statement(item)
        finally:
            self.before = outer_before
            self.scopes.pop()
            self.views.clear()
            self.views.update(outer)
            self.indices.clear()
            self.indices.update(outer_indices)
        return [self.b.sequence(children)]

    def stmt_EmptyStatement(self, s) -> list[ControlNode]:
        return []

    def stmt_Pragma(self, s: c_ast.Pragma) -> list[ControlNode]:
        return [self.b.opaque(f"#pragma {s.string}\n", "pragma")]

    def stmt_Decl(self, s: c_ast.Decl) -> list[ControlNode]:
        if isinstance(s.type, c_ast.Enum) and s.type.values is not None:
            enumerators = s.type.values.enumerators
            known = enum_values(enumerators, {})
            self.block_enums.append((self.scopes[-1], {e.name: known.get(e.name) for e in enumerators}))
        if s.name is None or isinstance(s.type, FUNC_DECL_TYPES) or "extern" in s.storage or "typedef" in s.storage:
            raise Unliftable("declaration of a type or function")
        storage = Storage.STATIC_LOCAL if "static" in s.storage else Storage.STACK
        in_body_scope = len(self.scopes) == 2 and s.name in self._body_names()
        if in_body_scope:
            name = s.name
            self.scopes[-1][s.name] = s.name
        else:
            name = self.declare_local(s, storage)
        data = self.b.container(name)
        init: Block | None = None
        init_text: str | None = None
        if s.init is not None:
            if storage is Storage.STATIC_LOCAL or isinstance(s.init, c_ast.InitList) or isinstance(data, Array):
                init_text = node_text(self._renamed(s.init))
            else:
                try:
                    init = self.b.assignment(Sym(name), self._value(s.init), self.loop_vars, _dtype(data))
                except Unliftable:
                    init_text = node_text(self._renamed(s.init))
        return [self.b.node(Declare, name=name, init=init, init_text=init_text)]

    def _body_names(self) -> set[str]:
        return {d.name for d in (self.func.body.block_items or []) if isinstance(d, c_ast.Decl) and d.name}

    def stmt_Assignment(self, s: c_ast.Assignment) -> list[ControlNode]:
        target = self._target(s.lvalue)
        value = self._value(s.rvalue)
        if s.op in _COMPOUND_ASSIGN:
            value = Binary(s.op[:-1], target, value)
        elif s.op != "=":
            raise Unliftable(f"assignment {s.op}")
        return [self.b.assignment(target, value, self.loop_vars)]

    def stmt_UnaryOp(self, s: c_ast.UnaryOp) -> list[ControlNode]:
        if s.op not in ("++", "--", "p++", "p--"):
            raise Unliftable(f"expression statement {s.op}")
        target = self._target(s.expr)
        op = "+" if "+" in s.op else "-"
        return [self.b.assignment(target, Binary(op, target, Const("1")), self.loop_vars)]

    def stmt_FuncCall(self, s: c_ast.FuncCall) -> list[ControlNode]:
        name = s.name.name if isinstance(s.name, c_ast.ID) else None
        if name in _MEMORY_ROUTINES:
            return [self._memory_routine(name, s)]
        call = self.expr.call(s, inline=False)   # (a call for its value only stays a call)
        self._check_values(call)
        return [self.b.assignment(None, call, self.loop_vars)]

    def _memory_routine(self, name: str, s: c_ast.FuncCall) -> ControlNode:
        """``memset(A, v, n)``, ``memcpy(A, B, n)``, ``memmove(A, B, n)`` on whole arrays of known
        shape: a LibraryNode that writes all of A (and reads all of B)."""
        args = s.args.exprs if s.args is not None else []
        if len(args) != 3:
            raise Unliftable(f"{name} with {len(args)} arguments")
        arrays = [self.resolve(a.name) if isinstance(a, c_ast.ID) else None for a in args[:2]]
        dst = self._data(arrays[0]) if arrays[0] else None
        if not isinstance(dst, Array) or any(d is None for d in dst.shape):
            raise Unliftable(f"{name} on something other than a whole array of known shape")
        lifted = [Sym(arrays[0])]
        reads = []
        if name == "memset":
            lifted.append(self._value(args[1]))
        else:
            src = self._data(arrays[1]) if arrays[1] else None
            if not isinstance(src, Array) or any(d is None for d in src.shape):
                raise Unliftable(f"{name} from something other than a whole array of known shape")
            lifted.append(Sym(arrays[1]))
            reads.append((arrays[1], _whole(src)))
        lifted.append(self.expr(args[2]))
        return self.b.library_call(name, lifted, reads, [(arrays[0], _whole(dst))])

    def stmt_If(self, s: c_ast.If) -> list[ControlNode]:
        cond = self._value(s.cond)
        then = self.as_sequence(s.iftrue)
        other = self.as_sequence(s.iffalse) if s.iffalse is not None else None
        return [self.b.node(IfElse, cond=cond, then=then, other=other)]

    def stmt_While(self, s: c_ast.While) -> list[ControlNode]:
        cond = self._value(s.cond)
        return [self.b.node(While, cond=cond, body=self._loop_body(s.stmt, None))]

    def stmt_DoWhile(self, s: c_ast.DoWhile) -> list[ControlNode]:
        cond = self._value(s.cond)
        return [self.b.node(While, cond=cond, body=self._loop_body(s.stmt, None), test_first=False)]

    def stmt_Break(self, s) -> list[ControlNode]:
        return [self.b.node(Break)]

    def stmt_Continue(self, s) -> list[ControlNode]:
        return [self.b.node(Continue)]

    def stmt_Return(self, s: c_ast.Return) -> list[ControlNode]:
        return [self.b.node(Return, value=None if s.expr is None else self._value(s.expr))]

    def stmt_For(self, s: c_ast.For) -> list[ControlNode]:
        if s.init is None and s.next is None:
            cond = Const("1") if s.cond is None else self._value(s.cond)
            return [self.b.node(While, cond=cond, body=self._loop_body(s.stmt, None))]
        if s.cond is None:
            raise Unliftable("for loop without a condition")
        self.scopes.append({})
        try:
            declares = False
            if isinstance(s.init, c_ast.DeclList) and len(s.init.decls) == 1 and s.init.decls[0].init is not None:
                decl = s.init.decls[0]
                if "static" in decl.storage:
                    raise Unliftable("static loop variable")
                var = self.declare_local(decl, Storage.STACK)
                init = self._value(decl.init)
                declares = True
            elif isinstance(s.init, c_ast.Assignment) and s.init.op == "=" and isinstance(s.init.lvalue, c_ast.ID):
                var = self.resolve(s.init.lvalue.name)
                init = self._value(s.init.rvalue)
            else:
                raise Unliftable("for loop initialisation is not `var = expr`")
            if not isinstance(self.b.container(var) if self.b.has_container(var) else None, Scalar):
                raise Unliftable("for loop variable is not a local scalar")
            cond = self._value(s.cond)
            update = self._update(s.next, var)
            body = self._loop_body(s.stmt, var)
            return [self.b.node(For, var=var, init=init, cond=cond, update=update, body=body, declares_var=declares)]
        finally:
            self.scopes.pop()

    def _loop_body(self, s: c_ast.Node, var: str | None) -> Sequence:
        if var is not None:
            self.loop_vars.append(var)
        self.loop_depth += 1
        try:
            return self.as_sequence(without_continues(s))
        finally:
            self.loop_depth -= 1
            if var is not None:
                self.loop_vars.pop()

    # --- struct members read in a loop nest (struct_members.py) ---------------------------------

    def _with_members_hoisted(self, loop: c_ast.Node) -> c_ast.Node:
        """``loop``, or a block that reads the struct members it reads into locals first."""
        inside = {d.name for d in walk(loop) if isinstance(d, c_ast.Decl) and d.name
                  and "static" not in d.storage and d.name not in self.address_taken}
        hoisting = hoist_members(
            loop, [] if self._has_labels() else self.before, self.file_scope.types, self._type_of,
            lambda name: name in inside or self._is_local(name), self.written | self.address_taken,
            self._fresh_name, self.strict_aliasing, self._reads_only_its_arguments)
        self.members_left.update(hoisting.refused)
        if hoisting.block is None:
            return loop
        self._members_hoisted.add(id(hoisting.block.block_items[-1]))
        return hoisting.block

    def _type_text(self, name: str) -> str | None:
        """The declared type of the variable ``name`` as written, where it is a plain one."""
        return type_text(self._declared_types.get(name))

    def _signed_integer(self, name: str) -> bool:
        """Whether the local or parameter ``name`` has a signed integer type (header_variables.py)."""
        data = self._data(self.resolve(name)) if self.is_variable(name) else None
        return isinstance(data, Scalar) and data.dtype.kind is TypeKind.SIGNED and "char" not in data.dtype.spelling

    def _reads_only_its_arguments(self, function: str) -> bool:
        """A math function or a static helper the lifter inlines: a call stores nothing."""
        return not self.is_variable(function) and (
            function in ex.PURE_FUNCTIONS or self.file_scope.helpers.helper(function) is not None)

    def _has_labels(self) -> bool:
        return any(isinstance(n, c_ast.Label) for n in walk(self.func.body))

    def _fresh_name(self, base: str) -> str:
        name, k = base, 1
        while name in self._used_names:
            name, k = f"{base}_{k}", k + 1
        self._used_names.add(name)
        return name

    def _type_of(self, e: c_ast.Node) -> c_ast.Node | None:
        """The declared type of the lvalue ``e`` (None where it is not plainly known)."""
        types = self.file_scope.types
        if isinstance(e, c_ast.ID):
            return self._declared_types.get(e.name)
        if isinstance(e, c_ast.Cast):
            return e.to_type.type
        if isinstance(e, (c_ast.ArrayRef, c_ast.UnaryOp)) and (not isinstance(e, c_ast.UnaryOp) or e.op == "*"):
            t = self._type_of(e.name if isinstance(e, c_ast.ArrayRef) else e.expr)
            t = types.resolve(t) if t is not None else None
            return t.type if isinstance(t, (c_ast.ArrayDecl, c_ast.PtrDecl)) else None
        if isinstance(e, c_ast.StructRef):
            t = self._type_of(e.name)
            t = types.resolve(t) if t is not None else None
            if e.type == "->":
                t = types.resolve(t.type) if isinstance(t, c_ast.PtrDecl) else None
            members = types.members(t) if t is not None else None
            decl = next((d for d in members or [] if d.name == e.field.name), None)
            return decl.type if decl is not None else None
        return None

    def _update(self, n: c_ast.Node | None, var: str) -> Expr:
        v = Sym(var)
        if isinstance(n, c_ast.UnaryOp) and n.op in ("++", "--", "p++", "p--") and self._is_var(n.expr, var):
            return Binary("+" if "+" in n.op else "-", v, Const("1"))
        if isinstance(n, c_ast.Assignment) and self._is_var(n.lvalue, var):
            value = self._value(n.rvalue)
            if n.op == "=":
                return value
            if n.op in _COMPOUND_ASSIGN:
                return Binary(n.op[:-1], v, value)
        raise Unliftable("for loop update is not an assignment of the loop variable")

    def _is_var(self, n: c_ast.Node, var: str) -> bool:
        return isinstance(n, c_ast.ID) and self.resolve(n.name) == var

    # --- expressions ----------------------------------------------------------------------------

    def _value(self, n: c_ast.Node) -> Expr:
        e = self.expr(n)
        self._check_values(e)
        return e

    def _target(self, n: c_ast.Node) -> Sym | Access:
        t = self.expr(n)
        if isinstance(t, Sym) and isinstance(self._data(t.name), Scalar):
            return t
        if isinstance(t, Access) and isinstance(self._data(t.name), Array) and len(t.indices) == self._data(t.name).rank:
            for i in t.indices:
                self._check_values(i)
            return t
        raise Unliftable("assignment target is not a scalar or an array element")

    def _data(self, name: str):
        return self.b.container(name) if self.b.has_container(name) else None

    def _check_values(self, e: Expr) -> None:
        """Values must be plain numbers: no arrays or pointers used as values, no partial subscripts."""
        for n in ex.walk(e):
            if isinstance(n, Sym):
                d = self._data(n.name)
                if isinstance(d, Array):
                    raise Unliftable(f"array {n.name!r} used as a pointer value")
            elif isinstance(n, Access):
                d = self._data(n.name)
                if not isinstance(d, Array) or len(n.indices) != d.rank:
                    raise Unliftable(f"subscript of {n.name!r} is not an element access")


_MEMORY_ROUTINES = ("memset", "memcpy", "memmove")


def counted(items: list[c_ast.Node]) -> list[c_ast.Node]:
    """A block's statements with each ``while`` that counts as the ``for`` it is (counted_loops.py)."""
    return [(as_for(items[k - 1], item) if k else None) or item for k, item in enumerate(items)]


def _identifiers(func: c_ast.FuncDef) -> set[str]:
    """Every name the function spells: identifiers, declared names, labels, struct members."""
    out: set[str] = set()
    for n in walk(func):
        name = getattr(n, "name", None) if isinstance(n, (c_ast.ID, c_ast.Decl, c_ast.Label, c_ast.Goto)) \
            else getattr(n, "declname", None) if isinstance(n, c_ast.TypeDecl) else None
        if isinstance(name, str):
            out.add(name)
    return out


def _declared_types(func: c_ast.FuncDef, file_scope: FileScope) -> dict[str, c_ast.Node]:
    """Declared type by name for the function's parameters and locals and the file's variables;
    a name declared twice with different types is left out (which one is meant depends on scope)."""
    out: dict[str, c_ast.Node] = {n: d.type for n, d in file_scope.variables.items()}
    seen = {n: declaration_text(d, n) for n, d in file_scope.variables.items()}
    ambiguous: set[str] = set()
    for n in walk(func):
        if isinstance(n, c_ast.Decl) and n.name and not isinstance(n.type, FUNC_DECL_TYPES):
            text = declaration_text(n, n.name)
            if seen.get(n.name, text) != text:
                ambiguous.add(n.name)
            seen[n.name] = text
            out[n.name] = n.type
    for name in ambiguous:
        out.pop(name, None)
    return out


def _whole(array: Array) -> tuple[Range, ...]:
    return tuple(Range(Const("0"), d, Const("1")) for d in array.shape)


def _dtype(data) -> str | None:
    return data.dtype.spelling if isinstance(data, (Scalar, Symbol)) else None


def _with_origin(node: ControlNode, span: SourceSpan) -> ControlNode:
    return type(node)(**{**node.__dict__, "origin": span})


def _rename_ids(node: c_ast.Node, renames: dict[str, str]) -> None:
    """Rename ID references in place, respecting declarations inside ``node`` that shadow them."""
    shadowed: list[set[str]] = [set()]

    def visit(n: c_ast.Node) -> None:
        opens = isinstance(n, (c_ast.Compound, c_ast.For))
        if opens:
            shadowed.append(set())
        if isinstance(n, c_ast.Decl) and n.name in renames:
            shadowed[-1].add(n.name)
        if isinstance(n, c_ast.ID) and n.name in renames and not any(n.name in s for s in shadowed):
            n.name = renames[n.name]
        for _, child in n.children():
            visit(child)
        if opens:
            shadowed.pop()

    visit(node)
