"""Transfer elimination (s2s/transforms/transfer_elimination.py): the bytes moved between host and
device per region, before and after elimination, for small programs whose plans are known."""
from __future__ import annotations

import re
import textwrap

import pytest

from s2s.driver.pipeline import PipelineOptions, optimize_c_file
from s2s.ir import Const, Sym
from s2s.transforms.transfer_elimination import Bytes, polynomial

STENCIL = """
void s(int tsteps, int n, double A[n][n], double B[n][n]) {
  for (int t = 0; t < tsteps; t++) {
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        B[i][j] = 0.25 * (A[i-1][j] + A[i+1][j] + A[i][j-1] + A[i][j+1]);
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        A[i][j] = B[i][j];
  }
}
"""

READ_ONLY = """
void g(int n, double A[n][n], double C[n][n]) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      C[i][j] = 2.0 * A[i][j] + C[i][j];
}
"""

HOST_BETWEEN = """
void h(int n, double A[n], double B[n]) {
  int i;
  for (i = 0; i < n; i++)
    B[i] = A[i] * 2.0;
  B[0] = B[n - 1] + 1.0;
  for (i = 0; i < n; i++)
    A[i] = B[i] + 1.0;
}
"""

DEAD_LOCAL = """
void k(double out[100]) {
  double tmp[100];
  for (int i = 0; i < 100; i++)
    tmp[i] = i * 0.5;
  for (int i = 1; i < 99; i++)
    out[i] = tmp[i - 1] + tmp[i + 1];
}
"""

HOST_IN_TIME_LOOP = """
void s(int tsteps, int n, double A[n], double B[n]) {
  for (int t = 0; t < tsteps; t++) {
    for (int i = 1; i < n - 1; i++)
      B[i] = 0.5 * (A[i-1] + A[i+1]);
    A[0] = B[1];
    for (int i = 1; i < n - 1; i++)
      A[i] = B[i];
  }
}
"""

_MOVED = re.compile(r"bytes moved per run: (.*) before transfer elimination, (.*) after$")


def cuda_report(tmp_path, source: str) -> tuple[list[str], object]:
    path = tmp_path / "prog.c"
    path.write_text(textwrap.dedent(source))
    result = optimize_c_file(str(path), [], PipelineOptions(target="cuda", report=True))
    return [line for line in result.report if "region" in line], result


def moved(tmp_path, source: str) -> tuple[str, str]:
    lines, _ = cuda_report(tmp_path, source)
    (line,) = [ln for ln in lines if "offloaded to CUDA" in ln]
    before, after = _MOVED.search(line).groups()
    return before, after


def test_a_time_loop_copies_its_arrays_in_once_and_out_once(tmp_path):
    before, after = moved(tmp_path, STENCIL)
    # per time step, naively: A and B in before each kernel, the written one back after it
    assert before == "48*n^2*tsteps (to the device 32*n^2*tsteps, back 16*n^2*tsteps)"
    assert after == "32*n^2 (to the device 16*n^2, back 16*n^2)"


def test_a_read_only_array_is_never_copied_out(tmp_path):
    _, after = moved(tmp_path, READ_ONLY)
    assert after == "24*n^2 (to the device 16*n^2, back 8*n^2)"   # back: C only


def test_the_host_touching_an_array_between_kernels_gets_copies_around_the_touch(tmp_path):
    before, after = moved(tmp_path, HOST_BETWEEN)
    assert before == "48*n (to the device 32*n, back 16*n)"
    # A in; B (written whole by the first kernel: no copy in) out for the host, in again for the
    # second kernel; A back at the end; B valid on the host already
    assert after == "32*n (to the device 16*n, back 16*n)"
    _, result = cuda_report(tmp_path, HOST_BETWEEN)
    (unit,) = result.companions
    entry = unit.text[unit.text.index('extern "C" int s2s_cuda_h_1_'):]
    entry = entry[:entry.index("\n}\n")]
    order = re.findall(r"cudaMemcpy\((\w+), (\w+),|S2S_LAUNCH\(|\n\s*(B\[0\]) =", entry)
    steps = [f"{dst}<-{src}" if dst else ("launch" if not host else "host") for dst, src, host in order]
    assert steps == ["A_dev<-A", "launch", "B<-B_dev", "host", "B_dev<-B", "launch", "A<-A_dev"]


def test_an_array_the_ir_proves_dead_is_not_copied_back(tmp_path):
    _, after = moved(tmp_path, DEAD_LOCAL)
    # tmp: written whole on the device, dead after; out: copied in (written in part) and back
    assert after == "1600 (to the device 800, back 800)"


def test_a_host_loop_whose_host_code_touches_the_arrays_stays_on_the_host(tmp_path):
    lines, result = cuda_report(tmp_path, HOST_IN_TIME_LOOP)
    assert any("stays on the host: its host code touches the kernels' arrays in a loop" in ln for ln in lines)
    assert not result.companions


def test_bytes_are_polynomials_in_the_parameters():
    n = Sym("n")
    from s2s.ir import Binary

    size = polynomial(Binary("*", Binary("+", n, Const("1")), Binary("-", n, Const("1"))))
    assert str(size) == "n^2 - 1"
    assert (Bytes.const(8) * polynomial(Const("3"))).value == 24


