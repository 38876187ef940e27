"""What every kind's lowering shares: a kernel call, the operands' addresses it is given, the arguments' types, and
how a kind's launcher and a kernel's numpy twin are found (`lowers` on the launcher names the op classes it lowers,
`kernel` marks a function as the twin of the CUDA kernel of its name)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

import numpy as np
from xdsl.ir import SSAValue

from lanearena.dialects.base import step_numerics, tensor_type
from lanearena.dialects.kernel import KernelOp
from lanearena.dialects.located import where
from lanearena.errors import UserError
from lanearena.model import QBLOCK, Form, Numerics

THREADS = (256, 1, 1)
"""Every kernel's block (common.cuh's THREADS): its warps and strides assume it."""

TILE = 64
"""Output columns a block of a matrix product computes (common.cuh's TILE); a split's counters count per tile."""


@dataclass(frozen=True)
class KernelCall:
    """One launch of CUDA kernel `kernel` on `grid` blocks of `block` threads, with `args` as the kernel takes them:
    pointers as `np.uint64` device addresses (0 for null), ints as `np.int32`, floats as `np.float32`."""

    kernel: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    args: tuple


class Operands(Protocol):
    """The device addresses of one launch's tensor operands (by their values in the IR), which the emitter resolves
    (placement and views included): every address is that of the operand's element 0."""

    def plain(self, tensor: SSAValue) -> int:
        """Tensor `tensor`'s f32/i32 array."""

    def quant(self, tensor: SSAValue) -> tuple[int, int, int]:
        """Tensor `tensor`'s quantized array: its int8 word, its low word (0 in one word), its block's f32 scale."""

    def weight(self, tensor: SSAValue) -> tuple[int, int]:
        """Weight `tensor`'s data, f32, bf16 or (an i8 weight) Q8_0 words, and its scales (0 but for Q8_0)."""

    def scratch(self, tag: str) -> int:
        """The launch's scratch `tag`."""

    def counter(self, tag: str) -> int:
        """The launch's counter `tag`: zero before the launch, left zero by it."""


Launcher = Callable[[Any, Operands], list[KernelCall]]
"""A kind's lowering: `launcher(op, at)` is the kernel calls, in order, that run launch `op` over the addresses `at`
gives (the op is of a class the launcher `lowers`, whose typed properties it reads)."""

L = TypeVar("L", bound=Launcher)
T = TypeVar("T", bound=Callable[..., None])

LAUNCHERS: dict[type[KernelOp], Launcher] = {}
"""Each launch kind's launcher, by its op class (filled by `lowers`)."""

KERNELS: dict[str, Callable[..., None]] = {}
"""Each CUDA kernel's numpy twin, by the name the kernel's PTX entry and the emitted launches call it (filled by
`kernel`)."""


def lowers(*kinds: type[KernelOp]) -> Callable[[L], L]:
    """Makes the decorated function the launcher of the launch kinds `kinds` (op classes, the package's or a model
    compiler's own); a kind lowered twice is refused, naming both."""

    def register(launcher: L) -> L:
        for kind in kinds:
            had = LAUNCHERS.get(kind)
            if had is not None and had is not launcher:
                raise ValueError(f"{kind.name} is lowered by {had.__qualname__} already, not {launcher.__qualname__}")
            LAUNCHERS[kind] = launcher
        return launcher

    return register


def kernel(twin: T) -> T:
    """Makes the decorated function the numpy twin of the CUDA kernel of its name: `twin(device, grid, block,
    *args)` computes on a `NumpyDevice` what the kernel computes, its arguments the kernel's."""
    had = KERNELS.get(twin.__name__)
    if had is not None and had is not twin:
        raise ValueError(f"kernel {twin.__name__} has a twin already ({had.__module__})")
    KERNELS[twin.__name__] = twin
    return twin


@dataclass(frozen=True)
class Bound:
    """A tensor operand of a launch: its value in the IR (what `Operands` resolves), and its type's shape and
    elements."""

    value: SSAValue
    shape: tuple[int, ...]
    length: int
    elem: str


def operand(op: KernelOp, name: str) -> Bound:
    """The launch's tensor operand `name`."""
    value = op.operand(name)
    t = tensor_type(value)
    return Bound(value, t.dims, t.length, t.elem)


def numerics(op: KernelOp) -> Numerics:
    """The numerics of the step the launch is in."""
    found = step_numerics(op)
    assert found is not None, "a launch lowered is in a step"
    return found


def ptr(addr: int) -> np.uint64:
    return np.uint64(addr)


class TooLarge(ValueError):
    """A size or index past what the kernels' 32-bit ints, or a CUDA grid, can count."""


I32_MAX = 2**31 - 1
GRID_LIMITS = (2**31 - 1, 65535, 65535)
"""CUDA's largest grid, a dimension at a time."""


def i32(value: int) -> np.int32:
    if not -I32_MAX - 1 <= value <= I32_MAX:
        raise TooLarge(f"{value} does not fit the kernels' 32-bit sizes and indices (at most {I32_MAX})")
    return np.int32(value)


def f32(value: float) -> np.float32:
    return np.float32(value)


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


def fail(op: KernelOp, message: str) -> UserError:
    """The error for a launch the kernels cannot run, naming where it was written."""
    return UserError(f"{where(op) or op.name + ': '}{op.kind}: {message}")


def activation(op: KernelOp, at: Operands, name: str) -> tuple[np.uint64, ...]:
    """The four pointers a kernel takes for operand `name`, an activation, in the form the launch reads it: f32
    values, or int8 words, low words and scales; the other form's null."""
    value = op.operand(name)
    if op.read_form(name) is Form.PLAIN:
        return ptr(at.plain(value)), ptr(0), ptr(0), ptr(0)
    return (ptr(0), *map(ptr, at.quant(value)))


def quant_out(at: Operands, tensor: SSAValue) -> tuple[np.uint64, ...]:
    """The three pointers of a quantized output: words, low words (null in one word), scales."""
    return tuple(map(ptr, at.quant(tensor)))


def weight(op: KernelOp, at: Operands, tensor: Bound) -> tuple[np.uint64, np.uint64]:
    """A weight's data and scales pointers (scales null for f32 and bf16), checked against the tensor's element
    type."""
    data, scales = at.weight(tensor.value)
    if (tensor.elem == "i8") != (scales != 0) or tensor.elem not in ("f32", "i8", "bf16"):
        raise fail(op, f"a weight of {tensor.elem} given {'no ' if not scales else ''}scales")
    return ptr(data), ptr(scales)


def variant(op: KernelOp, kernel: str, *weights: Bound) -> str:
    """The kernel a call over weight matrices `weights` takes: `kernel` where they are f32 or Q8_0, its bf16
    instantiation `<kernel>_bf16` where they are bf16 (one template over the weights' element, common.cuh's
    `Wrow<W>`); a call's matrices are all bf16 or none."""
    bf16 = [w.elem == "bf16" for w in weights]
    if any(bf16) and not all(bf16):
        raise fail(op, f"{kernel} reads weights of {', '.join(w.elem for w in weights)}: bf16 all or none")
    return f"{kernel}_bf16" if any(bf16) else kernel


def quantized(op: KernelOp, k: int) -> bool:
    """Whether a product over `k` values reads a quantized operand (so works in blocks), checking k allows it."""
    q = any(f is Form.QUANT for _, f in op.reads()) or any(tensor_type(v).elem == "i8" for v, _ in op.reads())
    if q and k % QBLOCK:
        raise fail(op, f"{k} values a row is not a whole number of {QBLOCK}-value blocks")
    return q


def k_part(k: int, split: int) -> int:
    """The values of k each of `split` parts takes: whole blocks, the last part what is left."""
    return cdiv(cdiv(k, split), QBLOCK) * QBLOCK
