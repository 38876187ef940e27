"""`lane-pycuda`'s code generator: a placed step (its launch ops, and the step and arena read from its IR once, as
`lowering.compile.placed` gives them), as a Python module that allocates the arena once, keeps each counter in a
zeroed buffer of its own, binds every array to its buffer and offset, and launches the kernels in order.

The module runs on any device with the interface of `NumpyDevice` (`alloc`, `fill`, `upload`, `download`,
`launch`): PyCUDA's through `CudaDevice`, or the numpy runtime on the CPU. A module printed for `-t lane-pycuda`
carries the PTX of the kernels it launches (`ptx.modules_for`), so that it runs where only a driver is."""

from __future__ import annotations

import math
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
from lanearena.lowering.kernels import KernelCall, ptx, source
from lanearena.model import ELEMENT_BYTES, QBLOCK, Form, Role, Step, Tensor, aligned, home_start, quant_parts


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
    """Every buffer of a placed step, and where each array starts: (buffer index, byte offset) by (tensor, form),
    and by (launch, tag) for the launches' scratch and counters. Allocation 0 is the arena."""

    buffers: list[Allocation]
    arrays: dict[tuple[str, Form], tuple[int, int]]
    scratch: dict[tuple[int, str], tuple[int, int]]


def layout(step: Step, plan: ArenaPlan) -> Layout:
    """The buffers `step`, placed as `plan` places it, asks for, and where every array, scratch and counter of it
    lives in them."""
    two = step.numerics.two_words
    buffers = [Allocation("arena", plan.bytes, poison=True)]
    arrays = {(a.tensor, a.form): (0, a.offset) for a in plan.arrays}
    scratch = {(s.launch, s.tag): (0, s.offset) for s in plan.scratch}

    def own(t: Tensor, form: Form, nbytes: int) -> None:
        arrays[(t.name, form)] = (len(buffers), 0)
        buffers.append(Allocation(f"{t.name}:{form.value}", nbytes, poison=t.role is Role.COMPUTED))

    for o in plan.own:
        own(step.tensors[o.tensor], o.form, o.bytes)
    for t in step.tensors.values():
        # An output or state no launch touches has no array in the plan, yet is still handed back.
        kept = t.name in step.outputs or t.role is Role.STATE
        if kept and t.view_of is None and (t.name, Form.PLAIN) not in arrays:
            own(t, Form.PLAIN, bytes_of(t, Form.PLAIN, two, plan.align))
    for c in plan.counters:
        scratch[(c.launch, c.tag)] = (len(buffers), 0)
        buffers.append(Allocation(f"#{c.launch}:{c.tag}", aligned(c.bytes, plan.align), zero=True))
    return Layout(buffers, arrays, scratch)


def _launches(op: lane.StepOp) -> list[lane.LaunchOp]:
    return [c for c in op.body.block.ops if isinstance(c, lane.LaunchOp)]


@dataclass(frozen=True)
class _Symbolic:
    """The operands of launch `index` of `step` as the symbolic addresses of `addresses`."""

    step: Step
    index: int
    lay: Layout
    addresses: _Addresses
    align: int
    qblock: int

    def _addr(self, where: tuple[int, int]) -> int:
        return self.addresses.encode(*where)

    def _array(self, value: SSAValue, form: Form) -> tuple[Tensor, int, int]:
        at, elems = home_start(self.step, tensor_def(value).tensor_name, form, self.qblock)
        if (at, form) not in self.lay.arrays:
            raise KeyError(f"{at}:{form.value} has no buffer")
        return self.step.tensors[at], self._addr(self.lay.arrays[(at, form)]), elems

    def plain(self, tensor: SSAValue) -> int:
        _, base, elems = self._array(tensor, Form.PLAIN)
        return base + 4 * elems

    def quant(self, tensor: SSAValue) -> tuple[int, int, int]:
        at, base, elems = self._array(tensor, Form.QUANT)
        words, low, scales = quant_parts(base, at.length, self.step.numerics.two_words, self.align)
        return words + elems, (low + elems if low is not None else 0), scales + elems // QBLOCK * 4

    def weight(self, tensor: SSAValue) -> tuple[int, int]:
        t = self.step.tensors[tensor_def(tensor).tensor_name]
        base = self._addr(self.lay.arrays[(t.name, Form.PLAIN)])
        return base, (base + aligned(t.length, self.align) if t.elem == "i8" else 0)

    def scratch(self, tag: str) -> int:
        return self._addr(self.lay.scratch[(self.index, tag)])

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


