"""Index temporaries: an integer local declared with the offset it names and read only in
subscripts.

Grid and image code computes an element's offset once and reads its neighbours from it,
``const long c = k * sz + j * sy + i;`` then ``u[c - 1] + u[c + sy]``, and keeps strides in
locals made before the loops, ``const long sz = (long)nx * ny;``. To the polyhedral model ``c``
is a scalar written in the loop and ``sz`` a parameter of unknown relation to ``nx``; read
through their initializers the subscripts are ``u[k * nx * ny + j * nx + i - 1]``, a flat grid's
(s2s/analysis/flat_grids.py). A declaration is an index temporary when, in its block:

* it declares one variable of a signed integer type of at least ``int``'s width (no pointer, array,
  ``static`` or ``extern``) with an initializer computed from variables and constants alone (no
  call, assignment, element, member or dereference; conversions only to such types);
* the function never assigns it or takes its address, and every later use of it is inside the
  subscript of an array access or the initializer of another integer variable;
* the variables of the initializer are locals or parameters whose address the function never
  takes, and no statement after the declaration in the block writes or redeclares any of them
  (so the initializer has the same value wherever the variable is read).

The lifter then drops the declaration and reads the variable as ``(T)(initializer)``, ``T`` its
type: the conversion the initialization made, made at each use. Declarations directly in a
function's body stay (the code outside rewritten regions is the user's text, which reads
them), read anywhere; their values go to the model alone (``SDFG.fixed_values``), which reads
the subscripts through them.
"""
from __future__ import annotations

import copy
import re

from pycparser import c_ast

from frontends.c.ast_rewrite import identifiers, rewrite_children, walk

# (signed, no ``char`` or ``short``: the model reads the conversion to the variable's type as the
# value converted, which wrapping to an unsigned or narrow type would not keep)
INTEGER_WORDS = {"int", "long", "signed", "ssize_t", "ptrdiff_t", "int32_t", "int64_t", "intptr_t"}


def _integer_type(decl: c_ast.Decl) -> c_ast.Typename | None:
    """The type name of ``decl``'s variable, unqualified, where it is an integer type."""
    t = decl.type
    if not isinstance(t, c_ast.TypeDecl) or not isinstance(t.type, c_ast.IdentifierType):
        return None
    if not t.type.names or any(w not in INTEGER_WORDS for w in t.type.names):
        return None
    return c_ast.Typename(None, [], None, c_ast.TypeDecl(None, [], None, copy.deepcopy(t.type)))


def _uses_inside_subscripts(name: str, items: list[c_ast.Node]) -> bool:
    """Whether every use of ``name`` in ``items`` lies inside an array access's subscript or the
    initializer of an integer variable (another index temporary: ``c = k * sz + ...``), none
    is a declaration of the same name (a shadowing one, kept simple as a no), and no pragma
    spells it (a pragma's text is kept as it is)."""
    ok = True
    spelled = re.compile(rf"\b{re.escape(name)}\b")

    class V(c_ast.NodeVisitor):
        def __init__(self):
            self.depth = 0

        def visit_ArrayRef(self, n):
            self.visit(n.name)
            self.depth += 1
            self.visit(n.subscript)
            self.depth -= 1

        def visit_Pragma(self, n):
            nonlocal ok
            ok &= not spelled.search(n.string or "")

        def visit_ID(self, n):
            nonlocal ok
            if n.name == name and not self.depth:
                ok = False

        def visit_Decl(self, n):
            nonlocal ok
            if n.name == name:
                ok = False
            if n.init is not None and _integer_type(n) is not None:
                self.depth += 1
                self.visit(n.init)
                self.depth -= 1
            elif n.init is not None:
                self.visit(n.init)
            self.visit(n.type)

    for item in items:
        V().visit(item)
    return ok


# conversions of an integer value that keep it (to a signed type as wide as ``int`` or wider):
# the model reads conversions as the value they convert, which ``(unsigned)`` of a negative is not
_KEEPING = {"int", "signed", "signed int", "long", "long int", "long long", "long long int", "signed long",
            "ptrdiff_t", "ssize_t", "intptr_t", "int32_t", "int64_t"}
_VALUE_NODES = (c_ast.ID, c_ast.Constant, c_ast.Cast, c_ast.Typename, c_ast.TypeDecl, c_ast.IdentifierType,
                c_ast.BinaryOp, c_ast.TernaryOp)


def _reads_no_memory(init: c_ast.Node) -> bool:
    """Whether ``init`` computes from variables and constants alone (no element, member or
    dereference, whose value a store through a pointer could change), converting only to
    signed types at least as wide as ``int``."""
    for n in walk(init):
        if isinstance(n, c_ast.Cast) and " ".join(getattr(n.to_type.type.type, "names", ["?"])) not in _KEEPING:
            return False
        if not (isinstance(n, _VALUE_NODES) or isinstance(n, c_ast.UnaryOp) and n.op in ("-", "+")):
            return False
    return True


def _one_name(init: c_ast.Node) -> bool:
    while isinstance(init, c_ast.Cast):
        init = init.expr
    return isinstance(init, c_ast.ID)


def _used(name: str, items: list[c_ast.Node]) -> bool:
    return any(isinstance(n, c_ast.ID) and n.name == name for item in items for n in walk(item))


def index_temporaries_in_block(items: list[c_ast.Node], written_in_function: set[str], written_names,
                               is_local, read_anywhere: bool = False) -> dict[int, c_ast.Node]:
    """The declarations among a block's ``items`` that are index temporaries: item index -> the
    expression their uses read (``(T)(initializer)``). ``written_names(node)``: the names a
    statement assigns; ``is_local(name)``: a local variable or parameter of the function whose
    address it never takes. ``read_anywhere``: any use will do (the declaration stays, and the
    value serves the model alone: a function body's locals, which the code outside rewritten
    regions reads)."""
    found: dict[int, c_ast.Node] = {}
    fixed_here: set[str] = set()   # (declared before in the block, and never written: as good as a local in scope)
    for k, item in enumerate(items):
        if isinstance(item, c_ast.Decl) and item.name is not None and item.name not in written_in_function:
            fixed_here.add(item.name)
        if not isinstance(item, c_ast.Decl) or item.name is None or item.init is None or item.storage \
                or item.bitsize is not None or item.name in written_in_function:
            continue
        typename = _integer_type(item)
        if typename is None or not _reads_no_memory(item.init):
            continue
        if not read_anywhere and _one_name(item.init):
            continue   # (a copy, ``const long n2 = (long)n;``: the model has the name either way)
        read = identifiers(item.init)
        if not all(name in fixed_here - {item.name} or is_local(name) for name in read):
            continue
        rest = items[k + 1:]
        if not _used(item.name, rest) or not (read_anywhere or _uses_inside_subscripts(item.name, rest)):
            continue
        changed = set().union(*(written_names(r) for r in rest)) if rest else set()
        if changed & read or any(isinstance(n, c_ast.Decl) and n.name in read for r in rest for n in walk(r)):
            continue
        found[k] = c_ast.Cast(typename, copy.deepcopy(item.init))
    return found


def substitute_indices(node: c_ast.Node, indices: dict[str, c_ast.Node]) -> c_ast.Node:
    """A copy of ``node`` with every use of the temporaries of ``indices`` read as their value."""

    def rewrite(n: c_ast.Node) -> c_ast.Node:
        if isinstance(n, c_ast.ID) and n.name in indices:
            return copy.deepcopy(indices[n.name])
        return rewrite_children(n, rewrite)

    return rewrite(copy.deepcopy(node))
