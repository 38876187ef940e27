"""`lane-pycuda`'s code generation: a placed step (its launch ops, and the step and arena read from its IR once, as
`codegen.placed.placed` gives them) as one `Lowered` value: the arena allocated once, every counter at an aligned
offset of one zeroed allocation, each array outside the arena in a buffer of its own, every tensor the caller feeds
or reads back bound to its buffer and offset, and the kernel launches of every launch op in order."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.ir import SSAValue

from lanearena.analysis.arena_problem import bytes_of
from lanearena.analysis.plan import ArenaPlan
from lanearena.dialects import lane
from lanearena.dialects.base import tensor_def
from lanearena.dialects.located import where
from lanearena.errors import UserError
from lanearena.lowering import kernels
from lanearena.lowering.codegen.lowered import Argument, Binding, Buffer, Launch, Lowered, Pointer
from lanearena.lowering.kernels import KernelCall
from lanearena.model import ELEMENT_BYTES, QBLOCK, Form, Role, Step, Tensor, aligned, home_start, quant_parts

COUNTERS = "counters"
"""The name of the one zeroed allocation that holds every counter of a step."""


@dataclass(frozen=True)
class Layout:
    """Every buffer of a placed step, and where each array starts: a `Pointer` by (tensor, form), and by (launch,
    tag) for the launches' scratch and counters. Buffer 0 is the arena."""

    buffers: tuple[Buffer, ...]
    arrays: dict[tuple[str, Form], Pointer]
    scratch: dict[tuple[int, str], Pointer]


def layout(step: Step, plan: ArenaPlan) -> Layout:
    """The buffers `step`, placed as `plan` places it, asks for, and where every array, scratch and counter of it
    lives in them. The counters share one zeroed allocation, each at an aligned offset of its own (never arena
    bytes), so that a replayed step resets them all with one memset."""
    two = step.numerics.two_words
    buffers = [Buffer("arena", plan.bytes, Role.COMPUTED, poisoned=True)]
    arrays = {(a.tensor, a.form): Pointer(0, a.offset) for a in plan.arrays}
    scratch = {(s.launch, s.tag): Pointer(0, s.offset) for s in plan.scratch}

    def own(t: Tensor, form: Form, nbytes: int) -> None:
        arrays[(t.name, form)] = Pointer(len(buffers), 0)
        buffers.append(Buffer(f"{t.name}:{form.value}", nbytes, t.role, poisoned=t.role is Role.COMPUTED))

    for o in plan.own:
        own(step.tensors[o.tensor], o.form, o.bytes)
    for t in step.tensors.values():
        # An output or state no launch touches has no array in the plan, yet is still handed back.
        kept = t.name in step.outputs or t.role is Role.STATE
        if kept and t.view_of is None and (t.name, Form.PLAIN) not in arrays:
            own(t, Form.PLAIN, bytes_of(t, Form.PLAIN, two, plan.align))
    if plan.counters:
        at = 0
        for c in plan.counters:
            scratch[(c.launch, c.tag)] = Pointer(len(buffers), at)
            at += aligned(c.bytes, plan.align)
        buffers.append(Buffer(COUNTERS, at, Role.COMPUTED, zeroed=True))
    return Layout(tuple(buffers), arrays, scratch)


class _Addresses:
    """Symbolic device addresses while lowering, which a kind's launcher computes with as with real ones: byte
    `offset` of buffer k stands for `(k + 1) << shift | offset`, with `shift` past every buffer's size (and a
    one-past-the-end address), so no two buffers' addresses meet whatever the sizes; a layout whose addresses would
    not fit 64 bits is refused."""

    def __init__(self, buffers: tuple[Buffer, ...]):
        self.sizes = [b.bytes for b in buffers]
        self.shift = max(self.sizes, default=0).bit_length() + 1
        if (len(buffers) + 1).bit_length() + self.shift > 64:
            raise UserError(f"{len(buffers)} buffers of up to {max(self.sizes)} bytes do not fit 64-bit addresses")

    def encode(self, p: Pointer) -> int:
        return ((p.buffer + 1) << self.shift) + p.offset

    def decode(self, address: int) -> Pointer | None:
        """The pointer an address `encode` made (within or one past a buffer), None for 0 (null)."""
        if address == 0:
            return None
        k, offset = (address >> self.shift) - 1, address & ((1 << self.shift) - 1)
        if not 0 <= k < len(self.sizes) or offset > self.sizes[k]:
            raise AssertionError(f"address {address:#x} lies outside every buffer of the step")
        return Pointer(k, offset)


