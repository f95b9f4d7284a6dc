"""Calls to small static helpers of the translation unit, replaced by the helper's body.

Image and physics code calls tiny helpers in its hot loops (``clamp01(v)``, ``inv_dist3(dx, dy,
dz, eps2)``). To the analyses a call is impure, so the loops around it would not be a SCoP. Where
the helper is simple enough, the expression lifter (expressions.py) puts the helper's body, as
one expression, in place of the call instead. A helper is inlined when:

* it is defined in the translation unit and ``static`` (so the call binds to the definition we
  see), not variadic, its parameters (all named) and its result of scalar arithmetic types
  (through typedefs; nothing volatile);
* its body is made of declarations of scalar arithmetic locals, assignments to its locals and
  parameters (``=``, ``op=``, ``++``, ``--``), ``if``/``else``, blocks and ``return e;``, and
  every path ends in a ``return``. Locals are let-bindings, substituted into what reads them;
  an ``if`` that returns becomes ``cond ? then : rest``, one that only assigns becomes
  ``x = cond ? a : b`` for each variable it assigns;
* its expressions read only its parameters and locals, constants, file-scope enum constants and
  call only the <math.h> functions the analyses take as pure (``PURE_FUNCTIONS``) or other
  helpers inlined the same way (no recursion); no global variable, no pointer, no ``sizeof``;
* the expression stays under ``MAX_NODES`` nodes, at the call too (arguments substituted).

C's conversions are kept: each argument is converted to its parameter's type, each value stored
in a local to the local's type and each returned value to the return type, by a cast, left out
only where the expression has that type already (arithmetic_types.py). Arguments are lifted
expressions, hence free of side effects: substituting one in several places, or in none, or in
one branch of a ``?:`` only, computes what the call computed. Substitution works on IR
expressions, all names at once, so a helper's parameter named like a variable of the caller
cannot capture it; a call stays as it is where a name the helper's body uses (an enum constant,
a math function) is a variable at the call, or an argument reads a volatile variable.

Statements the front end keeps as text (Opaque nodes) keep the call as written. A regenerated
region that no longer names a static function its original text called starts with
``(void)name;`` (``uses_kept``): else the compiler would warn that the function is unused, an
error under ``-Werror``.
"""
from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from typing import Callable, Iterable, Mapping

from pycparser import c_ast

from frontends.c.ast_rewrite import walk
from frontends.c.arithmetic_types import ArithmeticTypes, LeafType, converted
from frontends.c.declarations import Unliftable
from frontends.c.expressions import ExpressionLifter
from frontends.c.parse import FUNC_DECL_TYPES
from s2s.ir import Access, Array, Data, Binary, Cast, Const, Expr, Sym, Ternary
from s2s.ir import expr as ex

MAX_NODES = 300

Inline = Callable[[str, tuple[Expr, ...]], Expr | None]


class NotInlinable(Exception):
    """The helper (or this call of it) is outside what inlining handles."""


@dataclass(frozen=True)
class Parameter:
    name: str
    type: str   # canonical arithmetic type (arithmetic_types.py)


@dataclass(frozen=True)
class Helper:
    """A helper's body as one expression over its parameters' placeholders (``placeholder``)."""

    name: str
    params: tuple[Parameter, ...]
    returns: str
    body: Expr
    free_names: frozenset[str]   # enum constants and functions the body names

    def placeholder(self, p: Parameter) -> str:
        return placeholder(self.name, p.name)


def placeholder(helper: str, param: str) -> str:
    """A name no C program spells: the parameter in the helper's body."""
    return f"{helper}@{param}"


def _too_big(e: Expr, limit: int = MAX_NODES) -> bool:
    """More than ``limit`` nodes (counted without walking a shared subtree further than that)."""
    count = 0
    stack = [e]
    while stack:
        count += 1
        if count > limit:
            return True
        stack.extend(ex.children(stack.pop()))
    return False


