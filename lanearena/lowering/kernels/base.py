"""What every kind's lowering shares: a kernel call, the operands' addresses it is given, and the arguments' types."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from lanearena.errors import UserError
from lanearena.kinds import KINDS
from lanearena.model import QBLOCK, Form, Launch, Step, Tensor, Touch, Write

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
    """The device addresses of one launch's operands, which the emitter resolves (placement and views included):
    every address is that of the operand's element 0."""

    def plain(self, tensor: str) -> int:
        """Tensor `tensor`'s f32/i32 array."""

    def quant(self, tensor: str) -> tuple[int, int, int]:
        """Tensor `tensor`'s quantized array: its int8 word, its low word (0 in one word), its block's f32 scale."""

    def weight(self, tensor: str) -> tuple[int, int]:
        """Weight `tensor`'s data, f32 or (an i8 weight) Q8_0 words, and its scales (0 for f32)."""

    def scratch(self, tag: str) -> int:
        """The launch's scratch `tag`."""

    def counter(self, tag: str) -> int:
        """The launch's counter `tag`: zero before the launch, left zero by it."""


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


def fail(launch: Launch, message: str) -> UserError:
    """The error for a launch the kernels cannot run, naming where it came from."""
    return UserError(f"{launch.where or 'launch'}: {launch.kind}: {message}")


def _bound(launch: Launch) -> dict[str, str]:
    """Each operand of the launch's kind (by the name the kind gives it) and the tensor bound to it."""
    kind = KINDS[launch.kind]
    return dict(zip(kind.ins, launch.ins, strict=False)) | dict(zip(kind.outs, launch.outs, strict=False))


def operand(launch: Launch, step: Step, name: str) -> Tensor:
    """The tensor bound to launch operand `name`."""
    return step.tensors[_bound(launch)[name]]


def check_launch(launch: Launch) -> None:
    """Raises unless `launch` touches quantized only the operands its kernels take quantized, and writes a part of
    every unit (`pitch`) only where its kernels can (gemv)."""
    kind = KINDS[launch.kind]
    if "pitch" in launch.params and not kind.parts:
        raise fail(launch, "its kernels write whole rows: no pitch, start, width")
    bound = _bound(launch)
    may = {bound[o] for o in kind.quant}
    touches: tuple[Touch | Write, ...] = (*launch.reads, *launch.writes)
    wrong = sorted({t.tensor for t in touches if t.form is Form.QUANT} - may)
    if wrong:
        raise fail(launch, f"its kernels do not take {', '.join(wrong)} quantized")


def read_form(launch: Launch, tensor: str) -> Form:
    """The form `launch` reads `tensor` in."""
    forms = {t.form for t in launch.reads if t.tensor == tensor}
    if len(forms) != 1:
        raise fail(launch, f"reads '{tensor}' in {sorted(f.value for f in forms) or 'no form'}, not in one")
    return forms.pop()


def written_forms(launch: Launch, tensor: str) -> set[Form]:
    """The forms `launch` writes `tensor` in."""
    return {w.form for w in launch.writes if w.tensor == tensor}


def activation(launch: Launch, at: Operands, tensor: str) -> tuple[np.uint64, ...]:
    """The four pointers a kernel takes for an activation, in the form `launch` reads it: f32 values, or int8 words,
    low words and scales; the other form's null."""
    if read_form(launch, tensor) is Form.PLAIN:
        return ptr(at.plain(tensor)), ptr(0), ptr(0), ptr(0)
    return (ptr(0), *map(ptr, at.quant(tensor)))


def quant_out(at: Operands, tensor: str) -> tuple[np.uint64, ...]:
    """The three pointers of a quantized output: words, low words (null in one word), scales."""
    return tuple(map(ptr, at.quant(tensor)))


def weight(launch: Launch, step: Step, at: Operands, tensor: str) -> tuple[np.uint64, np.uint64]:
    """A weight's data and scales pointers (scales null for f32), checked against the tensor's element type."""
    data, scales = at.weight(tensor)
    elem = step.tensors[tensor].elem
    if (elem == "i8") != (scales != 0) or elem not in ("f32", "i8"):
        raise fail(launch, f"weight '{tensor}' of {elem} given {'no ' if not scales else ''}scales")
    return ptr(data), ptr(scales)


def quantized(launch: Launch, step: Step, k: int) -> bool:
    """Whether a product over `k` values reads a quantized operand (so works in blocks), checking k allows it."""
    q = any(t.form is Form.QUANT for t in launch.reads) or any(
        step.tensors[t.tensor].elem == "i8" for t in launch.reads
    )
    if q and k % QBLOCK:
        raise fail(launch, f"{k} values a row is not a whole number of {QBLOCK}-value blocks")
    return q


def k_part(k: int, split: int) -> int:
    """The values of k each of `split` parts takes: whole blocks, the last part what is left."""
    return cdiv(cdiv(k, split), QBLOCK) * QBLOCK
