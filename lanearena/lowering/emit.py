"""`lane-to-pycuda`'s code generator: a placed step, read from its IR (the arena, the placed tensors, each launch's
scratch and counters), as a Python module that allocates the arena once, keeps each counter in a zeroed buffer of
its own, binds every array to its buffer and offset, and launches the kernels in order.

The module runs on any device with the interface of `NumpyDevice` (`alloc`, `fill`, `upload`, `download`,
`launch`): PyCUDA's through `CudaDevice`, or the numpy runtime on the CPU."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from xdsl.ir import SSAValue

from lanearena.dialects import arena, lane
from lanearena.dialects.base import BufferDef, tensor_def
from lanearena.dialects.located import where
from lanearena.errors import UserError
from lanearena.lowering import kernels
from lanearena.lowering.kernels import KernelCall
from lanearena.model import ELEMENT_BYTES, QBLOCK, Form, aligned, array_bytes, quant_in_place, quant_parts


class _Addresses:
    """Symbolic device addresses while lowering: byte `offset` of buffer k stands for `(k + 1) << shift | offset`,
    with `shift` past every buffer's size (and a one-past-the-end address), so no two buffers' addresses meet
    whatever the sizes; a layout whose addresses would not fit 64 bits is refused."""

    def __init__(self, buffers: list[Allocation]):
        self.sizes = [b.bytes for b in buffers]
        self.shift = max(self.sizes, default=0).bit_length() + 1
        if (len(buffers) + 1).bit_length() + self.shift > 64:
            raise UserError(f"{len(buffers)} buffers of up to {max(self.sizes)} bytes do not fit 64-bit addresses")

    def encode(self, k: int, offset: int) -> int:
        return ((k + 1) << self.shift) + offset

    def decode(self, address: int) -> tuple[int, int]:
        """The buffer and offset of an address `encode` made, and any address within or one past a buffer."""
        k, offset = (address >> self.shift) - 1, address & ((1 << self.shift) - 1)
        if not 0 <= k < len(self.sizes) or offset > self.sizes[k]:
            raise AssertionError(f"address {address:#x} lies outside every buffer of the step")
        return k, offset


@dataclass(frozen=True)
class Allocation:
    """A device allocation the module makes: `name`, `bytes`, whether it starts zeroed (a counter), whether it is
    poisoned (0xFF: NaN in every f32) before the step."""

    name: str
    bytes: int
    zero: bool = False
    poison: bool = False


@dataclass(frozen=True)
class Binding:
    """Where a tensor the caller feeds or reads back lives: buffer `buffer` at `offset`, and what it holds."""

    buffer: int
    offset: int
    role: str
    elem: str
    shape: tuple[int, ...]


@dataclass
class Layout:
    """Every buffer of a placed step, and where each array starts: (buffer index, byte offset) by (tensor op, form),
    and by scratch or counter op for the launches' buffers. Allocation 0 is the arena."""

    buffers: list[Allocation]
    arrays: dict[tuple[lane.TensorDef, Form], tuple[int, int]]
    scratch: dict[BufferDef, tuple[int, int]]


def array_size(t: lane.TensorDef, form: Form, two_words: bool, align: int) -> int:
    """The aligned bytes of tensor `t`'s array `form` (a Q8_0 weight's: its words and scales)."""
    typ = t.result.type
    if typ.elem == "i8":
        return array_bytes(typ.length, Form.QUANT, False, align)
    return array_bytes(typ.length, form, two_words, align)


def layout(step: lane.StepOp, alloc: arena.AllocOp) -> Layout:
    """The buffers the placed `step` (on arena `alloc`) asks for and where every array, scratch and counter of it
    lives in them."""
    align, two = alloc.align.value.data, step.step_numerics.two_words
    buffers = [Allocation("arena", alloc.nbytes.value.data, poison=True)]
    arrays: dict[tuple[lane.TensorDef, Form], tuple[int, int]] = {}
    scratch: dict[BufferDef, tuple[int, int]] = {}
    defs = [op for op in step.body.block.ops if isinstance(op, lane.TensorDef)]
    for t in defs:
        if isinstance(t, arena.TensorOp):
            arrays |= {(t, form): (0, offset) for form, offset in t.offsets.items()}
    for t in defs:
        for form in t.own:
            arrays[(t, form)] = (len(buffers), 0)
            name = f"{t.tensor_name}:{form.value}"
            buffers.append(Allocation(name, array_size(t, form, two, align), poison=t.computed))
    outputs = _outputs(step)
    for t in defs:
        # An output or state no launch touches has no array in the plan, yet is still handed back.
        kept = t.result in outputs or t.ROLE == "state"
        if kept and t.viewed is None and (t, Form.PLAIN) not in arrays:
            arrays[(t, Form.PLAIN)] = (len(buffers), 0)
            typ = t.result.type
            nbytes = aligned(typ.length * ELEMENT_BYTES[typ.elem], align)
            buffers.append(Allocation(f"{t.tensor_name}:{Form.PLAIN.value}", nbytes, poison=t.computed))
    for i, launch in enumerate(_launches(step)):
        for b in launch.buffers:
            owner = b.owner
            if isinstance(owner, arena.ScratchOp):
                scratch[owner] = (0, owner.offset.value.data)
            elif isinstance(owner, arena.CounterOp):
                scratch[owner] = (len(buffers), 0)
                nbytes = aligned(owner.nbytes.value.data, align)
                buffers.append(Allocation(f"#{i}:{owner.tag.data}", nbytes, zero=True))
    return Layout(buffers, arrays, scratch)