@dataclass(frozen=True)
class _Symbolic:
    """The operands of launch `index` of `step` as the symbolic addresses of `addresses` (a kinds' `Operands`)."""

    step: Step
    index: int
    lay: Layout
    addresses: _Addresses
    align: int
    qblock: int

    def _array(self, value: SSAValue, form: Form) -> tuple[Tensor, int, int]:
        at, elems = home_start(self.step, tensor_def(value).tensor_name, form, self.qblock)
        if (at, form) not in self.lay.arrays:
            raise KeyError(f"{at}:{form.value} has no buffer")
        return self.step.tensors[at], self.addresses.encode(self.lay.arrays[(at, form)]), elems

    def plain(self, tensor: SSAValue) -> int:
        _, base, elems = self._array(tensor, Form.PLAIN)
        return base + 4 * elems

    def quant(self, tensor: SSAValue) -> tuple[int, int, int]:
        at, base, elems = self._array(tensor, Form.QUANT)
        words, low, scales = quant_parts(base, at.length, self.step.numerics.two_words, self.align)
        return words + elems, (low + elems if low is not None else 0), scales + elems // QBLOCK * 4

    def weight(self, tensor: SSAValue) -> tuple[int, int]:
        t = self.step.tensors[tensor_def(tensor).tensor_name]
        base = self.addresses.encode(self.lay.arrays[(t.name, Form.PLAIN)])
        return base, (base + aligned(t.length, self.align) if t.elem == "i8" else 0)

    def scratch(self, tag: str) -> int:
        return self.addresses.encode(self.lay.scratch[(self.index, tag)])

    counter = scratch


def _argument(value, addresses: _Addresses) -> Argument:
    if isinstance(value, np.uint64):
        return addresses.decode(int(value))
    if isinstance(value, np.int32 | np.float32):
        return value
    raise TypeError(f"unexpected kernel argument {value!r}")


def _dims(dims: tuple) -> tuple[int, int, int]:
    x, y, z = map(int, dims)
    return x, y, z


def _launch(index: int, op: lane.KernelOp, c: KernelCall, addresses: _Addresses) -> Launch:
    args = tuple(_argument(a, addresses) for a in c.args)
    return Launch(index, op.kind, type(op), c.kernel, _dims(c.grid), _dims(c.block), args)


def bindings(step: Step, lay: Layout) -> tuple[dict[str, Binding], dict[str, Binding]]:
    """The tensors the caller feeds (inputs, weights, state) and reads back (outputs, state), and where they live."""
    feeds, results = {}, {}
    for t in step.tensors.values():
        at, elems = home_start(step, t.name, Form.PLAIN)
        p = lay.arrays.get((at, Form.PLAIN))
        if p is None:
            continue
        b = Binding(p.buffer, p.offset + ELEMENT_BYTES[t.elem] * elems, t.role, t.elem, tuple(map(int, t.shape)))
        if t.role in (Role.INPUT, Role.WEIGHT, Role.STATE):
            feeds[t.name] = b
        if t.role is Role.STATE or t.name in step.outputs:
            results[t.name] = b
    return feeds, results


def lower(op: lane.StepOp, step: Step, plan: ArenaPlan, qblock: int = QBLOCK) -> Lowered:
    """The launches of `op` (which is `step`) over the buffers of `plan`. It trusts `plan`: `codegen.placed.placed`
    verifies a placement before anything lowers it."""
    lay = layout(step, plan)
    addresses = _Addresses(lay.buffers)
    launches: list[Launch] = []
    for i, launch in enumerate(c for c in op.body.block.ops if isinstance(c, lane.LaunchOp)):
        if not isinstance(launch, lane.KernelOp):
            raise UserError(f"{where(launch)}{launch.name} {launch.kind!a}: no kernels for a generic launch")
        calls = kernels.calls(launch, _Symbolic(step, i, lay, addresses, plan.align, qblock))
        launches += [_launch(i, launch, c, addresses) for c in calls]
    feeds, results = bindings(step, lay)
    return Lowered(
        step.name,
        step.numerics,
        plan.align,
        plan.bytes,
        plan.lower_bound,
        plan.algorithm,
        lay.buffers,
        feeds,
        results,
        tuple(launches),
    )