def bindings(step: Step, lay: Layout) -> tuple[dict[str, Binding], dict[str, Binding]]:
    """The tensors the caller feeds (inputs, weights, state) and reads back (outputs, state), and where they live."""
    feeds, results = {}, {}
    for t in step.tensors.values():
        at, elems = home_start(step, t.name, Form.PLAIN)
        where = lay.arrays.get((at, Form.PLAIN))
        if where is None:
            continue
        b = Binding(where[0], where[1] + ELEMENT_BYTES[t.elem] * elems, t.role.value, t.elem, t.shape)
        if t.role in (Role.INPUT, Role.WEIGHT, Role.STATE):
            feeds[t.name] = b
        if t.role is Role.STATE or t.name in step.outputs:
            results[t.name] = b
    return feeds, results


def _names(values) -> str:
    return ", ".join(_lit(tensor_def(v).tensor_name) for v in dict.fromkeys(values))


def emit(op: lane.StepOp, step: Step, plan: ArenaPlan, qblock: int = QBLOCK, embed_ptx: bool = False) -> str:
    """The Python module that runs the launches of `op` (which is `step`) over the buffers of `plan`, carrying the PTX
    of the kernels it launches where `embed_ptx` (see `embedded`). It trusts `plan`: `lowering.compile.placed`
    verifies a placement before anything lowers it."""
    lay = layout(step, plan)
    align, numerics, launches = plan.align, step.numerics, _launches(op)
    doc = (
        f"Step @{step.name} ({numerics.value}) lowered by lanearena: {len(launches)} launches over one "
        f"arena of {plan.bytes} bytes\n(lower bound {plan.lower_bound}, placed by "
        f"{plan.algorithm}). Call run(device, feeds) with a NumpyDevice or a CudaDevice."
    )
    # Every name from the IR reaches the module only as a literal `_lit` makes (comments too), never as code.
    lines = [
        _lit(doc),
        "",
        "from lanearena.lowering.runtime import f32, i32, u64, run_module",
        "",
        f"STEP = {_lit(step.name)}",
        f"NUMERICS = {_lit(numerics.value)}",
        f"ARENA_BYTES = {plan.bytes}",
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
    body, launched = [], []
    addresses = _Addresses(lay.buffers)
    for i, launch in enumerate(launches):
        if not isinstance(launch, lane.KernelOp):
            raise UserError(f"{where(launch)}{launch.name} {_lit(launch.kind)}: no kernels for a generic launch")
        calls = kernels.calls(launch, _Symbolic(step, i, lay, addresses, align, qblock))
        launched += [c.kernel for c in calls]
        ins, outs = _names(launch.operand(n) for n in launch.ins()), _names(launch.operand(n) for n in launch.WRITES)
        body.append(f"    # {i}: {_lit(launch.kind)} ({ins}) -> ({outs})")
        body += [_call(c, addresses) for c in calls]
    lines.append(f"KERNEL_LAUNCHES = {len(launched)}")
    lines += ["", "", "def launches(dev, b):", '    """Every launch of the step, in order, over buffers `b`."""', *body]
    lines += [
        "",
        "",
        "def run(dev, feeds):",
        '    """Allocates the buffers on `dev`, uploads `feeds`, runs the step, and returns its outputs and state."""',
        "    return run_module(dev, feeds, BUFFERS, FEEDS, RESULTS, launches, ALIGN)",
        "",
    ]
    if embed_ptx:
        lines += embedded(launched)
    return "\n".join(lines)


def embedded(kernels: list[str]) -> list[str]:
    """The lines that give a module the PTX of launch kernels `kernels` (those a CUDA source declares; a kind's own
    without one runs on the numpy runtime only), for `ptx.provide`: built here, or where nvcc is not on PATH, a
    comment saying that a GPU compiles them from their sources."""
    declared = [k for k in dict.fromkeys(kernels) if source.declared(k)]
    if not declared:
        return []
    if not ptx.can_compile():
        return [
            "",
            "# No PTX: nvcc was not on PATH where this was printed; a CudaDevice compiles the kernels' sources.",
        ]
    modules = ptx.modules_for(declared)
    return [
        "",
        "",
        f"# The PTX of the kernels above (compute_80, PTX ISA {ptx.PTX_ISA[0]}.{ptx.PTX_ISA[1]}), by module: what a",
        "# CudaDevice loads, so that no compiler nor kernel file is needed to run the step on a GPU.",
        "from lanearena.lowering.kernels.ptx import provide  # noqa: E402",
        "",
        "PTX = {",
        *(f"    {_lit(name)}: {_lit(text)}," for name, text in modules.items()),
        "}",
        "provide(PTX)",
        "",
    ]
