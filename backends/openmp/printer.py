"""The OpenMP back end: C plus ``#pragma omp`` on Maps (parallel loops and SIMD loops)."""
from __future__ import annotations

from backends.c.printer import CPrinter
from s2s.ir import Block, Declare, For, Map, Scalar, Schedule, expr as ex, walk


# Starting and joining a parallel region costs a few microseconds: as much as a few thousand
# iterations of a loop body without a loop.
MIN_FLAT_PARALLEL_ITERATIONS = 4096


class OpenMPPrinter(CPrinter):
    threads = True

    def map_pragmas(self, node: Map, level: int) -> list[str]:
        pad = self.pad(level)
        if node.schedule is Schedule.CPU_MULTICORE:
            clauses = ""
            private = self.private_variables(node)
            if private:
                clauses += f" private({', '.join(private)})"
            if self.triangular(node):
                clauses += " schedule(static, 1)"  # cyclic: inner trip counts vary with the index
            if not any(isinstance(n, (For, Map)) for n in walk(node.body)):
                # a flat loop: a parallel region pays only beyond a few thousand iterations
                start, stop = _int(node.start), _int(node.stop)
                if start is not None and stop is not None:
                    if stop - start < MIN_FLAT_PARALLEL_ITERATIONS:
                        return []
                else:
                    trip = node.stop if start == 0 else ex.Binary("-", node.stop, node.start)
                    clauses += f" if({self.expr(trip)} >= {MIN_FLAT_PARALLEL_ITERATIONS})"
            return [pad + "#pragma omp parallel for" + clauses]
        if node.schedule is Schedule.SIMD:
            return [pad + "#pragma omp simd"]
        return []

    def private_variables(self, node: Map) -> list[str]:
        """Variables each iteration needs its own copy of: loop variables of inner loops that do
        not declare them, and scalars the body writes that are declared outside it."""
        declared = {n.name for n in walk(node.body) if isinstance(n, Declare)}
        declared |= {n.var for n in walk(node.body) if isinstance(n, (For, Map)) and getattr(n, "declares_var", True)}
        out: list[str] = []
        for n in walk(node.body):
            names = []
            if isinstance(n, For) and not n.declares_var:
                names.append(n.var)
            elif isinstance(n, Block):
                names += [e.data for e in n.graph.writes() if isinstance(self.containers.get(e.data), Scalar)]
            for name in names:
                if name not in declared and name not in out and name != node.var:
                    out.append(name)
        return out

    def triangular(self, node: Map) -> bool:
        return any(node.var in ex.names(n.cond) or node.var in ex.names(n.init)
                   for n in walk(node.body) if isinstance(n, For)) or any(
            node.var in ex.names(n.start) or node.var in ex.names(n.stop)
            for n in walk(node.body) if isinstance(n, Map))


def _int(e: ex.Expr) -> int | None:
    return e.int_value if isinstance(e, ex.Const) else None