@pytest.mark.parametrize("target", ["c", "openmp"])
def test_other_targets_have_no_companion_unit(tmp_path, target):
    path = tmp_path / "prog.c"
    path.write_text(textwrap.dedent(STENCIL))
    result = optimize_c_file(str(path), [], PipelineOptions(target=target))
    assert result.companions == [] and "s2s_cuda" not in result.source


def test_an_array_written_whole_through_widened_subscripts_is_not_copied_in(tmp_path):
    _, after = moved(tmp_path, """
        #include <stddef.h>
        #include <stdint.h>
        void f(size_t n, int64_t A[n], double B[n]) {
          for (size_t i = 0; i < n; i++)
            B[i] = A[i] * 2.0;
        }
        """)
    assert after == "16*n (to the device 8*n, back 8*n)"   # A in, B back


# --- the plan on IR built by hand: kernels are GPU_DEVICE Maps over device containers -----------

def _device_sdfg(build):
    from s2s.ir import SDFGBuilder, Storage

    b = SDFGBuilder("f")
    b.symbol("n")
    b.symbol("T")
    b.array("A", "double", ["n"])
    b.array("A_dev", "double", ["n"], Storage.DEVICE)
    build(b)
    return b.build()


def _kernel(b):
    from s2s.ir import Schedule

    with b.map("i", 0, "n", Schedule.GPU_DEVICE):
        b.assign("A_dev[i]", "A_dev[i] + 1.0")


def _steps(seq) -> list[str]:
    from s2s.ir import Block, DeviceCopy, IfElse, Sequence
    from s2s.transforms.transfer_elimination import is_kernel

    out = []
    for c in seq.children:
        if is_kernel(c):
            out.append("kernel")
        elif isinstance(c, Block) and isinstance(c.graph.computations()[0], DeviceCopy):
            out.append(c.graph.computations()[0].direction)
        elif isinstance(c, IfElse):
            out.append(("if", _steps(c.then), _steps(c.other) if c.other is not None else None))
        elif isinstance(c, Sequence):
            out.append(_steps(c))
        elif hasattr(c, "body"):
            out.append(("loop", _steps(c.body)))
        else:
            out.append("host")
    return out


def test_a_kernel_in_one_branch_copies_back_at_that_branch_s_end():
    from s2s.transforms.transfer_elimination import place_transfers

    def build(b):
        with b.if_("n > 10"):
            _kernel(b)
        b.assign("A[0]", "A[0] * 2.0")

    sdfg = _device_sdfg(build)
    plan = place_transfers(sdfg.body, {"A": "A_dev"}, sdfg.container_map, {"A"})
    assert _steps(plan.body) == [("if", ["to-device", "kernel", "to-host"], None), "host"]
    assert plan.placed.text() == "16*n (to the device 8*n, back 8*n)"


def test_a_host_loop_touching_the_array_on_the_host_copies_around_the_touch_each_trip():
    from s2s.transforms.transfer_elimination import copies_in_loops, place_transfers

    def build(b):
        with b.loop("t", 0, "T"):
            _kernel(b)
            b.assign("A[0]", "A[0] * 2.0")

    sdfg = _device_sdfg(build)
    plan = place_transfers(sdfg.body, {"A": "A_dev"}, sdfg.container_map, {"A"})
    assert _steps(plan.body) == [("loop", ["to-device", "kernel", "to-host", "host"])]
    assert plan.placed.text() == "16*T*n (to the device 8*T*n, back 8*T*n)"
    assert copies_in_loops(plan.body) == 2


def test_a_host_loop_of_kernels_only_keeps_the_array_on_the_device():
    from s2s.transforms.transfer_elimination import place_transfers

    def build(b):
        with b.loop("t", 0, "T"):
            _kernel(b)
            _kernel(b)

    sdfg = _device_sdfg(build)
    plan = place_transfers(sdfg.body, {"A": "A_dev"}, sdfg.container_map, {"A"})
    assert _steps(plan.body) == ["to-device", ("loop", ["kernel", "kernel"]), "to-host"]
    assert plan.naive.text() == "32*T*n (to the device 16*T*n, back 16*T*n)"
    # not live after: no copy back
    dead = place_transfers(sdfg.body, {"A": "A_dev"}, sdfg.container_map, set())
    assert _steps(dead.body) == ["to-device", ("loop", ["kernel", "kernel"])]


def test_copies_are_dataflow_nodes_with_the_arrays_subsets():
    from s2s.ir import DeviceCopy, Range
    from s2s.transforms.transfer_elimination import place_transfers

    sdfg = _device_sdfg(_kernel)
    plan = place_transfers(sdfg.body, {"A": "A_dev"}, sdfg.container_map, {"A"})
    first = plan.body.children[0]
    (copy,) = first.graph.computations()
    assert isinstance(copy, DeviceCopy) and (copy.src, copy.dst) == ("A", "A_dev")
    (read,) = first.graph.reads()
    (write,) = first.graph.writes()
    assert read.data == "A" and write.data == "A_dev"
    assert read.subset == write.subset == (Range(Const("0"), Sym("n"), Const("1")),)
