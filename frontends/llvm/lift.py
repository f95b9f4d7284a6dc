"""A module's functions as one C file, and the rest of the module as LLVM IR.

The functions that have C's shape (to_c.py) become C definitions, in the module's order, after
prototypes of the functions they call. The others stay in the module, which keeps a declaration
of each function that moved to C (``residual``): compiled separately and linked, the two make
the program the module made. A function of internal linkage that moves to C gets a name of its
own there (``<name>_s2s_<digest>``, external, so that the module's calls reach it) and the
module's calls of it lose their calling convention (``fastcc``): C's is the platform's.
A function that calls an internal one which stays in the module stays too (C cannot reach it).
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from frontends.llvm.module import Function, Module, read_module
from frontends.llvm.to_c import HEADER_FUNCTIONS, LiftRefused, function_to_c, scalar_ctype
from frontends.llvm.views import StructViews, ViewConflict, pointer_rows


@dataclass
class LiftedModule:
    c_text: str                 # the C file: includes, prototypes, the lifted definitions
    lifted: list[str]           # the functions it defines (by their LLVM names)
    c_names: dict[str, str]     # LLVM name -> C name, where C names a function otherwise
    refused: dict[str, str]     # the functions it does not, and why
    residual: str | None        # the module without them (declared instead); None: nothing left


def lift_module(path: str | Path | None = None, text: str | None = None) -> LiftedModule:
    """The functions of the module at ``path`` (or in ``text``) as C (``LLVMReadError`` where
    LLVM cannot read it)."""
    return lift(read_module(path, text))


def lift(module: Module, keep: frozenset[str] = frozenset()) -> LiftedModule:
    """``module``'s functions as C, but for those of ``keep``, which stay LLVM IR (what the
    optimizer changes nothing in: LLVM compiles them as their language's compiler meant)."""
    digest = hashlib.sha256(module.text.encode()).hexdigest()[:8]
    defined = [f for f in module.functions if not f.declaration]
    names = {f.name: f"{_c_identifier(f.name)}_s2s_{digest}" for f in defined if f.linkage == "internal"}
    # (a global the module keeps to itself becomes one C can name: external, named after itself;
    # an external one keeps its name, which other files use)
    names.update({g: f"{_c_identifier(g)}_s2s_{digest}" for g, linkage in module.global_linkage.items()
                  if linkage != "external"})
    callees = {f.name: {i.callee for b in f.blocks for i in b.instructions if i.opcode == "call" and i.callee}
               for f in defined}
    refused: dict[str, str] = {}
    done: dict[str, object] = {}
    views = StructViews(module.structs)
    rows = pointer_rows(defined, module.structs)
    for f in defined:
        if f.name in keep:
            refused[f.name] = f"{f.name}: s2s changes nothing in it"
            continue
        try:
            done[f.name] = function_to_c(f, module, names, rows)
            views = views.merged(done[f.name].members)
        except LiftRefused as why:
            refused[f.name] = why.message
        except ViewConflict as why:
            refused[f.name] = f"{f.name}: a struct it shares with a function before it, read otherwise: {why}"
            del done[f.name]
    changed = False
    while True:   # (C cannot call an internal function that stays in the module)
        for name in list(done):
            stuck = [c for c in callees[name] if c in refused and c in names]
            if stuck:
                refused[name] = f"{name}: it calls {stuck[0]}, which stays in LLVM IR and is internal to it"
                del done[name]
                changed = True
                break
        else:
            break
    if changed:   # (the views of the functions that stay)
        views = StructViews(module.structs)
        for name in done:
            views = views.merged(done[name].members)
    lifted = [f.name for f in defined if f.name in done]
    headers = set().union(*(done[n].headers for n in lifted)) if lifted else set()
    definitions = [done[n].text for n in lifted]
    called = set().union(*(callees[n] for n in lifted)) if lifted else set()
    prototypes = [p for f in module.functions if f.name not in done and not f.name.startswith("llvm.")
                  and f.name in called and (p := _prototype(f)) is not None]
    prototypes += [f"{done[n].head};" for n in lifted]   # (they call each other in any order)
    used = {g: d for n in lifted for g, d in done[n].globals.items()}
    prototypes[:0] = [used[g] for g in sorted(used)]
    lines = [f"#include <{h}>" for h in sorted(headers)] + views.definitions() + prototypes
    text = "\n".join(lines) + ("\n\n" if lines else "") + "\n".join(definitions)
    residual = (_residual(module, [f for f in defined if f.name in done], names, sorted(used))
                if refused or used else None)
    return LiftedModule(text, lifted, {f.name: names[f.name] for f in defined if f.name in names},
                        {n: refused[n] for n in (f.name for f in defined) if n in refused}, residual)


def _prototype(f: Function) -> str | None:
    """A C prototype of ``f`` (pointers as ``void *``), or None where a type has no C spelling here."""
    if f.name in HEADER_FUNCTIONS:
        return None
    try:
        ret = scalar_ctype(f.return_type)
        params = ["void *" if t in ("ptr",) or t.endswith("*") else scalar_ctype(t) for _, t in f.params]
    except LiftRefused:
        return None
    return f"extern {ret} {f.name}({', '.join(params) or 'void'});"


def _residual(module: Module, moved: list[Function], names: dict[str, str], globals_: list[str]) -> str:
    """``module``'s text with each of ``moved`` declared instead of defined, and the globals the C
    uses visible to it (renamed where ``names`` says, without their internal linkage); calls of
    renamed functions in the platform's calling convention."""
    text = module.text
    for f in moved:
        new = names.get(f.name, f.name)
        declaration = f"declare {f.return_type} @{new}({', '.join(t for _, t in f.params)})"
        text = re.sub(rf"^define [^\n]*@{re.escape(f.name)}\(.*?^\}}\n", declaration + "\n", text,
                      count=1, flags=re.DOTALL | re.MULTILINE)
        if new != f.name:
            text = re.sub(rf"\b(call|invoke) (?:fastcc |coldcc |cc \d+ )?([^@\n]*)@{_symbol(f.name)}\(",
                          rf"\1 \2@{new}(", text)
            text = re.sub(rf"@{_symbol(f.name)}{_END}", f"@{new}", text)
    for g in globals_:
        new = names.get(g, g)
        if new != g:
            text = re.sub(rf"@{_symbol(g)}{_END}", f"@{new}", text)
            text = re.sub(rf"^(@{re.escape(new)} = )(?:internal |private )", r"\1", text, flags=re.MULTILINE)
    return text


_END = r"(?![-\w.$])"   # (where an LLVM name ends: @A is no prefix of @A.1)


def _symbol(name: str) -> str:
    """``name`` as LLVM writes it after ``@``, as a pattern (quoted where it has other characters)."""
    plain = re.fullmatch(r"[-\w.$]+", name) is not None
    return re.escape(name) if plain else re.escape(f'"{name}"')


def _c_identifier(name: str) -> str:
    text = re.sub(r"\W", "_", name)
    return text if re.match(r"[A-Za-z_]", text) else "g_" + text