@dataclass
class InlineHelpers:
    """The static functions of a translation unit, and those of them that can be inlined."""

    definitions: dict[str, c_ast.FuncDef] = field(default_factory=dict)
    types: ArithmeticTypes = field(default_factory=ArithmeticTypes)
    enum_constants: set[str] = field(default_factory=set)
    variables: set[str] = field(default_factory=set)
    _helpers: dict[str, Helper | None] = field(default_factory=dict)
    _reading: list[str] = field(default_factory=list)

    @staticmethod
    def of(ast: c_ast.FileAST, variables: set[str], enum_constants: set[str]) -> "InlineHelpers":
        """``variables``, ``enum_constants``: those of the file scope."""
        static = {ext.name for ext in ast.ext if isinstance(ext, c_ast.Decl) and "static" in ext.storage}
        definitions = {}
        for ext in ast.ext:
            if isinstance(ext, c_ast.FuncDef) and ("static" in ext.decl.storage or ext.decl.name in static):
                definitions[ext.decl.name] = ext
        block_enums = _block_enum_constants(ast)
        return InlineHelpers(definitions, ArithmeticTypes.of(ast), set(enum_constants) - block_enums,
                             set(variables))

    def helper(self, name: str) -> Helper | None:
        """The helper ``name`` as an expression; None where it cannot be inlined."""
        if name in self._helpers:
            return self._helpers[name]
        func = self.definitions.get(name)
        if func is None or name in self._reading:
            return None   # not ours, or a recursion (the cycle's calls stay calls, so none is inlinable)
        self._reading.append(name)
        try:
            helper = _BodyReader(self, func).helper()
        except NotInlinable:
            helper = None
        finally:
            self._reading.pop()
        self._helpers[name] = helper
        return helper

    def call_site(self, is_variable: Callable[[str], bool], data_of: Callable[[str], Data | None]) -> Inline:
        """The inliner of one function's calls: ``is_variable`` tells a C name in scope there,
        ``data_of`` gives a container by name (its type and declaration)."""

        def value_type(leaf: Sym | Access) -> str | None:
            data = data_of(leaf.name)
            if data is None:
                return "int" if isinstance(leaf, Sym) and leaf.name in self.enum_constants \
                    and not is_variable(leaf.name) else None
            indices = len(leaf.indices) if isinstance(leaf, Access) else 0
            if indices != (data.rank if isinstance(data, Array) else 0):
                return None
            return self.types.canonical(data.dtype.spelling)

        def volatile(name: str) -> bool:
            declaration = getattr(data_of(name), "declaration", None) or ""
            return re.search(r"\bvolatile\b", declaration) is not None

        def inline(name: str, args: tuple[Expr, ...]) -> Expr | None:
            helper = self.helper(name)
            if helper is None or any(is_variable(n) for n in helper.free_names):
                return None
            if any(volatile(n) for a in args for n in ex.names(a)):
                return None
            return instantiate(helper, args, value_type)

        return inline


def instantiate(helper: Helper, args: tuple[Expr, ...], value_type: LeafType) -> Expr | None:
    """The helper's body with each parameter replaced by its argument, converted to the
    parameter's type; None where the arguments do not fit or the result would be too big."""
    if len(args) != len(helper.params) or not all(ex.is_pure(a) for a in args):
        return None   # (an impure argument would run as many times as the body reads it)
    mapping = {helper.placeholder(p): converted(p.type, a, value_type) for p, a in zip(helper.params, args)}
    e = ex.substitute(helper.body, mapping)
    return None if _too_big(e) else e


def uses_kept(original: str, regenerated: str, functions: Iterable[str]) -> str:
    """``(void)f;`` lines for the ``functions`` (the file's static ones) that ``original``, a
    region's text as written, calls and ``regenerated``, its new text, no longer names."""
    def named(name: str, text: str, call: str = "") -> bool:
        return re.search(rf"\b{re.escape(name)}\b{call}", text) is not None

    return "".join(f"(void){f};\n" for f in sorted(functions)
                   if named(f, original, r"\s*\(") and not named(f, regenerated))


def _block_enum_constants(ast: c_ast.FileAST) -> set[str]:
    """Enum constants declared inside a function: they may hide file-scope ones there."""
    out: set[str] = set()

    class V(c_ast.NodeVisitor):
        def visit_Enumerator(self, n):
            out.add(n.name)

    for ext in ast.ext:
        if isinstance(ext, c_ast.FuncDef):
            V().visit(ext.body)
    return out


@dataclass(frozen=True)
class Binding:
    """What a local or parameter of the helper holds at a point of its body."""

    type: str
    value: Expr | None   # None: declared, not yet assigned


@dataclass(frozen=True)
class State:
    """The helper's variables at a point of its body: C names in scope -> keys (one per
    declaration), keys -> bindings."""

    names: Mapping[str, str]
    values: Mapping[str, Binding]

    def declare(self, cname: str, key: str, binding: Binding) -> "State":
        return State({**self.names, cname: key}, {**self.values, key: binding})

    def assign(self, key: str, value: Expr) -> "State":
        return State(self.names, {**self.values, key: Binding(self.values[key].type, value)})

    def leaving_block(self, outer: "State") -> "State":
        """This state after a block entered at ``outer``: its declarations go out of scope."""
        return State(outer.names, {k: v for k, v in self.values.items() if k in outer.values})


Continuation = Callable[[State], "Expr | State"]