def _launches(step: lane.StepOp) -> list[lane.LaunchOp]:
    return [op for op in step.body.block.ops if isinstance(op, lane.LaunchOp)]


def _outputs(step: lane.StepOp) -> set[SSAValue]:
    output = step.body.block.last_op
    return set(output.values) if isinstance(output, lane.OutputOp) else set()


def _home(value: SSAValue, form: Form, qblock: int) -> tuple[lane.TensorDef, int]:
    """The tensor whose array a touch of `value` in `form` lands in, and the elements from its start to `value`'s:
    a view's is the tensor it views, through every view, but the quantized form of a view that starts inside a
    block is its own."""
    t, elems = tensor_def(value), 0
    while (viewed := t.viewed) is not None:
        if form is Form.QUANT and not quant_in_place(t.view_offset, qblock):
            break
        elems += t.view_offset
        t = tensor_def(viewed)
    return t, elems


class _Symbolic:
    """The operands of launch `op` as the symbolic addresses of `addresses`."""

    def __init__(self, op: lane.LaunchOp, lay: Layout, addresses: _Addresses, align: int, two: bool, qblock: int):
        self.lay, self.addresses, self.align, self.two, self.qblock = lay, addresses, align, two, qblock
        self.buffers = {b.owner.tag.data: b.owner for b in op.buffers if isinstance(b.owner, BufferDef)}

    def _addr(self, where: tuple[int, int]) -> int:
        return self.addresses.encode(*where)

    def _array(self, value: SSAValue, form: Form) -> tuple[lane.TensorDef, int, int]:
        at, elems = _home(value, form, self.qblock)
        if (at, form) not in self.lay.arrays:
            raise KeyError(f"{at.tensor_name}:{form.value} has no buffer")
        return at, self._addr(self.lay.arrays[(at, form)]), elems

    def plain(self, tensor: SSAValue) -> int:
        _, base, elems = self._array(tensor, Form.PLAIN)
        return base + 4 * elems

    def quant(self, tensor: SSAValue) -> tuple[int, int, int]:
        at, base, elems = self._array(tensor, Form.QUANT)
        words, low, scales = quant_parts(base, at.result.type.length, self.two, self.align)
        return words + elems, (low + elems if low is not None else 0), scales + elems // QBLOCK * 4

    def weight(self, tensor: SSAValue) -> tuple[int, int]:
        t = tensor_def(tensor)
        base = self._addr(self.lay.arrays[(t, Form.PLAIN)])
        typ = t.result.type
        return base, (base + aligned(typ.length, self.align) if typ.elem == "i8" else 0)

    def scratch(self, tag: str) -> int:
        return self._addr(self.lay.scratch[self.buffers[tag]])

    counter = scratch


def _lit(value: str) -> str:
    """A string from the IR as a Python string literal of ASCII only: every quote, newline, NUL and non-ASCII
    character escaped, so the text can never be read as code (nor end a comment's line), and the module's source is
    ASCII whatever the locale's encoding."""
    return ascii(str(value))


def _arg(value, addresses: _Addresses) -> str:
    """A kernel argument as the emitted code writes it: a pointer as `u64(b[k] + offset)`."""
    if isinstance(value, np.uint64):
        v = int(value)
        if v == 0:
            return "u64(0)"
        k, off = addresses.decode(v)
        return f"u64(b[{k}] + {off})" if off else f"u64(b[{k}])"
    if isinstance(value, np.int32):
        return f"i32({int(value)})"
    if isinstance(value, np.float32):
        f = float(value)
        return f"f32({f!r})" if math.isfinite(f) else f"f32({_lit(repr(f))})"  # nan and inf are no literals
    raise TypeError(f"unexpected kernel argument {value!r}")


