"""An LLVM function as structured C: counted loops as ``for`` loops, branches as ``if``/``else``,
memory through pointer parameters, local arrays and the module's globals as subscripts
(``p[i * n + j]``, ``A[i][j]``), so that the C front end lifts it like code a person wrote.

Values: a pure integer instruction (arithmetic, a compare, a cast, ``select``,
``getelementptr``) is written into the expressions that use it, one of the parameters computed
before the loops is named once at the start; a floating-point one is too, unless it is a math
call, used twice or computed outside the loops that use it, which get a local where LLVM
computes them; a load is written into the one statement that uses it where nothing between may
write memory, else a local; a phi is a variable set on every edge into its block (a loop's at
its entry and at the end of each iteration, several at once through temporaries, as phis are
parallel copies), or, stepping with the loop's counter, the counter's expression. A value of a
loop used after it (through the exit's phi) is a variable declared before the loop, unless it is
what a header phi takes on the back edge, which the phi's variable then holds. Integer
arithmetic without ``nsw`` wraps in LLVM, so it is written in unsigned C types; ``nsw``
arithmetic, ``sdiv`` and the signed compares in C's signed types.

What does not have this shape is refused with the reason (``LiftRefused``): the caller keeps the
function as LLVM IR.
"""
from __future__ import annotations

import re
import struct
from collections import Counter
from dataclasses import dataclass, field

import networkx as nx

from frontends.llvm.control import ControlFlow, CountedLoop, Loop, drop_zero_trip_guards
from frontends.llvm.layout import scalar_size
from frontends.llvm.module import Function, Instruction, Module, Value, type_at
from frontends.llvm.views import Member, pointer_rows, view_name
from s2s.errors import S2SError
from s2s.ir.expr import MATH_FUNCTIONS


MAX_COPIES = 8   # a block reached from several branches is written once for each, up to this


class LiftRefused(S2SError):
    """A function that this front end does not turn into C; the message says what stopped it."""


_INT = {"i1": "int", "i8": "signed char", "i16": "short", "i32": "int", "i64": "long long"}
_UINT = {"i1": "unsigned", "i8": "unsigned char", "i16": "unsigned short", "i32": "unsigned",
         "i64": "unsigned long long"}
_FLOAT = {"float": "float", "double": "double"}
_BINARY = {"add": "+", "sub": "-", "mul": "*", "and": "&", "or": "|", "xor": "^", "fadd": "+", "fsub": "-",
           "fmul": "*", "fdiv": "/"}
_CASTS = ("sext", "zext", "trunc", "sitofp", "uitofp", "fptosi", "fptoui", "fpext", "fptrunc", "ptrtoint")
_WEAK = ("linkonce_odr", "weak_odr", "linkonce", "weak")
_PURE = set(_BINARY) | set(_CASTS) | {"bitcast", "sdiv", "udiv", "srem", "urem", "shl", "lshr", "ashr", "frem", "fneg", "icmp",
                                      "fcmp", "select", "getelementptr", "freeze"}
# math functions that read nothing and change nothing, by their C name (and with f, for float)
_MATH = frozenset(MATH_FUNCTIONS)
# what the headers this front end includes declare (no prototype of them is written)
HEADER_FUNCTIONS = frozenset(f + suffix for f in MATH_FUNCTIONS for suffix in ("", "f")) | {"memset", "memcpy",
                                                                                             "memmove"}
_INTRINSIC_MATH = {"minnum": "fmin", "maxnum": "fmax", "fabs": "fabs", "sqrt": "sqrt", "exp": "exp", "exp2": "exp2",
                   "log": "log", "log2": "log2", "log10": "log10", "sin": "sin", "cos": "cos", "pow": "pow",
                   "floor": "floor", "ceil": "ceil", "round": "round", "trunc": "trunc", "fma": "fma",
                   "copysign": "copysign"}


@dataclass
class LiftedFunction:
    name: str
    text: str                 # its C definition
    headers: set[str] = field(default_factory=set)
    head: str = ""            # its declarator (a prototype with a semicolon after it)
    globals: dict[str, str] = field(default_factory=dict)   # LLVM name -> C declaration of each global it uses
    members: dict[str, dict[int, Member]] = field(default_factory=dict)   # struct views' members it reaches


@dataclass
class _Address:
    """Where a pointer points, in C: ``root`` subscripted by ``subscripts`` (the last one moves
    with pointer arithmetic), holding a value of the LLVM type ``pointed``. Inside an element of
    a struct (``struct`` set): ``root`` is the pointer to the elements, ``subscripts`` the element's
    one subscript, ``offset`` the byte offset in it, ``pointed`` the type there."""
    root: str
    subscripts: list[str]
    pointed: str
    struct: str | None = None
    offset: int = 0
    origin: str = ""   # the LLVM value the address starts from


def function_to_c(function: Function, module: Module, names: dict[str, str] | None = None,
                  rows: dict[str, int] | None = None) -> LiftedFunction:
    """``function`` as a C definition, or ``LiftRefused``; ``names``: the C names of functions
    and globals that C gives another name than LLVM (the module's internal ones, lifted.py);
    ``rows``: the module's struct types written as rows of pointers (``views.pointer_rows``)."""
    if rows is None:
        rows = pointer_rows(module.functions, module.structs)
    return _Writer(function, module, names or {}, rows).function()


