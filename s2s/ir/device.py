"""Device memory as data flow: an array's copy in an accelerator's memory is a container of its
own (``Storage.DEVICE``), and the data move between the two by ``DeviceCopy`` library nodes, so
that the copies are edges a transformation can reason about (transfer_elimination.py) rather
than calls a back end prints where it sees fit."""
from __future__ import annotations

from dataclasses import dataclass

from s2s.ir.data import Array, Storage
from s2s.ir.dataflow import AccessNode, DataflowGraph, LibraryNode, Memlet, Range
from s2s.ir.expr import Const

TO_DEVICE = "to-device"
TO_HOST = "to-host"
# the name of a matrix-multiply library node that runs on the GPU: its factors and target are
# device containers, and a back end expands it as a kernel of one thread per element of the target
GPU_MATMUL = "gpu_matmul"


@dataclass(frozen=True)
class DeviceCopy(LibraryNode):
    """``dst[subset] = src[subset]`` across memories: ``direction`` is TO_DEVICE (``src`` the
    host's array, ``dst`` its device container) or TO_HOST. Its memlets say which elements move."""

    src: str
    dst: str
    direction: str


def device_array(host: Array, name: str) -> Array:
    """The device container that stands for ``host`` in kernels: the same elements, its own memory."""
    return Array(name, host.dtype, host.shape, Storage.DEVICE, is_object=True)


def whole(array: Array) -> tuple[Range, ...]:
    """Every element of ``array`` (whose extents are all known) as a memlet subset."""
    return tuple(Range(Const("0"), extent, Const("1")) for extent in array.shape)


def copy_block_graph(tag: str, src: str, dst: str, direction: str, subset: tuple) -> DataflowGraph:
    """The dataflow of one copy: ``src`` -> DeviceCopy -> ``dst``, ``subset`` on both edges."""
    node = DeviceCopy(f"L.{tag}", "device_copy", ("in",), ("out",), (), src, dst, direction)
    a, b = AccessNode(f"A.{tag}.src", src), AccessNode(f"A.{tag}.dst", dst)
    return DataflowGraph((a, node, b), (Memlet(a.id, None, node.id, "in", src, subset),
                                        Memlet(node.id, "out", b.id, None, dst, subset)))