def _call(c: KernelCall, addresses: _Addresses) -> str:
    args = ", ".join(_arg(a, addresses) for a in c.args)
    grid, block = (tuple(int(n) for n in dims) for dims in (c.grid, c.block))
    return f"    dev.launch({_lit(c.kernel)}, {grid}, {block}, ({args},))"


def bindings(step: lane.StepOp, lay: Layout) -> tuple[dict[str, Binding], dict[str, Binding]]:
    """The tensors the caller feeds (inputs, weights, state) and reads back (outputs, state), and where they live."""
    feeds, results = {}, {}
    outputs = _outputs(step)
    for t in step.body.block.ops:
        if not isinstance(t, lane.TensorDef):
            continue
        at, elems = _home(t.result, Form.PLAIN, QBLOCK)
        where = lay.arrays.get((at, Form.PLAIN))
        if where is None:
            continue
        typ = t.result.type
        b = Binding(where[0], where[1] + ELEMENT_BYTES[typ.elem] * elems, t.ROLE, typ.elem, typ.dims)
        if t.ROLE in ("input", "weight", "state"):
            feeds[t.tensor_name] = b
        if t.ROLE == "state" or t.result in outputs:
            results[t.tensor_name] = b
    return feeds, results


def _names(values) -> str:
    return ", ".join(_lit(tensor_def(v).tensor_name) for v in dict.fromkeys(values))


def emit(step: lane.StepOp, qblock: int = QBLOCK) -> str:
    """The Python module that runs the placed `step` as its IR places it."""
    alloc = next(op for op in step.body.block.ops if isinstance(op, arena.AllocOp))
    lay = layout(step, alloc)
    align, numerics, launches = alloc.align.value.data, step.step_numerics, _launches(step)
    doc = (
        f"Step @{step.sym_name.data} ({numerics.value}) lowered by lanearena: {len(launches)} launches over one "
        f"arena of {alloc.nbytes.value.data} bytes\n(lower bound {alloc.lower_bound.value.data}, placed by "
        f"{alloc.algorithm.data}). Call run(device, feeds) with a NumpyDevice or a CudaDevice."
    )
    # Every name from the IR reaches the module only as a literal `_lit` makes (comments too), never as code.
    lines = [
        _lit(doc),
        "",
        "from lanearena.lowering.runtime import f32, i32, u64, run_module",
        "",
        f"STEP = {_lit(step.sym_name.data)}",
        f"NUMERICS = {_lit(numerics.value)}",
        f"ARENA_BYTES = {alloc.nbytes.value.data}",
        f"ALIGN = {align}  # of every array, and of a Q8_0 weight's parts",
        "BUFFERS = [  # name, bytes, zeroed (a counter), poisoned before the step",
        *(f"    ({_lit(b.name)}, {b.bytes}, {b.zero}, {b.poison})," for b in lay.buffers),
        "]",
    ]
    feeds, results = bindings(step, lay)
    for title, table in (("FEEDS", feeds), ("RESULTS", results)):
        lines.append(f"{title} = {{  # tensor: buffer, offset, role, element, shape")
        lines += [
            f"    {_lit(n)}: ({b.buffer}, {b.offset}, {_lit(b.role)}, {_lit(b.elem)}, {tuple(map(int, b.shape))}),"
            for n, b in table.items()
        ]
        lines.append("}")
    body, count = [], 0
    addresses = _Addresses(lay.buffers)
    for i, op in enumerate(launches):
        if not isinstance(op, lane.KernelOp):
            raise UserError(f"{where(op)}{op.name} {_lit(op.kind)}: no kernels for a generic launch")
        calls = kernels.calls(op, _Symbolic(op, lay, addresses, align, numerics.two_words, qblock))
        count += len(calls)
        ins, outs = _names(op.operand(n) for n in op.ins()), _names(op.operand(n) for n in op.WRITES)
        body.append(f"    # {i}: {_lit(op.kind)} ({ins}) -> ({outs})")
        body += [_call(c, addresses) for c in calls]
    lines.append(f"KERNEL_LAUNCHES = {count}")
    lines += ["", "", "def launches(dev, b):", '    """Every launch of the step, in order, over buffers `b`."""', *body]
    lines += [
        "",
        "",
        "def run(dev, feeds):",
        '    """Allocates the buffers on `dev`, uploads `feeds`, runs the step, and returns its outputs and state."""',
        "    return run_module(dev, feeds, BUFFERS, FEEDS, RESULTS, launches, ALIGN)",
        "",
    ]
    return "\n".join(lines)