class _Writer:
    def __init__(self, function: Function, module: Module, names: dict[str, str], rows: dict[str, int]):
        self.f = function
        self.module = module
        self.function_names = names
        self.cf = ControlFlow(function)
        if self.cf.problems:
            raise LiftRefused(f"{function.name}: {self.cf.problems[0]}")
        _forward_pointer_casts(function)
        if drop_zero_trip_guards(function, self.cf):
            self.cf = ControlFlow(function)
        self._reload_stored_values()
        self.insts: dict[str, Instruction] = {}
        self.defined_in: dict[str, str] = {}
        for b in function.blocks:
            for i in b.instructions:
                if i.name:
                    self.insts[i.name] = i
                    self.defined_in[i.name] = b.name
        self.params = {name: type_ for name, type_ in function.params}
        # the module's globals it reads or writes (their C names are taken first)
        every = [i for b in function.blocks for i in b.instructions]
        operands = [v for i in every for v in i.operands]
        operands += [c[1] for v in operands if v.is_constant and (c := _constant_gep(v.constant)) is not None]
        self.used_globals = sorted({v.name for v in operands if v.is_global and v.name in module.globals})
        for g in self.used_globals:
            if not re.fullmatch(r"[A-Za-z_]\w*", names.get(g, g)):
                raise LiftRefused(f"{function.name}: the global @{g} has no name C can spell")
        self.c_names: dict[str, str] = {}
        self.taken: set[str] = {names.get(g, g) for g in self.used_globals}
        for name, _ in function.params:
            self._name(name)
        # local arrays (alloca in the entry block), by name: their allocated type
        self.locals = {i.name: type_at(i.text.split("alloca", 1)[1].strip())
                       for i in function.blocks[0].instructions if i.opcode == "alloca" and i.name
                       and "," not in i.text.split("alloca", 1)[1].split("align")[0].strip(" ,")}
        self.structs = module.structs
        self.pointer_rows = rows
        self._slots: dict[tuple, list[str]] | None = None
        self.member_types: dict[str, dict[int, str]] = {}   # struct -> offset -> LLVM type of a member reached
        self.pointee = self._pointee_types()
        self.headers: set[str] = set()
        self.counted: dict[str, CountedLoop] = {}
        for header, loop in self.cf.loops.items():
            found = self.cf.counted(loop, self.defined_in)
            if isinstance(found, str):
                raise LiftRefused(f"{function.name}: the loop at {header} is not counted: {found}")
            exiting = {b for b in loop.blocks for s in self.cf.graph.successors(b) if s not in loop.blocks}
            if exiting != {loop.latch} or len(loop.exits) != 1:
                raise LiftRefused(f"{function.name}: the loop at {header} is left from inside its body")
            self.counted[header] = found
        # the instructions that read each value (a phi: its incoming values), once per operand
        self.users: dict[str, list[Instruction]] = {}
        for i in (i for b in function.blocks for i in b.instructions):
            for v in ([v for v, _ in i.incoming] if i.opcode == "phi" else i.operands):
                if v.name:
                    self.users.setdefault(v.name, []).append(i)
        self.use_counts = Counter({name: len(found) for name, found in self.users.items()})
        self.induced = self._induced()
        self.reloaded, self.dead = self._reloaded()
        # values of a loop that its exit's phis read: kept in variables declared before it
        self.live_out: dict[str, Loop] = {}
        self.back_value: dict[str, str] = {}   # value -> the header phi whose back-edge value it is
        for loop in self.cf.loops.values():
            for phi in self._phis(loop.header):
                for v, b in phi.incoming:
                    if (b == loop.latch and v.name and v.name != self.counted[loop.header].increment.name
                            and phi.name not in self.induced and phi.name not in self.reloaded):
                        self.back_value.setdefault(v.name, phi.name)
            for exit_ in loop.exits:
                for phi in self._phis(exit_):
                    for v, b in phi.incoming:
                        if b in loop.blocks and v.name and self.defined_in.get(v.name) in loop.blocks:
                            if self.back_value.get(v.name) not in {p.name for p in self._phis(loop.header)}:
                                self.live_out[v.name] = loop
        # LCSSA's phis of one value that a variable holds after the loop anyway: read as it
        self.exit_alias: dict[str, str] = {}
        for loop in self.cf.loops.values():
            for exit_ in loop.exits:
                for phi in self._phis(exit_):
                    (v, b), *more = phi.incoming
                    if more or b not in loop.blocks or not v.name or phi.name in self.live_out:
                        continue   # (one read after an outer loop too keeps its own variable)
                    if v.name in self.live_out and self.live_out[v.name] is loop:
                        self.exit_alias[phi.name] = self._out_name(v.name)
                    elif self.defined_in.get(self.back_value.get(v.name, "")) == loop.header:
                        self.exit_alias[phi.name] = self._name(self.back_value[v.name])
        for phi in self.exit_alias:   # (they read no value of their own)
            for v, _ in self.insts[phi].incoming:
                self.use_counts[v.name] -= 1
        self.stored_again = self._stored_again()
        self.one_user = self._one_user()
        self.same_load = self._repeated_loads()
        self.named = self._named_values()
        self.inlined_loads = self._loads_to_inline()
        self.block_sizes: set[str] = set()   # values only the byte counts of memset/memcpy loops read
        self.size_parts: set[str] = set()   # (filled by _elements: what a byte count was taken apart from)
        self._block_loops: dict[int, list[str] | None] = {}
        self.lines: list[str] = []
        self.depth = 1
        self.written: dict[str, int] = {}   # how many times each block was written (shared tails)
        self.same_values: dict[tuple[str, str], str] = {}   # (block, C declaration) -> the name that holds it
        self._ranges: dict[tuple[str, bool], tuple[int, int] | None] = {}

    def _reload_stored_values(self) -> None:
        """Uses of a computed number after a store of it read the element it was stored to, as
        the C did: LLVM keeps ``m = max(t[i][j], t[i][j-1])`` in a register from the statement
        that stores it to the next one that reads ``t[i][j]`` (nussinov's chain of updates), and
        the value so written into every later statement orders them by the loads it started
        from. Only where nothing may write memory between the store and the use, which the store
        reaches on every path (it dominates the use, in the same loop, not across its back edge);
        the load is put in just before the instruction that uses the value."""
        cf = self.cf
        forward = cf.graph.copy()
        forward.remove_edges_from([(loop.latch, h) for h, loop in cf.loops.items()])
        writes = {b.name: [k for k, i in enumerate(b.instructions) if self._writes_memory(i)]
                  for b in self.f.blocks if b.name in cf.graph}
        defined = {i.name: i for b in self.f.blocks for i in b.instructions if i.name}
        users: dict[str, list[tuple[str, Instruction]]] = {}
        entering: dict[str, list[tuple[str, Instruction]]] = {}   # value -> (block it comes from, phi)
        for b in self.f.blocks:
            for i in b.instructions:
                if i.opcode != "phi":
                    for v in i.operands:
                        if v.name:
                            users.setdefault(v.name, []).append((b.name, i))
                    continue
                for v, source in i.incoming:
                    loop = cf.loops.get(b.name)
                    if v.name and not (loop is not None and source == loop.latch):
                        entering.setdefault(v.name, []).append((source, i))
        count = 0
        for b in self.f.blocks:
            if b.name not in cf.graph:
                continue
            for k, store in enumerate(b.instructions):
                if store.opcode != "store":
                    continue
                value, pointer = store.operands
                made = defined.get(value.name or "")
                if made is None or value.type not in _INT and value.type not in _FLOAT or value.type == "i1" \
                        or not (made.opcode in _PURE or self._pure_call(made)) or made.opcode == "load":
                    continue
                uses = [(where, user, False) for where, user in users.get(value.name, [])]
                uses += [(where, phi, True) for where, phi in entering.get(value.name, [])]
                for where, user, on_edge in uses:
                    if user is store or cf.loop_of(where) is not cf.loop_of(b.name) \
                            or all(v.name != value.name for v in (
                                [v for v, source in user.incoming if source == where] if on_edge
                                else user.operands)):
                        continue
                    # (a phi reads its value at the end of the block it comes from)
                    at = len(self.f.block(where).instructions) - 1 if on_edge \
                        else self.f.block(where).instructions.index(user)
                    if where == b.name:
                        if at <= k or any(k < w < at for w in writes[where]):
                            continue
                    elif not cf.dominates(b.name, where) or any(w > k for w in writes[b.name]) \
                            or any(w < at for w in writes[where]) or any(
                                writes[x] for x in nx.descendants(forward, b.name) & nx.ancestors(forward, where)):
                        continue
                    count += 1
                    load = Instruction(f"{value.name}.stored{count}", "load", value.type, [pointer],
                                       f"%{value.name}.stored{count} = load {value.type}, ptr %{pointer.name}",
                                       element_type=value.type, tbaa=store.tbaa)
                    self.f.block(where).instructions.insert(at, load)
                    writes[where] = [w + (w >= at) for w in writes[where]]
                    if on_edge:
                        user.incoming = [(Value(value.type, load.name), source)
                                         if v.name == value.name and source == where else (v, source)
                                         for v, source in user.incoming]
                    else:
                        user.operands = [Value(value.type, load.name) if v.name == value.name else v
                                         for v in user.operands]

    def _reloaded(self) -> tuple[dict[str, Instruction], set[str]]:
        """Header phis that hold what the iteration before stored (LLVM's scalar promotion of a load
        of ``A[i][j-1]`` in seidel's sweep), read from memory again at the top of each iteration,
        as the C did: by phi, the store. Only where that reads the same value: a loop of one block
        that stores the phi's back value and then writes no memory, and whose preheader loaded
        the first value from the element the store would have written the iteration before (or
        from the one element it writes in every iteration: an update kept in a register across
        the loop), and then wrote no memory. Also the names of those first loads (no longer read)."""
        reloaded: dict[str, Instruction] = {}
        dead: set[str] = set()
        uses = self.use_counts
        for header, counted in self.counted.items():
            loop = self.cf.loops[header]
            if loop.latch != header or loop.preheader is None:
                continue
            body = self.f.block(header).instructions
            for phi in self._phis(header):
                if phi is counted.phi or phi.name in self.induced or len(phi.incoming) != 2:
                    continue
                back = next(v for v, b in phi.incoming if b == loop.latch)
                entry = next(v for v, b in phi.incoming if b != loop.latch)
                stores = [i for i in body if i.opcode == "store" and back.name and i.operands[0].name == back.name]
                first = self.insts.get(entry.name or "")
                if len(stores) != 1 or first is None or first.opcode != "load":
                    continue
                store = stores[0]
                if any(self._writes_memory(i) for i in body[body.index(store) + 1:]):
                    continue
                preheader = self.f.block(loop.preheader).instructions
                if first not in preheader or any(self._writes_memory(i)
                                                 for i in preheader[preheader.index(first) + 1:]):
                    continue
                invariant = store.operands[1] == first.operands[0] and \
                    self.defined_in.get(first.operands[0].name or "") not in loop.blocks
                if not invariant and (not counted.init.is_constant or not self._same_address(
                        store.operands[1], first.operands[0], counted, int(counted.init.constant) - counted.step)):
                    continue
                reloaded[phi.name] = store
                if uses.get(first.name, 0) == 1:
                    dead.add(first.name)
        return reloaded, dead

    def _same_address(self, stored: Value, loaded: Value, counted: CountedLoop, before: int) -> bool:
        """Whether ``loaded`` is the address ``stored`` has where the counter is ``before``: the
        same getelementptr, each index the same value, or the counter (plus a constant) where
        ``loaded`` has that constant."""
        a, b = self.insts.get(stored.name or ""), self.insts.get(loaded.name or "")
        if a is None or b is None or a.opcode != "getelementptr" or b.opcode != "getelementptr":
            return False
        if a.element_type != b.element_type or len(a.operands) != len(b.operands):
            return False
        if a.operands[0] != b.operands[0]:
            return False
        for x, y in zip(a.operands[1:], b.operands[1:]):
            if x == y:
                continue
            shift = self._counter_plus(x, counted)
            if shift is None or not y.is_constant or not re.fullmatch(r"-?\d+", y.constant or ""):
                return False
            if int(y.constant) != before + shift:
                return False
        return True

    def _counter_plus(self, v: Value, counted: CountedLoop) -> int | None:
        """c where ``v`` is the loop's counter plus the constant c (0: the counter itself)."""
        if v.name == counted.phi.name:
            return 0
        i = self.insts.get(v.name or "")
        if i is None or i.opcode != "add" or "nsw" not in i.flags:
            return None
        x, y = i.operands
        if x.name == counted.phi.name and y.is_constant:
            return int(y.constant)
        if y.name == counted.phi.name and x.is_constant:
            return int(x.constant)
        return None

    def _induced(self) -> dict[str, tuple[str, Value, int]]:
        """Header phis that step with the loop's counter (``p = c; ... p += k`` beside ``i += 1``,
        the trip count of a triangular inner loop that LLVM's induction variable pass makes):
        each is ``c + (i - init) / step * k``, written as that (an affine bound, not a variable
        written in the loop). By phi: (header, entry value, k / step)."""
        found: dict[str, tuple[str, Value, int]] = {}
        for header, counted in self.counted.items():
            loop = self.cf.loops[header]
            for phi in self._phis(header):
                if phi is counted.phi or len(phi.incoming) != 2:
                    continue
                back = next((v for v, b in phi.incoming if b == loop.latch), None)
                entry = next((v for v, b in phi.incoming if b != loop.latch), None)
                step_inst = self.insts.get(back.name or "") if back is not None else None
                if step_inst is None or step_inst.opcode != "add" or "nsw" not in step_inst.flags:
                    continue
                ops = step_inst.operands
                k = (int(ops[1].constant) if ops[0].name == phi.name and ops[1].is_constant else
                     int(ops[0].constant) if ops[1].name == phi.name and ops[0].is_constant else None)
                if k is None or k % counted.step or phi.type not in _INT or entry is None:
                    continue
                if entry.name and self.defined_in.get(entry.name) in loop.blocks:
                    continue
                found[phi.name] = (header, entry, k // counted.step)
        return found

    def _induced_value(self, name: str) -> str:
        header, entry, per_step = self.induced[name]
        counted = self.counted[header]
        var, init = self._name(counted.phi.name), self._expr(counted.init)
        moved = var if init in ("0", "0LL") else f"({var} - {init})"
        scaled = moved if per_step == 1 else f"{moved} * {per_step}"
        return f"({self._expr(entry)} + {scaled})"

    def _named_values(self) -> set[str]:
        """Pure floating-point values written once, as a local where LLVM computes them, rather
        than into each use: a math call (``expf`` may set errno, so the C compiler may not move
        or merge it), a value used twice, or one computed outside the loops that use it. Integer
        values (subscripts, bounds) stay in their uses, where the C front end reads them."""
        uses = self.use_counts
        named = set()
        for b in self.f.blocks:
            for i in b.instructions:
                if not i.name or i.type not in _FLOAT or i.opcode == "phi" or i.name in self.live_out:
                    continue
                if not (i.opcode in _PURE or self._pure_call(i)):
                    continue
                outside = self.cf.loop_of(b.name) is None and self.cf.loops
                math = i.opcode == "call" and self._math_name(i) != "fmuladd"
                if not math and not outside and i.name in self.stored_again:
                    continue
                if not outside and (math and uses.get(i.name, 0) == 1 or not math and i.name in self.one_user):
                    continue   # (one use, or one user twice, (a - b) * (a - b): written there, as C had it)
                if math or uses.get(i.name, 0) > 1 or outside:
                    named.add(i.name)
        return named

    def _one_user(self) -> set[str]:
        """Arithmetic on numbers whose every use is one instruction (``x * x``)."""
        return {i.name for b in self.f.blocks for i in b.instructions
                if i.name and i.type in _FLOAT and i.opcode in _FLOAT_ARITHMETIC
                and len({id(u) for u in self.users.get(i.name, [])}) == 1}

    def _stored_again(self) -> dict[str, Instruction]:
        """Values that several stores of one block store and nothing else reads, with no other
        write of memory between the first of them and the last (covariance's ``cov[i][j] =
        cov[j][i] = c``): the first stores the value, the others copy the element it wrote, as
        the C did, rather than a local that orders everything. By value: its first store."""
        found: dict[str, Instruction] = {}
        for b in self.f.blocks:
            stores: dict[str, list[int]] = {}
            for k, i in enumerate(b.instructions):
                if i.opcode == "store" and i.operands[0].name and i.operands[0].type in _FLOAT:
                    stores.setdefault(i.operands[0].name, []).append(k)
            for value, at in stores.items():
                if len(at) < 2 or self.use_counts.get(value, 0) != len(at) or value in self.live_out:
                    continue
                between = b.instructions[at[0]:at[-1] + 1]
                if all(not self._writes_memory(i) or i.opcode == "store" and i.operands[0].name == value
                       for i in between):
                    found[value] = b.instructions[at[0]]
        return found

    def _loads_to_inline(self) -> set[str]:
        """Loads written into the one statement that uses them (``A[i][j] = A[i][j] * b``, as a
        person writes it, rather than a temporary per load): where every use of the load, through
        pure instructions, ends in one statement of its own block, or in the phis of an edge
        leaving that block, and nothing between the load and there may write memory."""
        users: dict[str, list[tuple[Instruction | None, str]]] = {}
        for b in self.f.blocks:
            for i in b.instructions:
                if i.opcode == "phi":
                    for v, source in i.incoming:
                        if v.name:
                            users.setdefault(v.name, []).append((None, source))   # (at the end of source)
                else:
                    for v in i.operands:
                        if v.name:
                            users.setdefault(v.name, []).append((i, b.name))
        chosen: set[str] = set()
        for b in self.f.blocks:
            order = {id(i): k for k, i in enumerate(b.instructions)}
            for k, load in enumerate(b.instructions):
                if load.opcode == "phi" and load.name in self.reloaded and load.name not in self.live_out:
                    k = -1   # (read again at the top of the iteration: _reloaded)
                elif load.opcode != "load" or load.name in self.live_out or load.type == "ptr":
                    continue
                sinks: set[int] = set()
                todo, ok = [load.name], True
                while todo and ok:
                    value = todo.pop()
                    for user, where in users.get(value, []):
                        if user is not None and user.opcode == "store" and self.stored_again.get(value) not in (None, user):
                            continue   # (it copies the element the first store wrote)
                        if where != b.name:
                            ok = False
                        elif user is None:
                            sinks.add(len(b.instructions))
                        elif ((user.opcode in _PURE or self._pure_call(user)) and user.name not in self.live_out
                              and user.name not in self.named):
                            todo.append(user.name)
                        else:
                            sinks.add(order[id(user)])
                if not ok or len(sinks) != 1:
                    continue
                end = sinks.pop()
                if end <= k or any(self._writes_memory(i) for i in b.instructions[k + 1:end]):
                    continue
                chosen.add(load.name)
        return chosen

    def _reload_text(self, phi: Instruction) -> str:
        """The element a reloaded phi holds: where its loop's store wrote the iteration before."""
        counted = self.counted[self.defined_in[phi.name]]
        var = self._name(counted.phi.name)
        text = self._lvalue(self.reloaded[phi.name].operands[1], phi.type)
        return re.sub(rf"\b{re.escape(var)}\b", f"({var} - {counted.step})", text)

    def _writes_memory(self, i: Instruction) -> bool:
        return i.opcode == "store" or i.opcode == "call" and not self._pure_call(i) or i.opcode not in _READS_ONLY

    # ---- names and types --------------------------------------------------------------------------
    def _name(self, llvm_name: str) -> str:
        if llvm_name not in self.c_names:
            base = "v_" + re.sub(r"\W", "_", llvm_name).strip("_") if not re.fullmatch(r"[A-Za-z_]\w*", llvm_name) \
                else llvm_name
            name, k = base, 1
            while name in self.taken or name in _C_RESERVED:
                name, k = f"{base}_{k}", k + 1
            self.taken.add(name)
            self.c_names[llvm_name] = name
        return self.c_names[llvm_name]

    def _ctype(self, llvm_type: str, where: str) -> str:
        try:
            return scalar_ctype(llvm_type)
        except LiftRefused:
            raise LiftRefused(f"{self.f.name}: {where} has the type {llvm_type}, "
                              "which this front end does not write") from None

    def _pointee_types(self) -> dict[str, str]:
        """The type each pointer (parameter, local array, global, pointer loaded from memory)
        points to: what its getelementptrs index (a scalar; an array type, C's ``double A[][M]``;
        a struct, the outermost where they index it as a struct and its first members), or what
        is loaded or stored through it; ``void`` for a loaded pointer nothing reads through."""
        loaded = sorted({i.name for b in self.f.blocks for i in b.instructions
                         if i.opcode == "load" and i.type == "ptr" and i.name})
        bases = set(self.params) | set(self.locals) | set(self.used_globals) | set(loaded)
        indexed: dict[str, set[str]] = {}
        accessed: dict[str, set[str]] = {}
        for i in (i for b in self.f.blocks for i in b.instructions):
            if i.opcode == "getelementptr" and i.operands[0].name in bases:
                indexed.setdefault(i.operands[0].name, set()).add(i.element_type or "")
            elif i.opcode == "load" and i.operands[0].name in bases:
                accessed.setdefault(i.operands[0].name, set()).add(i.type)
            elif i.opcode == "store" and i.operands[1].name in bases:
                accessed.setdefault(i.operands[1].name, set()).add(i.operands[0].type)
        out = {}
        for name, type_ in [*self.f.params, *((n, "ptr") for n in [*self.locals, *self.used_globals, *loaded])]:
            if type_ != "ptr" and not type_.endswith("*"):
                continue
            structs = {k for k in indexed.get(name, set()) if k in self.structs}
            if structs:
                outer = [s for s in structs if structs <= set(self._first_members(s))]
                if not outer or name in self.locals or name in self.used_globals:
                    raise LiftRefused(f"{self.f.name}: the pointer {name} is used as {' and '.join(sorted(structs))}")
                out[name] = outer[0]
                continue
            kinds = indexed.get(name, set()) or accessed.get(name, set())
            if len(kinds) > 1:
                raise LiftRefused(f"{self.f.name}: the pointer {name} is used as {' and '.join(sorted(kinds))}")
            default = ("void" if name in loaded else
                       self.module.globals.get(name, "double") if name in self.used_globals else "double")
            kind = next(iter(kinds), default)
            element, _dims = _array_shape(kind)
            if any(_array_shape(k)[0] != element for k in accessed.get(name, set())):
                raise LiftRefused(f"{self.f.name}: the pointer {name} is read as another type than {kind}")
            if element != "ptr" or _dims:
                self._ctype(element, f"the data of {name}")
            out[name] = kind
        return out

    def _first_members(self, struct: str) -> list[str]:
        """``struct``, its first member's type, that one's first member's, ...: the types an
        address of an element of ``struct`` also points to."""
        chain = [struct]
        while chain[-1] in self.structs and self.structs[chain[-1]].members:
            chain.append(self.structs[chain[-1]].members[0][1])
        return chain

    def _slot_loads(self) -> dict[tuple, list[str]]:
        """The pointers loaded from each place that holds pointers: ("elements", p) for the
        elements of a pointer p to pointers, ("member", struct, offset) for a struct member."""
        if self._slots is None:
            self._slots = {}
            for i in (i for b in self.f.blocks for i in b.instructions):
                if i.opcode == "load" and i.type == "ptr" and i.name:
                    a = self._base(i.operands[0])
                    if a.struct in self.pointer_rows:
                        key: tuple = ("row", a.struct)
                    elif a.struct is not None:
                        a = self._descend(a, "ptr")
                        key = ("member", a.struct, a.offset)
                    else:
                        key = ("elements", a.origin)
                    self._slots.setdefault(key, []).append(i.name)
        return self._slots

    def _declare(self, kind: str, declarator: str, origin: str) -> str:
        """The C declaration of ``declarator`` (``*x``, ``**x``, ``*m8``) where ``*declarator`` is
        of the LLVM type ``kind``; ``origin`` the pointer whose pointee ``kind`` is (its loaded
        pointers tell what a pointer to pointers points to)."""
        element, dims = _array_shape(kind)
        if dims:
            if element == "ptr" or element in self.structs:
                raise LiftRefused(f"{self.f.name}: arrays of {element} in {kind}")
            return f"{self._ctype(element, origin)} ({declarator}){''.join(f'[{d}]' for d in dims)}"
        if kind in self.pointer_rows:   # (a row of pointers: each read as the pointers read from it)
            return self._loaded_pointer(("row", kind), declarator)
        if kind in self.structs:
            return f"struct {view_name(kind)} {declarator}"
        if kind == "ptr":
            return self._loaded_pointer(("elements", origin), declarator)
        return f"{self._ctype(kind, origin)} {declarator}"

    def _loaded_pointer(self, slot: tuple, declarator: str) -> str:
        """The declaration of ``declarator`` as a pointer of the type the pointers loaded from
        ``slot`` are read as (``void *`` where nothing reads through them)."""
        texts = {self._declare(self.pointee[load], "*" + declarator, load) for load in self._slot_loads().get(slot, [])}
        known = {t for t in texts if t != f"void *{declarator}"}
        if len(known) > 1:
            raise LiftRefused(f"{self.f.name}: pointers read from one place as {' and '.join(sorted(known))}")
        return known.pop() if known else f"void *{declarator}"

    def _declare_locals(self) -> None:
        """A local array as C declares one: ``double z[2000]`` where it is indexed by elements,
        ``double z[1][2000]`` where by the whole array (its first subscript then 0)."""
        for name, allocated in self.locals.items():
            self._emit(self._array_declaration(name, allocated))

    def _array_declaration(self, name: str, allocated: str, extern: bool = False) -> str:
        """The C declaration of a local or global object of LLVM type ``allocated``, shaped as the
        code indexes it (its first subscript then runs over the whole object)."""
        element, dims = _array_shape(allocated)
        indexed, inner = _array_shape(self.pointee[name])
        if indexed != element:
            raise LiftRefused(f"{self.f.name}: {name} indexed as {self.pointee[name]}")
        count = 1
        for d in dims[:len(dims) - len(inner)]:
            count *= d
        shape = "".join(f"[{d}]" for d in (count, *inner))
        c_name = self.function_names.get(name, name) if extern else self._name(name)
        return f"{'extern ' if extern else ''}{self._ctype(element, name)} {c_name}{shape};"

    def _parameter(self, name: str) -> str:
        """A pointer parameter's C declaration: ``double *x``, ``double A[][M]``, ``struct s2s_S *p``,
        ``double **rows``; ``restrict`` where LLVM marks it ``noalias`` (what clang makes of C's
        ``restrict``, and the same promise)."""
        kind = self.pointee[name]
        element, dims = _array_shape(kind)
        restrict = "restrict " if name in self.f.noalias else ""
        if dims and element != "ptr" and element not in self.structs:
            return (f"{self._ctype(element, name)} {self._name(name)}[{restrict.strip()}]"
                    f"{''.join(f'[{d}]' for d in dims)}")
        return self._declare(kind, f"*{restrict}{self._name(name)}", name)

    def _phis(self, block: str) -> list[Instruction]:
        return [i for i in self.f.block(block).instructions if i.opcode == "phi"]

    # ---- the function -----------------------------------------------------------------------------
    def function(self) -> LiftedFunction:
        ret = self._ctype(self.f.return_type, "its result")
        self._declare_locals()
        self._declare_phis(None)
        self.block_sizes = self._unread_sizes()
        self._hoist()
        self._block_loops.clear()   # (their texts again, with the names the hoisted values took)
        self.loaded_first = self._invariant_pointer_loads()
        for name in self.loaded_first:
            load = self.insts[name]
            self._emit(f"{self._declare(self.pointee[name], '*' + self._name(name), name)} = "
                       f"{self._lvalue(load.operands[0], 'ptr')};")
        self._region(self.cf.entry, None, None)
        body = "\n".join(self.lines)
        params = []
        for name, type_ in self.f.params:
            if name in self.pointee:
                params.append(self._parameter(name))
            else:
                params.append(f"{self._ctype(type_, f'the parameter {name}')} {self._name(name)}")
        # (one definition per program where the module's is one of several alike: C++'s
        # templates and inline functions, linkonce_odr in every file that uses them)
        weak = "__attribute__((weak)) " if self.f.linkage in _WEAK else ""
        head = f"{weak}{ret} {self.function_names.get(self.f.name, self.f.name)}({', '.join(params) or 'void'})"
        return LiftedFunction(self.f.name, f"{head}\n{{\n{body}\n}}\n", self.headers, head,
                              {g: self._array_declaration(g, self.module.globals[g], extern=True)
                               for g in self.used_globals}, self._members())

    def _members(self) -> dict[str, dict[int, Member]]:
        out: dict[str, dict[int, Member]] = {}
        for struct, found in self.member_types.items():
            for offset, type_ in found.items():
                name = f"m{offset}"
                element, dims = _array_shape(type_)
                size = scalar_size(element)
                if size is None or element == "ptr" and dims:
                    raise LiftRefused(f"{self.f.name}: a member of type {type_} in {struct}")
                for d in dims:
                    size *= d
                if type_ == "ptr":
                    declaration = self._loaded_pointer(("member", struct, offset), name)
                else:
                    declaration = f"{self._ctype(element, name)} {name}{''.join(f'[{d}]' for d in dims)}"
                out.setdefault(struct, {})[offset] = Member(offset, size, declaration,
                                                           declaration == f"void *{name}")
        return out

    def _emit(self, line: str) -> None:
        self.lines.append("  " * self.depth + line)

    def _declare_phis(self, loop: Loop | None) -> None:
        """Declare the phis of the blocks directly in ``loop`` (None: the function) that are no
        header's, and the values kept past the loops directly inside it."""
        for b in self.f.blocks:
            if b.name not in self.cf.graph or self.cf.loop_of(b.name) is not loop or b.name in self.cf.loops:
                continue
            for phi in self._phis(b.name):
                if phi.name not in self.exit_alias:
                    self._emit(f"{self._ctype(phi.type, phi.name)} {self._name(phi.name)};")
        for value, inner in self.live_out.items():
            if inner.parent is loop:
                i = self.insts[value]
                self._emit(f"{self._ctype(i.type, value)} {self._out_name(value)};")

    def _out_name(self, value: str) -> str:
        """The variable that holds a value of a loop after it: the value's own, but for a phi,
        whose own variable moves on to the next iteration's value (or lives in the for header)."""
        return self._name(value + ".out") if self.insts[value].opcode == "phi" else self._name(value)

    def _region(self, block: str | None, stop: str | None, loop: Loop | None) -> None:
        """Write the blocks from ``block`` until ``stop`` (inside ``loop``: until its latch's end)."""
        while block is not None and block != stop:
            here = self.cf.loops.get(block)
            if here is not None and here is not loop:
                self._loop(here)
                block = here.exits[0]
                continue
            b = self.f.block(block)
            self.written[block] = self.written.get(block, 0) + 1
            if self.written[block] > MAX_COPIES:
                raise LiftRefused(f"{self.f.name}: {block} would be written more than {MAX_COPIES} times "
                                  "(control flow that is no nest of ifs)")
            for i in b.instructions[:-1]:
                self._statement(i, loop)
            term = b.terminator
            if loop is not None and block == loop.latch:
                self._edge_copies(block, loop.header, loop)
                return
            if term.opcode == "ret":
                self._emit(f"return {self._expr(term.operands[0])};" if term.operands else "return;")
                return
            if term.opcode == "unreachable":
                self._emit("__builtin_unreachable();")
                return
            if term.opcode != "br":
                raise LiftRefused(f"{self.f.name}: {term.opcode} in {block}")
            if len(term.targets) == 1:
                target = term.targets[0]
                self._edge_copies(block, target, loop)
                block = target
                continue
            join = self.cf.join(block)
            if loop is not None and join is not None and join not in loop.blocks:
                raise LiftRefused(f"{self.f.name}: a branch in {block} leaves its loop")
            then, other = term.targets
            self._emit(f"if ({self._expr(term.operands[0])}) {{")
            self._branch(block, then, join, loop)
            if other != join or self._phis(other):
                self._emit("} else {")
                self._branch(block, other, join, loop)
            self._emit("}")
            block = join
        return

    def _branch(self, source: str, target: str, join: str | None, loop: Loop | None) -> None:
        self.depth += 1
        self._edge_copies(source, target, loop)
        if target != join:
            self._region(target, join, loop)
        self.depth -= 1

    def _loop(self, loop: Loop) -> None:
        counted = self.counted[loop.header]
        var = self._name(counted.phi.name)
        ctype = self._ctype(counted.phi.type, "an induction variable")
        entry = loop.preheader
        for phi in self._phis(loop.header):
            if phi is counted.phi or phi.name in self.induced or phi.name in self.reloaded:
                continue
            value = next(v for v, b in phi.incoming if b == entry)
            self._emit(f"{self._ctype(phi.type, phi.name)} {self._name(phi.name)} = {self._expr(value)};")
        init = self._expr(counted.init)
        test = self._loop_test(counted, var, init)
        step = counted.step
        increment = f"{var}++" if step == 1 else f"{var}--" if step == -1 else f"{var} += {step}"
        self._emit(f"for ({ctype} {var} = {init}; {test}; {increment}) {{")
        self.depth += 1
        self._declare_phis(loop)
        for phi in self._phis(loop.header):
            if phi.name in self.reloaded and phi.name not in self.inlined_loads:
                self._emit(f"{self._ctype(phi.type, phi.name)} {self._name(phi.name)} = {self._reload_text(phi)};")
        self._region(loop.header, None, loop)
        self.depth -= 1
        self._emit("}")
        self._edge_copies(loop.latch, loop.exits[0], loop.parent, leaving=loop)

    def _loop_test(self, counted: CountedLoop, var: str, init: str) -> str:
        """The C test of a rotated loop's counter ``var``: true for its first value, whatever the
        latch's compare says of it, and then what that compare says (of ``var``, or where it tests
        the value before the step, of ``var - step``)."""
        step, bound = counted.step, self._expr(counted.bound)
        u = _UINT[counted.phi.type]
        if counted.test == "!=":
            if counted.bound_offset:   # (wrapping as the counter would: 0 - 1 is the last value)
                limits = self._range(counted.bound.name or "") if not counted.bound.is_constant else \
                    _constant_range(counted.bound)
                if limits is not None and _fits_in((limits[0] + counted.bound_offset,
                                                    limits[1] + counted.bound_offset), counted.phi.type):
                    bound = f"({bound} + {counted.bound_offset})"   # (no wrap to write)
                else:
                    bound = f"({_INT[counted.phi.type]})(({u}){bound} + ({u}){counted.bound_offset})"
            return f"{var} != {bound}"
        wraps_not = "nuw" if counted.unsigned else "nsw"
        if counted.bound_offset and not counted.unsigned and "nsw" in counted.increment.flags:
            # (a test of the value before the step, var - step > b, is var > b + step: no wrap)
            bound = f"({bound} + {step})"
        if (counted.bound_offset == 0 or not counted.unsigned and "nsw" in counted.increment.flags) \
                and wraps_not in counted.increment.flags:
            # (an ordering of the next value, which does not wrap: a bound that lets the first
            # iteration by, max(b, init + step) upward, is the same test)
            first = f"({init} + {step})" if counted.test in ("<", ">") else init
            pick = ">" if counted.test in ("<", "<=") else "<"
            if counted.unsigned:
                return f"({u}){var} {counted.test} (({u}){bound} {pick} ({u}){first} ? ({u}){bound} : ({u}){first})"
            return f"{var} {counted.test} ({bound} {pick} {first} ? {bound} : {first})"
        last = _last_of_constant_walk(counted)
        if last is not None:
            return f"{var} {'>=' if step < 0 else '<='} {last}"
        tested = f"({var} - {step})" if counted.bound_offset else var
        if counted.unsigned:
            tested, bound = f"({u}){tested}", f"({u}){bound}"
        return f"{var} == {init} || {tested} {counted.test} {bound}"

    def _edge_copies(self, source: str, target: str, loop: Loop | None, leaving: Loop | None = None) -> None:
        """The phis of ``target`` set as the edge from ``source`` sets them (all at once)."""
        if target in self.cf.loops and source == self.cf.loops[target].preheader:
            return   # (a loop sets its phis' first values itself: _loop)
        copies = []
        counted = self.counted.get(target)
        for phi in self._phis(target):
            if counted is not None and (phi is counted.phi or phi.name in self.induced or phi.name in self.reloaded):
                continue
            if phi.name in self.exit_alias:
                continue
            value = next(v for v, b in phi.incoming if b == source)
            if leaving is not None and value.name in self.live_out:
                copies.append((phi, self._out_name(value.name)))
            elif leaving is not None and value.name in self.back_value:
                copies.append((phi, self._name(self.back_value[value.name])))
            else:
                copies.append((phi, self._expr(value)))
        if len(copies) == 1:
            phi, text = copies[0]
            self._emit(f"{self._name(phi.name)} = {text};")
        elif copies:
            self._emit("{")
            temps = []
            for phi, text in copies:
                temp = self._name(phi.name + ".next")
                temps.append((phi, temp))
                self._emit(f"  {self._ctype(phi.type, phi.name)} {temp} = {text};")
            for phi, temp in temps:
                self._emit(f"  {self._name(phi.name)} = {temp};")
            self._emit("}")

    # ---- statements and expressions ---------------------------------------------------------------
    def _statement(self, i: Instruction, loop: Loop | None) -> None:
        if i.name in self.hoisted or i.name in self.block_sizes:
            return
        if self._named_outside_loops(i):
            # (a value computed before the loops, a size such as (long long)n: a name the
            # subscripts inside them can use as a parameter; one name for the same value in a
            # block, as clang computes (long long)n once per use)
            text = f"const {self._ctype(i.type, i.name)} = {self._value_of(i)}"
            key = (self.defined_in[i.name], text)
            if key in self.same_values:
                self.c_names[i.name] = self.same_values[key]
                return
            self.same_values[key] = self._name(i.name)
            self._emit(f"const {self._ctype(i.type, i.name)} {self._name(i.name)} = {self._value_of(i)};")
            return
        if i.name in self.named:
            self._emit(f"{self._ctype(i.type, i.name)} {self._name(i.name)} = {self._value_of(i)};")
            return
        if i.opcode == "phi" or (i.opcode in _PURE and i.name) or self._pure_call(i):
            if i.name in self.live_out:
                self._emit(f"{self._out_name(i.name)} = {self._value_of(i)};")
            return
        if i.opcode == "alloca" and i.name in self.locals or i.opcode == "call" and (i.callee or "").startswith(
                _HINTS):
            return   # (declared at the start; what only tells LLVM's optimizer something)
        if i.opcode == "store":
            value, pointer = i.operands
            if value.type == "ptr":
                raise LiftRefused(f"{self.f.name}: a pointer stored to memory ({i.text[:60]})")
            first = self.stored_again.get(value.name or "")
            if first is not None and first is not i:
                self._emit(f"{self._lvalue(pointer, value.type)} = {self._lvalue(first.operands[1], value.type)};")
                return
            self._emit(f"{self._lvalue(pointer, value.type)} = {self._expr(value)};")
            return
        if i.opcode == "load":
            if i.name in self.inlined_loads or i.name in self.dead or i.name in self.loaded_first \
                    or i.name in self.same_load:
                return
            text = self._lvalue(i.operands[0], i.type)
            if i.name in self.live_out:
                self._emit(f"{self._name(i.name)} = {text};")
            elif i.type == "ptr":
                self._emit(f"{self._declare(self.pointee[i.name], '*' + self._name(i.name), i.name)} = {text};")
            elif i.type in _INT and loop is None:   # (a size read from memory: a parameter to the loops after it)
                self._emit(f"const {self._ctype(i.type, i.name)} {self._name(i.name)} = {text};")
            else:
                self._emit(f"{self._ctype(i.type, i.name)} {self._name(i.name)} = {text};")
            return
        if i.opcode == "call":
            loop_text = self._block_loop(i)
            if loop_text is not None:
                for line in loop_text:
                    self._emit(line)
                return
            text = self._call(i)
            if i.type == "void" or not i.name:
                self._emit(f"{text};")
            elif i.name in self.live_out:
                self._emit(f"{self._name(i.name)} = {text};")
            else:
                self._emit(f"{self._ctype(i.type, i.name)} {self._name(i.name)} = {text};")
            return
        raise LiftRefused(f"{self.f.name}: {i.opcode} ({i.text[:60]})")

    def _block_loop(self, i: Instruction) -> list[str] | None:
        """``memset(p, 0, n * sizeof *p)`` and ``memcpy(p, q, n * sizeof *p)`` of numbers as the
        loops clang made them of (its loop idioms: a zeroed row, a copied vector), so that the C
        front end sees the elements they write: None where the call is not one of those."""
        if id(i) not in self._block_loops:
            self._block_loops[id(i)] = self._loop_of_block_call(i)
        return self._block_loops[id(i)]

    def _loop_of_block_call(self, i: Instruction) -> list[str] | None:
        callee = i.callee or ""
        kind = callee.split(".")[1] if callee.startswith("llvm.") else ""
        if kind not in ("memset", "memcpy") or len(i.operands) < 3:
            return None
        if kind == "memset" and not (i.operands[1].is_constant and i.operands[1].constant == "0"):
            return None
        try:
            target = self._element_run(i.operands[0])
            source = self._element_run(i.operands[1]) if kind == "memcpy" else None
        except LiftRefused:
            return None
        if target is None or kind == "memcpy" and (source is None or source[2] != target[2]):
            return None
        count = self._elements(i.operands[2], scalar_size(target[2]) or 0)
        if count is None:
            return None
        var = self._name(f"{i.name or 'block'}.{kind}.k")
        def at(root: str, subscripts: list[str]) -> str:
            last = var if subscripts[-1] in _ZERO else f"{subscripts[-1]} + {var}"
            return f"{root}{''.join(f'[{x}]' for x in subscripts[:-1])}[{last}]"

        value = "0" if source is None else at(source[0], source[1])
        cell = at(target[0], target[1])
        return [f"for (long long {var} = 0; {var} < {count}; {var}++) {{", f"  {cell} = {value};", "}"]

    def _unread_sizes(self) -> set[str]:
        """The integer values that only the byte counts of the memset and memcpy calls written
        as loops read (``n * 384``): not written at all (an unused local fails -Werror builds)."""
        gone = [i for b in self.f.blocks for i in b.instructions if i.opcode == "call" and self._block_loop(i)]
        unread: set[str] = set()
        changed = True
        while changed:
            changed = False
            for name in self.size_parts - unread:
                if all(u in gone or u.name in unread for u in self.users.get(name, [])):
                    unread.add(name)
                    changed = True
        return unread

    def _element_run(self, pointer: Value) -> tuple[str, list[str], str] | None:
        """(root, subscripts, element type) of the numbers from ``pointer`` on, the last subscript
        the one they run along: an array of numbers (not a struct's member; in an array type, only
        one of a single row, which a run cannot leave without leaving the object)."""
        a = self._base(pointer)
        if a.struct is not None or not a.subscripts:
            return None
        element, dims = _array_shape(a.pointed)
        subscripts = a.subscripts
        if dims:   # (from the start of a local or global of one row: the run stays in it)
            allocated = self.locals.get(a.origin) or self.module.globals.get(a.origin, "")
            _, whole = _array_shape(allocated)
            cells = 1
            for d in whole:
                cells *= d
            if cells != dims[-1] or any(x not in _ZERO for x in subscripts):
                return None
            subscripts = [*subscripts, *("0" for _ in dims)]
        if element not in _INT and element not in _FLOAT:
            return None
        return a.root, subscripts, element

    def _elements(self, size: Value, element: int) -> str | None:
        """``size`` bytes as a count of ``element``-byte numbers, where LLVM's expression of it is
        one (a constant multiple, ``n << 3``, ``(n << 3) + 8``); None otherwise."""
        if element <= 0:
            return None
        if size.is_constant:
            if not re.fullmatch(r"\d+", size.constant or "") or int(size.constant) % element:
                return None
            return f"{int(size.constant) // element}LL"
        i = self.insts.get(size.name or "")
        if i is None or i.type != "i64":
            return None
        self.size_parts.add(i.name)
        a, b = (i.operands + [None, None])[:2]
        if i.opcode == "shl" and "nuw" in i.flags and b is not None and b.is_constant:
            factor = 1 << int(b.constant)
            return f"({self._expr(a)} * {factor // element}LL)" if factor % element == 0 else None
        if i.opcode == "mul" and "nuw" in i.flags and b is not None and b.is_constant:
            factor = int(b.constant)
            return f"({self._expr(a)} * {factor // element}LL)" if factor > 0 and factor % element == 0 else None
        if i.opcode == "add" and "nuw" in i.flags and b is not None:
            left, right = self._elements(a, element), self._elements(b, element)
            return None if left is None or right is None else f"({left} + {right})"
        if i.opcode == "zext":
            return self._elements(a, element)
        return None

    def _hoist(self) -> None:
        """Values of parameters computed outside every loop (sizes such as ``(long long)n``),
        named once at the start, so that the guards and loops after them read one name; not
        divisions, which may trap where the guard would have stopped them."""
        self.hoisted: set[str] = set()
        ready = set(self.params)
        pending = [i for b in self.f.blocks if b.name in self.cf.graph for i in b.instructions
                   if (self._named_outside_loops(i) or self._float_of_parameters(i)) and i.opcode not in _TRAPS
                   and i.name not in self.block_sizes]
        seen: dict[str, str] = {}
        progress = True
        while pending and progress:
            progress = False
            for i in list(pending):
                if all(v.is_constant or v.name in ready for v in i.operands):
                    text = f"{self._ctype(i.type, i.name)} = {self._value_of(i)}"
                    if text in seen:   # (clang computes (long long)n once per loop: one name for all)
                        self.c_names[i.name] = seen[text]
                    else:
                        seen[text] = self._name(i.name)
                        self._emit(f"const {self._ctype(i.type, i.name)} {self._name(i.name)} = {self._value_of(i)};")
                    self.hoisted.add(i.name)
                    ready.add(i.name)
                    pending.remove(i)
                    progress = True

    def _repeated_loads(self) -> dict[str, str]:
        """Loads of a number through a pointer parameter (at a constant place) that read again
        what a load of the entry block read (a Fortran dummy argument ``n``, read in every
        iteration), by load: that first load. Only where nothing in the function can write it:
        no store through that parameter, no call but to math functions, and every store of a
        type that may not reach it (clang's ``!tbaa``), or a Fortran procedure's (a dummy that
        is written is reached through no other name)."""
        every = [i for b in self.f.blocks if b.name in self.cf.graph for i in b.instructions]
        if not self._calls_only_math(every):
            return {}
        place = self._constant_place

        written = {p[0] for i in every if i.opcode == "store" and (p := self._root_param(i.operands[1])) is not None}
        first: dict[tuple, str] = {}
        for i in self.f.blocks[0].instructions:
            if i.opcode == "load" and i.type in _INT and (at := place(i.operands[0])) is not None:
                first.setdefault((at, i.type), i.name)
        out = {}
        for i in every:
            if i.opcode != "load" or i.type not in _INT or (at := place(i.operands[0])) is None:
                continue
            original = first.get((at, i.type))
            if original is None or original == i.name or at[0] in written:
                continue
            if not self.module.from_fortran and not all(
                    s.opcode != "store" or s.tbaa and i.tbaa and s.tbaa[0] not in i.tbaa and i.tbaa[0] not in s.tbaa
                    for s in every):
                continue
            out[i.name] = original
        return out

    def _root_param(self, pointer: Value) -> str | None:
        """The parameter an address is computed from (through getelementptrs), if one."""
        while pointer.name not in self.params:
            i = self.insts.get(pointer.name or "")
            if i is None or i.opcode != "getelementptr":
                return None
            pointer = i.operands[0]
        return pointer.name

    def _invariant_pointer_loads(self) -> list[str]:
        """Pointers loaded from a struct member of a parameter that LLVM says may be read
        (``dereferenceable``), read once at the start rather than where LLVM reads them (inside
        a loop, behind a guard: a ``std::vector``'s data in each time step), where nothing in
        the function can change them under the language's aliasing rule as clang recorded it:
        every store a typed access (``!tbaa``) of a type that is no pointer, no call but to
        math functions. So the loop around them can be one SCoP."""
        every = [i for b in self.f.blocks if b.name in self.cf.graph for i in b.instructions]
        if not self._calls_only_math(every) or any(
                i.opcode == "store" and (not i.tbaa or _may_be_pointer(i.tbaa[0])) for i in every):
            return []
        entry = set(i.name for i in self.f.blocks[0].instructions if i.name)
        chosen = []
        for i in every:
            if i.opcode != "load" or i.type != "ptr" or i.name in entry or i.name in self.live_out:
                continue
            try:
                a = self._base(i.operands[0])
            except LiftRefused:
                continue
            readable = self.f.dereferenceable.get(a.origin, 0)
            if (a.struct is not None and a.origin in self.params and a.subscripts[0] in _ZERO
                    and a.offset + 8 <= readable and self._constant_place(i.operands[0]) is not None):
                chosen.append(i.name)
        return chosen

    def _constant_place(self, pointer: Value) -> tuple | None:
        """(parameter, path) where ``pointer`` is a parameter or getelementptrs of constant
        indices from one (the same place in every iteration), else None."""
        path = []
        while pointer.name not in self.params:
            i = self.insts.get(pointer.name or "")
            if i is None or i.opcode != "getelementptr" or not all(v.is_constant for v in i.operands[1:]):
                return None
            path.append((i.element_type, tuple(v.constant for v in i.operands[1:])))
            pointer = i.operands[0]
        return pointer.name, tuple(path)

    def _calls_only_math(self, instructions: list[Instruction]) -> bool:
        """Whether the only calls among ``instructions`` are to math functions and LLVM's hints."""
        return not any(i.opcode == "call" and not self._pure_call(i) and not (i.callee or "").startswith(_HINTS)
                       for i in instructions)

    def _float_of_parameters(self, i: Instruction) -> bool:
        """A floating-point value LLVM computes outside every loop by arithmetic (``float_n -
        1.0``, hoisted from the loop that divides by it): named at the start with the sizes, a
        parameter to the loop nests, rather than a declaration between them that splits a SCoP."""
        return (bool(i.name) and i.type in _FLOAT and i.opcode in _FLOAT_ARITHMETIC and i.name in self.named
                and self.cf.loop_of(self.defined_in[i.name]) is None and i.name not in self.live_out)

    def _named_outside_loops(self, i: Instruction) -> bool:
        pure = i.opcode in _PURE or i.opcode == "call" and self._math_name(i) in ("smax", "smin", "umax", "umin")
        return (bool(i.name) and pure and i.opcode != "getelementptr" and i.type in _INT
                and i.type != "i1"   # (a guard's compare stays in its if: an affine condition)
                and self.cf.loop_of(self.defined_in[i.name]) is None and i.name not in self.live_out)

    def _pure_call(self, i: Instruction) -> bool:
        return i.opcode == "call" and self._math_name(i) is not None

    def _math_name(self, i: Instruction) -> str | None:
        callee = i.callee or ""
        if callee.startswith("llvm."):
            base = callee.split(".")[1]
            if base == "fmuladd":
                return "fmuladd"
            if base in ("smax", "smin", "umax", "umin", "abs"):
                return base
            name = _INTRINSIC_MATH.get(base)
            return None if name is None else name + ("f" if callee.endswith(".f32") else "")
        stem = callee[:-1] if callee.endswith("f") and callee[:-1] in _MATH else callee
        return callee if stem in _MATH else None

    def _value_of(self, i: Instruction) -> str:
        """The C expression of a pure instruction's value."""
        ops = i.operands
        op = i.opcode
        if op == "phi":
            if i.name in self.exit_alias:
                return self.exit_alias[i.name]
            return self._induced_value(i.name) if i.name in self.induced else self._name(i.name)
        if op == "xor" and i.type in _INT and i.type != "i1" and ops[1].is_constant and ops[1].constant == "-1":
            return f"({self._constant_minus_one(i.type)} - {self._expr(ops[0])})"   # (~x, an affine -1 - x)
        if op in _BINARY:
            a, b = self._expr(ops[0]), self._expr(ops[1])
            if op in ("add", "sub", "mul") and "nsw" not in i.flags and not self._fits(i):
                u = _UINT[i.type]
                return f"({_INT[i.type]})(({u}){a} {_BINARY[op]} ({u}){b})"
            return f"({a} {_BINARY[op]} {b})"
        if op in ("sdiv", "srem"):
            return f"({self._expr(ops[0])} {'/' if op == 'sdiv' else '%'} {self._expr(ops[1])})"
        if op in ("udiv", "urem", "lshr"):
            u = _UINT[i.type]
            sym = {"udiv": "/", "urem": "%", "lshr": ">>"}[op]
            return f"({_INT[i.type]})(({u}){self._expr(ops[0])} {sym} ({u}){self._expr(ops[1])})"
        if op == "shl":
            u = _UINT[i.type]
            return f"({_INT[i.type]})(({u}){self._expr(ops[0])} << {self._expr(ops[1])})"
        if op == "ashr":
            extended = self._sign_extended(i)
            if extended is not None:   # (flang's sign extension of an int: (long long)(int)(x + k))
                x, k = extended
                return f"(long long)(int){self._expr(x)}" if k == 0 else f"(long long)(int)({self._expr(x)} + {k}LL)"
            return f"({self._expr(ops[0])} >> {self._expr(ops[1])})"
        if op == "frem":
            self.headers.add("math.h")
            return f"{'fmodf' if i.type == 'float' else 'fmod'}({self._expr(ops[0])}, {self._expr(ops[1])})"
        if op == "fneg":
            return f"(-{self._expr(ops[0])})"
        if op == "freeze" or op == "bitcast" and i.type == "ptr":
            return self._expr(ops[0])
        if op == "icmp":
            a, b = self._expr(ops[0]), self._expr(ops[1])
            pred = i.predicate
            if ops[0].type == "ptr":   # (pointers of C types that may differ)
                a, b = f"(const char *){a}", f"(const char *){b}"
            elif pred.startswith("u") and ops[0].type in _UINT:
                u = _UINT[ops[0].type]
                a, b = f"({u}){a}", f"({u}){b}"
            return f"({a} {_ICMP[pred]} {b})"
        if op == "fcmp":
            return _fcmp(i.predicate, self._expr(ops[0]), self._expr(ops[1]))
        if op == "select":
            return f"({self._expr(ops[0])} ? {self._expr(ops[1])} : {self._expr(ops[2])})"
        if op in _CASTS:
            return self._cast(i)
        if op == "getelementptr":
            return self._pointer_text(i)
        if op == "call":
            return self._call(i)
        raise LiftRefused(f"{self.f.name}: {op}")

    def _sign_extended(self, i: Instruction) -> tuple[Value, int] | None:
        """(x, k) where ``i`` is ``ashr (shl x, 32) + k * 2**32, 32`` of i64: the low 32 bits of
        ``x + k`` as an int, sign-extended."""
        if i.type != "i64" or not (i.operands[1].is_constant and i.operands[1].constant == "32"):
            return None
        inner, k = self.insts.get(i.operands[0].name or ""), 0
        if inner is not None and inner.opcode == "add" and inner.operands[1].is_constant:
            added = int(inner.operands[1].constant)
            if added % (1 << 32):
                return None
            k, inner = added >> 32, self.insts.get(inner.operands[0].name or "")
        if inner is None or inner.opcode != "shl" or not (inner.operands[1].is_constant
                                                          and inner.operands[1].constant == "32"):
            return None
        return inner.operands[0], k

    def _fits(self, i: Instruction) -> bool:
        """Whether integer arithmetic that LLVM lets wrap (no ``nsw``: what flang writes for
        subscripts) cannot leave its signed type here, its operands' ranges being narrow enough
        (``_range``): then it is C's signed arithmetic, which the C front end reads as affine."""
        found = self._range(i.name or "", exact=True)
        return found is not None and _fits_in(found, i.type)

    def _range(self, name: str, exact: bool = False) -> tuple[int, int] | None:
        """Bounds on the value named ``name`` (on its mathematical value with ``exact``: before an
        integer type wraps it), or None."""
        key = (name, exact)
        if key in self._ranges:
            return self._ranges[key]
        self._ranges[key] = None   # (a cycle through phis proves nothing)
        found = self._range_of(name, exact)
        self._ranges[key] = found
        return found

    def _range_of(self, name: str, exact: bool) -> tuple[int, int] | None:
        def of(v: Value) -> tuple[int, int] | None:
            if v.is_constant:
                if v.constant in ("true", "false"):
                    return (int(v.constant == "true"),) * 2
                return (int(v.constant),) * 2 if re.fullmatch(r"-?\d+", v.constant or "") else None
            return self._range(v.name or "")

        i = self.insts.get(name)
        type_ = i.type if i is not None else dict(self.f.params).get(name)
        whole = _signed_range(type_)
        if i is None:
            return whole
        ops = i.operands
        found: tuple[int, int] | None = None
        if i.opcode == "sext":
            found = of(ops[0]) or _signed_range(ops[0].type)
        elif i.opcode == "zext":
            inner = of(ops[0])
            found = inner if inner is not None and inner[0] >= 0 else (0, (1 << int(ops[0].type[1:])) - 1)
        elif i.opcode in ("add", "sub", "mul") or i.opcode == "call" and self._math_name(i) in ("smax", "smin"):
            a, b = of(ops[0]), of(ops[1])
            if a is not None and b is not None:
                if i.opcode == "add":
                    found = (a[0] + b[0], a[1] + b[1])
                elif i.opcode == "sub":
                    found = (a[0] - b[1], a[1] - b[0])
                elif i.opcode == "mul":
                    corners = [x * y for x in a for y in b]
                    found = (min(corners), max(corners))
                else:
                    pick = max if self._math_name(i) == "smax" else min
                    found = (pick(a[0], b[0]), pick(a[1], b[1]))
        elif i.opcode == "ashr" and (extended := self._sign_extended(i)) is not None:
            x, k = extended
            inner = of(x)
            moved = None if inner is None else (inner[0] + k, inner[1] + k)
            found = moved if moved is not None and _fits_in(moved, "i32") else _signed_range("i32")
        elif i.opcode == "shl" and ops[1].is_constant:
            a = of(ops[0])
            found = None if a is None else (a[0] << int(ops[1].constant), a[1] << int(ops[1].constant))
        elif i.opcode == "phi" and (counted := self.counted.get(self.defined_in[name])) is not None \
                and counted.phi is i:   # (between its start and its bound: the step does not wrap, nsw/nuw)
            start, bound = of(counted.init), of(counted.bound)
            if start is not None and bound is not None:
                reach = abs(counted.step) + abs(counted.bound_offset)
                found = (min(start[0], bound[0] - reach), max(start[1], bound[1] + reach))
        if exact or found is None:
            return found if exact else whole
        return found if whole is None or _fits_in(found, type_) else whole

    @staticmethod
    def _constant_minus_one(type_: str) -> str:
        return "-1LL" if type_ == "i64" else "-1"

    def _cast(self, i: Instruction) -> str:
        source = i.operands[0]
        value = self._expr(source)
        to = self._ctype(i.type, i.name or "a cast")
        if source.type == "i1" and i.opcode in ("sext", "sitofp"):
            return f"({to})-({value})"   # (a true i1 extends to all ones: -1)
        if i.opcode in ("zext", "uitofp", "fptoui"):
            if i.opcode == "zext" and source.type == "i1":
                return f"({to}){value}"
            if i.opcode == "fptoui":
                return f"({to})({_UINT[i.type]}){value}"
            return f"({to})({_UINT[source.type]}){value}"
        return f"({to}){value}"

    def _call(self, i: Instruction) -> str:
        args = [self._expr(v) for v in i.operands]
        name = self._math_name(i)
        if name == "fmuladd":
            return f"({args[0]} * {args[1]} + {args[2]})"
        if name in ("smax", "smin", "umax", "umin"):
            a, b = args[0], args[1]
            if name.startswith("u"):
                u = _UINT[i.type]
                a, b = f"({u}){a}", f"({u}){b}"
            pick = ">" if name.endswith("max") else "<"
            return f"({_INT[i.type]})({a} {pick} {b} ? {a} : {b})"
        if name == "abs":
            return f"({args[0]} < 0 ? -{args[0]} : {args[0]})"
        if name is not None:
            self.headers.add("math.h")
            return f"{name}({', '.join(args)})"
        callee = i.callee or ""
        base = callee.split(".")[1] if callee.startswith("llvm.") else ""
        if base in ("memset", "memcpy", "memmove"):
            self.headers.add("string.h")
            return f"{base}({args[0]}, {args[1]}, {args[2]})"
        if callee.startswith("llvm."):
            raise LiftRefused(f"{self.f.name}: the intrinsic {callee}")
        target = next((g for g in self.module.functions if g.name == callee), None)
        if target is None:
            raise LiftRefused(f"{self.f.name}: a call through a pointer")
        return f"{self.function_names.get(callee, callee)}({', '.join(args)})"

    def _address(self, i: Instruction) -> _Address:
        """Where a chain of getelementptr points: the first subscript moves the pointer, the
        others select in the array and struct types it points to."""
        if i.opcode == "bitcast" and i.type == "ptr" and i.operands[0].name in self.insts:
            return self._address(self.insts[i.operands[0].name])
        if i.opcode != "getelementptr" or len(i.operands) < 2:
            raise LiftRefused(f"{self.f.name}: an address this front end does not write ({i.text[:60]})")
        return self._gep(i.element_type or "", i.operands[0], i.operands[1:], i.text)

    def _gep(self, element_type: str, base: Value, indices: list[Value], text: str) -> _Address:
        a = self._base(base)
        first = self._expr(indices[0])
        if a.struct is not None:
            if element_type != a.pointed:
                a = self._descend(a, element_type)
            if a.pointed == a.struct and a.offset == 0:   # (whole elements: p[i])
                moved = first if a.subscripts[0] in _ZERO else f"{a.subscripts[0]} + {first}"
                a = _Address(a.root, [moved], a.pointed, a.struct, 0, a.origin)
            elif first not in _ZERO:
                raise LiftRefused(f"{self.f.name}: an address that steps over a struct's member ({text[:60]})")
        else:
            if element_type != a.pointed:
                raise LiftRefused(f"{self.f.name}: {a.root} indexed as {element_type}, not as {a.pointed}")
            if not a.subscripts:
                if first not in _ZERO:
                    raise LiftRefused(f"{self.f.name}: an address that steps past a struct's member ({text[:60]})")
            else:
                moved = first if a.subscripts[-1] in _ZERO else f"{a.subscripts[-1]} + {first}"
                a = _Address(a.root, [*a.subscripts[:-1], moved], a.pointed, origin=a.origin)
        for v in indices[1:]:
            if a.struct is not None and a.pointed in self.structs:
                layout = self.structs[a.pointed]
                k = int(v.constant) if v.is_constant and re.fullmatch(r"\d+", v.constant or "") else -1
                if not 0 <= k < len(layout.members) or layout.packed:
                    raise LiftRefused(f"{self.f.name}: a member of {a.pointed} this front end does not write")
                offset, member = layout.members[k]
                a = _Address(a.root, a.subscripts, member, a.struct, a.offset + offset, a.origin)
                continue
            if a.struct is not None:
                a = self._member(a)
            if not _array_shape(a.pointed)[1]:
                raise LiftRefused(f"{self.f.name}: an address that indexes past its array type ({text[:60]})")
            a = _Address(a.root, [*a.subscripts, self._expr(v)], _array_shape(a.pointed, 1), origin=a.origin)
        return a

    def _descend(self, a: _Address, type_: str) -> _Address:
        """``a``, inside a struct, as the address of ``type_``: of a first member of what it points to."""
        chain = self._first_members(a.pointed)
        if type_ not in chain:
            raise LiftRefused(f"{self.f.name}: {type_} read through a {a.pointed} address")
        return _Address(a.root, a.subscripts, type_, a.struct, a.offset, a.origin)

    def _member(self, a: _Address) -> _Address:
        """The member of a struct view at ``a`` (not a struct itself) as an address of its own."""
        if a.struct in self.pointer_rows:
            if a.pointed != "ptr":
                raise LiftRefused(f"{self.f.name}: {a.pointed} read in a row of pointers ({a.struct})")
            per_row, index = self.pointer_rows[a.struct], a.subscripts[0]
            at = a.offset // 8
            row = f"{per_row} * {index}" if index not in _ZERO else ""
            cell = " + ".join(x for x in (row, str(at) if at or not row else "") if x)
            return _Address(f"{a.root}[{cell}]", [], a.pointed, origin=a.origin)
        known = self.member_types.setdefault(a.struct, {})
        if known.setdefault(a.offset, a.pointed) != a.pointed:
            raise LiftRefused(f"{self.f.name}: byte {a.offset} of {a.struct} read as {known[a.offset]} "
                              f"and as {a.pointed}")
        index = a.subscripts[0]
        text = f"{a.root}->m{a.offset}" if index in _ZERO else f"{a.root}[{index}].m{a.offset}"
        return _Address(text, [], a.pointed, origin=a.origin)

    def _base(self, pointer: Value) -> _Address:
        """Where ``pointer`` points."""
        name = pointer.name or ""
        if name in self.pointee and (pointer.is_global or name in self.params or name in self.insts):
            root = self.function_names.get(name, name) if pointer.is_global else self._name(name)
            kind = self.pointee[name]
            if kind in self.structs:
                return _Address(root, ["0"], kind, kind, 0, name)
            return _Address(root, ["0"], kind, origin=name)
        if pointer.is_global:
            raise LiftRefused(f"{self.f.name}: the global @{pointer.name}")
        if pointer.is_constant and (constant := _constant_gep(pointer.constant)) is not None:
            return self._gep(*constant, pointer.constant)
        inner = self.insts.get(name)
        if inner is None:
            raise LiftRefused(f"{self.f.name}: memory at {pointer.name or pointer.constant}")
        return self._address(inner)

    def _pointer_text(self, i: Instruction) -> str:
        a = self._address(i)
        if a.struct is not None:
            if a.pointed == a.struct and a.offset == 0:
                if a.struct in self.pointer_rows:
                    return f"({a.root} + {self.pointer_rows[a.struct]} * {a.subscripts[0]})"
                return f"({a.root} + {a.subscripts[0]})"
            if a.pointed in self.structs:
                raise LiftRefused(f"{self.f.name}: the address of a member struct ({i.text[:60]})")
            a = self._member(a)
        if not a.subscripts:
            return f"&{a.root}"
        if len(a.subscripts) == 1:
            return f"({a.root} + {a.subscripts[0]})"
        return f"&{a.root}{''.join(f'[{s}]' for s in a.subscripts)}"

    def _lvalue(self, pointer: Value, type_: str) -> str:
        a = self._base(pointer)
        if a.struct is not None:
            if a.pointed in self.structs:
                chain = self._first_members(a.pointed)
                a = self._descend(a, type_ if type_ in chain else chain[-1])
            a = self._member(a)
        subscripts, pointed = a.subscripts, a.pointed
        while pointed != type_ and _array_shape(pointed)[1]:
            subscripts, pointed = [*subscripts, "0"], _array_shape(pointed, 1)   # (an array's first element)
        if pointed != type_:
            raise LiftRefused(f"{self.f.name}: {type_} read through a {pointed} address")
        return f"{a.root}{''.join(f'[{s}]' for s in subscripts)}"

    def _expr(self, v: Value) -> str:
        if v.is_constant:
            return _constant(v, self.f.name)
        if v.is_global:
            raise LiftRefused(f"{self.f.name}: the global @{v.name}")
        if v.name in self.params:
            return self._name(v.name)
        if v.name in self.same_load:
            return self._name(self.same_load[v.name])
        i = self.insts[v.name]
        if v.name in self.induced and v.name not in self.live_out:
            return self._induced_value(v.name)
        if v.name in self.reloaded and v.name in self.inlined_loads:
            return self._reload_text(i)
        if v.name in self.exit_alias and v.name not in self.live_out:
            return self.exit_alias[v.name]
        if i.opcode == "phi" or i.name in self.live_out or i.name in self.named or self._named_outside_loops(i):
            return self._name(v.name)
        if i.opcode in _PURE or self._pure_call(i):
            return self._value_of(i)
        if v.name in self.inlined_loads:
            return self._lvalue(i.operands[0], i.type)
        return self._name(v.name)


def _may_be_pointer(tbaa_type: str) -> bool:
    """Whether memory of this TBAA type (clang's names) may hold a pointer."""
    return tbaa_type in ("omnipotent char", "vtable pointer") or "pointer" in tbaa_type or \
        re.match(r"p\d+ ", tbaa_type) is not None


def _forward_pointer_casts(function: Function) -> None:
    """Uses of ``bitcast ptr %p to ptr`` (what reading typed pointers leaves) read ``%p`` itself."""
    same: dict[str, Value] = {}
    for b in function.blocks:
        for i in b.instructions:
            if i.opcode == "bitcast" and i.type == "ptr" and i.operands[0].type == "ptr" and i.name:
                same[i.name] = same.get(i.operands[0].name or "", i.operands[0])
    if not same:
        return
    for b in function.blocks:
        for i in b.instructions:
            i.operands = [same.get(v.name or "", v) if not v.is_global else v for v in i.operands]
            i.incoming = [(same.get(v.name or "", v) if not v.is_global else v, source) for v, source in i.incoming]


_CONSTANT_GEP = re.compile(r"^getelementptr (?:(?:inbounds|nuw|nusw) )*\((.*)\)$")


def _constant_gep(text: str) -> tuple[str, Value, list[Value]] | None:
    """(element type, base, indices) of a constant ``getelementptr`` expression of constant
    integer indices off a global (``getelementptr inbounds ([18 x double], ptr @A, i64 0, i64 1)``)."""
    m = _CONSTANT_GEP.match(text.strip())
    if m is None:
        return None
    inner = m.group(1)
    element = type_at(inner)
    parts = [p.strip() for p in inner[len(element):].split(",") if p.strip()]
    if not parts or not parts[0].startswith("ptr @"):
        return None
    base = Value("ptr", name=parts[0][5:].strip('"'), is_global=True)
    indices = []
    for part in parts[1:]:
        kind, _, value = part.partition(" ")
        if not re.fullmatch(r"-?\d+", value):
            return None
        indices.append(Value(kind, constant=value))
    return element, base, indices


def _signed_range(type_: str | None) -> tuple[int, int] | None:
    bits = {"i1": 1, "i8": 8, "i16": 16, "i32": 32, "i64": 64}.get(type_ or "")
    return None if bits is None else (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)


def _fits_in(found: tuple[int, int], type_: str | None) -> bool:
    whole = _signed_range(type_)
    return whole is not None and whole[0] <= found[0] and found[1] <= whole[1]


def _constant_range(v: Value) -> tuple[int, int] | None:
    try:
        value = int(v.constant)
    except (TypeError, ValueError):
        return None
    return value, value


def _last_of_constant_walk(counted: CountedLoop) -> int | None:
    """The counter's last value in a rotated loop whose start and bound are constants, where the
    compare's values, from the first to the one that ends the loop, neither wrap nor (for an
    unsigned compare) leave the numbers that read alike signed and unsigned, and the first
    value passes the compare too (so ``var >= last`` lets exactly the loop's values by); else
    None. ``(unsigned)(j + 1) > 1`` from 998 down is ``j >= 1``."""
    if not (counted.init.is_constant and counted.bound.is_constant):
        return None
    try:
        start, bound = int(counted.init.constant), int(counted.bound.constant)
    except (TypeError, ValueError):
        return None
    whole = _signed_range(counted.phi.type)
    if whole is None:
        return None
    step, test = counted.step, counted.test
    first = start - step if counted.bound_offset else start   # (the compare's value at the start)
    if step < 0 and test in (">", ">="):
        span = first - bound
        fails_at = -(-span // -step) if test == ">" else span // -step + 1
    elif step > 0 and test in ("<", "<="):
        span = bound - first
        fails_at = -(-span // step) if test == "<" else span // step + 1
    else:
        return None
    if fails_at < 1:
        return None
    low, high = (0, whole[1]) if counted.unsigned else whole
    ends = (first, first + fails_at * step, start, start + fails_at * step)
    if not all(low <= v <= high for v in (*ends, bound)):
        return None
    return start + (fails_at - 1) * step


_TRAPS = {"sdiv", "udiv", "srem", "urem"}
_HINTS = ("llvm.lifetime.", "llvm.assume", "llvm.experimental.noalias")   # (calls that tell LLVM's optimizer only)
_FLOAT_ARITHMETIC = {"fadd", "fsub", "fmul", "fdiv", "fneg", "sitofp", "uitofp", "fpext", "fptrunc"}
_ZERO = ("0", "0LL")
_READS_ONLY = _PURE | {"load", "phi", "br", "ret", "unreachable", "switch", "call", "store"}
_ICMP = {"eq": "==", "ne": "!=", "slt": "<", "sle": "<=", "sgt": ">", "sge": ">=", "ult": "<", "ule": "<=",
         "ugt": ">", "uge": ">="}


_ARRAY = re.compile(r"^\[(\d+) x (.+)\]$")


def _array_shape(llvm_type: str, drop: int | None = None):
    """(element type, dimensions) of an LLVM array type (``[4 x [8 x double]]``: double, [4, 8]);
    with ``drop``, the type left after selecting that many dimensions."""
    dims: list[int] = []
    t = llvm_type.strip()
    while (m := _ARRAY.match(t)) is not None:
        dims.append(int(m.group(1)))
        t = m.group(2).strip()
    if drop is None:
        return t, dims
    rest = dims[drop:]
    for d in reversed(rest):
        t = f"[{d} x {t}]"
    return t


def scalar_ctype(llvm_type: str) -> str:
    """The C type of an LLVM scalar type (``LiftRefused`` for others)."""
    for table in (_INT, _FLOAT, {"void": "void"}):
        if llvm_type in table:
            return table[llvm_type]
    raise LiftRefused(f"the type {llvm_type}")


def _fcmp(pred: str, a: str, b: str) -> str:
    ordered = {"oeq": "==", "ogt": ">", "oge": ">=", "olt": "<", "ole": "<="}
    if pred in ordered:
        return f"({a} {ordered[pred]} {b})"
    unordered = {"ugt": "<=", "uge": "<", "ult": ">=", "ule": ">", "une": "=="}
    if pred in unordered:   # (true where either is NaN: the negation of the ordered opposite)
        return f"(!({a} {unordered[pred]} {b}))"
    if pred == "one":
        return f"({a} < {b} || {a} > {b})"
    if pred == "ueq":
        return f"(!({a} < {b} || {a} > {b}))"
    if pred == "ord":
        return f"({a} == {a} && {b} == {b})"
    if pred == "uno":
        return f"({a} != {a} || {b} != {b})"
    if pred == "true":
        return "1"
    if pred == "false":
        return "0"
    raise LiftRefused(f"fcmp {pred}")


def _constant(v: Value, where: str) -> str:
    text = v.constant
    if v.type in _INT:
        if text in ("true", "false"):
            return "1" if text == "true" else "0"
        if not re.fullmatch(r"-?\d+", text):
            raise LiftRefused(f"{where}: the constant {text}")
        value = int(text)
        if v.type == "i64":
            return f"{value}LL" if value != -(1 << 63) else "(-9223372036854775807LL - 1)"
        if v.type == "i32" and value == -(1 << 31):
            return "(-2147483647 - 1)"
        return str(value)
    if v.type in _FLOAT:
        if text.startswith("0x"):
            bits = int(text[2:], 16)
            value = struct.unpack("<d", struct.pack("<Q", bits))[0]
        else:
            value = float(text)
        if value != value:
            return "(0.0 / 0.0)" if v.type == "double" else "(0.0f / 0.0f)"
        if value in (float("inf"), float("-inf")):
            sign = "-" if value < 0 else ""
            return f"({sign}1.0 / 0.0)" if v.type == "double" else f"({sign}1.0f / 0.0f)"
        literal = value.hex()
        return f"{literal}" if v.type == "double" else f"{literal}f"
    if text in ("undef", "poison", "zeroinitializer", "null"):
        return "0"
    raise LiftRefused(f"{where}: the constant {text} of type {v.type}")


_C_RESERVED = {
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum", "extern",
    "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return", "short", "signed",
    "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void", "volatile", "while",
    "main", "fmod", "fmodf", "sqrt", "exp", "log", "pow", "fabs", "fmin", "fmax",
}