class _BodyReader:
    """Reads one helper's definition into a Helper, or raises NotInlinable."""

    def __init__(self, helpers: InlineHelpers, func: c_ast.FuncDef):
        self.helpers = helpers
        self.func = func
        self.name = func.decl.name
        self.keys = itertools.count()
        self.state = State({}, {})
        self.lifter = ExpressionLifter(self._resolve, self._is_variable, inline=self._inline)
        decl = func.decl.type
        if not isinstance(decl, FUNC_DECL_TYPES) or func.param_decls:
            raise NotInlinable("old-style definition")
        self.returns = self._scalar(decl.type)
        self.params = self._parameters(decl.args.params if decl.args is not None else [])
        types = {placeholder(self.name, p.name): p.type for p in self.params}

        def template_type(leaf: Sym | Access) -> str | None:
            """The type of a name in the body as read: a parameter's placeholder or an enum constant."""
            if isinstance(leaf, Access):
                return None
            return types.get(leaf.name, "int" if leaf.name in helpers.enum_constants else None)

        self.template_type = template_type

    # --- the signature ----------------------------------------------------------------------------

    def helper(self) -> Helper:
        state = State({}, {})
        for p in self.params:
            state = state.declare(p.name, self._key(), Binding(p.type, Sym(placeholder(self.name, p.name))))
        body = self._block(self.func.body.block_items or [], state, None)
        if isinstance(body, State):
            raise NotInlinable("a path without a return")
        body = converted(self.returns, body, self.template_type)
        names = {n for n in ex.walk(body) if isinstance(n, Sym)}
        free = {n.name for n in names if "@" not in n.name} | ex.calls(body)
        return Helper(self.name, tuple(self.params), self.returns, body, frozenset(free))

    def _parameters(self, params: list[c_ast.Node]) -> list[Parameter]:
        if len(params) == 1 and isinstance(params[0], c_ast.Typename) and self._is_void(params[0].type):
            return []
        out = []
        for p in params:
            if not isinstance(p, c_ast.Decl) or not p.name:
                raise NotInlinable("a parameter that is not a named scalar")
            out.append(Parameter(p.name, self._scalar(p.type)))
        return out

    @staticmethod
    def _is_void(t: c_ast.Node) -> bool:
        return isinstance(t, c_ast.TypeDecl) and isinstance(t.type, c_ast.IdentifierType) and t.type.names == ["void"]

    def _scalar(self, t: c_ast.Node) -> str:
        if isinstance(t, c_ast.TypeDecl) and isinstance(t.type, c_ast.IdentifierType) and "volatile" not in t.quals:
            canonical = self.helpers.types.canonical(" ".join(t.type.names))
            if canonical is not None:
                return canonical
        raise NotInlinable("not a scalar arithmetic type")

    def _key(self) -> str:
        return f"@{next(self.keys)}"

    # --- statements -------------------------------------------------------------------------------

    def _block(self, items: list[c_ast.Node], state: State, after: Continuation | None) -> Expr | State:
        """The value of running ``items`` from ``state``: the returned expression, or what
        ``after`` makes of the state where the items end without returning."""
        if not items:
            if after is None:
                raise NotInlinable("a path without a return")
            return after(state)
        s, rest = items[0], items[1:]

        def then(st: State) -> Expr | State:
            return self._block(rest, st, after)

        if isinstance(s, c_ast.Return):
            if s.expr is None:
                raise NotInlinable("return without a value")
            return self._lift(s.expr, state)   # (converted to the return type at the end)
        if isinstance(s, c_ast.Decl):
            return then(self._declare(s, state))
        if isinstance(s, (c_ast.Assignment, c_ast.UnaryOp)):
            return then(self._assign(s, state))
        if isinstance(s, c_ast.EmptyStatement):
            return then(state)
        if isinstance(s, c_ast.Compound):
            return self._block(s.block_items or [], state, lambda st: then(st.leaving_block(state)))
        if isinstance(s, c_ast.If):
            return self._if(s, state, then)
        raise NotInlinable(f"statement {type(s).__name__}")

    def _if(self, s: c_ast.If, state: State, then: Continuation) -> Expr | State:
        cond = self._lift(s.cond, state)
        branches = [b for b in (s.iftrue, s.iffalse) if b is not None]
        if not any(isinstance(n, c_ast.Return) for b in branches for n in walk(b)):
            # only assignments: each variable takes one value or the other, the rest follows once
            yes = self._run(s.iftrue, state)
            no = self._run(s.iffalse, state) if s.iffalse is not None else state
            merged = state
            for key, binding in state.values.items():
                a, b = yes.values[key].value, no.values[key].value
                if a != b:
                    value = None if a is None or b is None else Ternary(cond, a, b)
                    merged = State(merged.names, {**merged.values, key: Binding(binding.type, value)})
            self._check_size(*(b.value for b in merged.values.values() if b.value is not None))
            return then(merged)
        yes = self._run(s.iftrue, state, then)
        no = self._run(s.iffalse, state, then) if s.iffalse is not None else then(state)
        if isinstance(yes, State) or isinstance(no, State):
            raise NotInlinable("an if that returns on one path and falls through on another, nested")
        e = Ternary(cond, *self._returned(yes, no))
        self._check_size(e)
        return e

    def _returned(self, *values: Expr) -> tuple[Expr, ...]:
        """Returned values, each converted to the return type (both ``?:`` operands then have it)."""
        return tuple(converted(self.returns, v, self.template_type) for v in values)

    def _run(self, branch: c_ast.Node, state: State, then: Continuation | None = None) -> Expr | State:
        """A branch of an ``if``: its own block (``then`` after it; the state where None)."""
        items = branch.block_items or [] if isinstance(branch, c_ast.Compound) else [branch]
        return self._block(items, state, lambda st: st.leaving_block(state) if then is None
                           else then(st.leaving_block(state)))

    def _declare(self, s: c_ast.Decl, state: State) -> State:
        if s.storage and s.storage != ["register"] or s.bitsize is not None or s.name is None:
            raise NotInlinable("a local that is not a plain scalar")
        t = self._scalar(s.type)
        key = self._key()
        state = state.declare(s.name, key, Binding(t, None))   # (in scope in its own initializer)
        if s.init is None:
            return state
        return state.assign(key, self._converted(t, self._lift(s.init, state)))

    def _assign(self, s: c_ast.Assignment | c_ast.UnaryOp, state: State) -> State:
        if isinstance(s, c_ast.UnaryOp):
            if s.op not in ("++", "--", "p++", "p--"):
                raise NotInlinable(f"statement {s.op}")
            target, value = s.expr, Binary("+" if "+" in s.op else "-", self._lift(s.expr, state), Const("1"))
        else:
            target = s.lvalue
            value = self._lift(s.rvalue, state)
            if s.op != "=":
                value = Binary(s.op[:-1], self._lift(s.lvalue, state), value)
        if not isinstance(target, c_ast.ID) or target.name not in state.names:
            raise NotInlinable("an assignment to something other than a local")
        key = state.names[target.name]
        return state.assign(key, self._converted(state.values[key].type, value))

    def _converted(self, t: str, e: Expr) -> Expr:
        e = converted(t, e, self.template_type)
        self._check_size(e)
        return e

    @staticmethod
    def _check_size(*exprs: Expr) -> None:
        if any(_too_big(e) for e in exprs):
            raise NotInlinable("too big")

    # --- expressions ------------------------------------------------------------------------------

    def _lift(self, node: c_ast.Node, state: State) -> Expr:
        """``node`` as an expression over the parameters' placeholders."""
        self.state = state
        try:
            e = self.lifter(node)
        except Unliftable as why:
            raise NotInlinable(str(why)) from why
        mapping: dict[str, Expr] = {}
        for n in ex.walk(e):
            if isinstance(n, Sym) and n.name.startswith("@"):
                value = state.values[n.name].value
                if value is None:
                    raise NotInlinable("a local read before it is assigned")
                mapping[n.name] = value
            elif isinstance(n, Sym):
                if n.name not in self.helpers.enum_constants:
                    raise NotInlinable(f"{n.name} is not a local or an enum constant")
            elif isinstance(n, ex.Call):
                if n.func not in ex.PURE_FUNCTIONS:
                    raise NotInlinable(f"a call of {n.func}")
            elif isinstance(n, Cast):
                if self.helpers.types.canonical(n.type) is None:
                    raise NotInlinable("a cast to other than a plain arithmetic type")
            elif not isinstance(n, (ex.Unary, Binary, Ternary)) and not (
                    isinstance(n, Const) and not n.text.startswith(('"', "L", "u", "U"))):
                raise NotInlinable(f"{type(n).__name__} in an expression")
        # casts spelled as keywords: a typedef's name may mean something else where the call is
        e = ex.rebuild(ex.substitute(e, mapping), lambda n: Cast(self.helpers.types.canonical(n.type), n.operand)
                       if isinstance(n, Cast) else None)
        self._check_size(e)
        return e

    def _resolve(self, cname: str) -> str:
        key = self.state.names.get(cname)
        if key is not None:
            return key
        if cname in self.helpers.variables:
            raise Unliftable(f"global variable {cname}")
        return cname

    def _is_variable(self, cname: str) -> bool:
        return cname in self.state.names or cname in self.helpers.variables

    def _inline(self, name: str, args: tuple[Expr, ...]) -> Expr | None:
        """A call of another helper inside this one: its body, on this one's keys."""
        helper = self.helpers.helper(name)
        if helper is None:
            return None
        keys = self.state

        def key_type(leaf: Sym | Access) -> str | None:
            if isinstance(leaf, Access):
                return None
            if leaf.name in keys.values:
                return keys.values[leaf.name].type
            return "int" if leaf.name in self.helpers.enum_constants else None

        return instantiate(helper, args, key_type)


