"""Value-wise kinds (pointwise.cu): binary and rope; their kernel calls and numpy twins."""

from __future__ import annotations

import numpy as np

from lanearena.dialects.attrs import BinaryKind, ScalingKind
from lanearena.dialects.kinds.rows import BinaryOp, RopeOp
from lanearena.lowering.kernels import twin
from lanearena.lowering.kernels.base import (
    THREADS,
    KernelCall,
    Operands,
    cdiv,
    f32,
    fail,
    i32,
    kernel,
    lowers,
    operand,
    ptr,
)
from lanearena.lowering.kernels.twin import F32, I32

BINARY_OPS = tuple(BinaryKind)
"""The element-wise ops by the index the kernel takes."""

SCALINGS = tuple(ScalingKind)
"""A rotation's frequency scalings by the index the kernel takes."""


@lowers(BinaryOp)
def binary_calls(op: BinaryOp, at: Operands) -> list[KernelCall]:
    a, b, out = (operand(op, n) for n in ("a", "b", "out"))
    how = op.op.data
    if not a.length == b.length == out.length:
        raise fail(op, f"operands of {a.length}, {b.length} and {out.length} values")
    n = out.length
    pointers = (ptr(at.plain(t.value)) for t in (out, a, b))
    args = (*pointers, i32(n), i32(BINARY_OPS.index(how)))
    return [KernelCall("binary", (cdiv(n, THREADS[0]), 1, 1), THREADS, args)]


@kernel
def binary(dev, grid, block, out, a, b, n, op) -> None:
    twin.check_block("binary", block)
    n, each = int(n), THREADS[0]
    twin.require(grid[0] == cdiv(n, each), f"binary: grid {grid} for {n} values")
    for at in range(0, n, each):  # a block THREADS values
        count = min(each, n - at)
        x, y = dev.download(int(a) + at * 4, F32, count), dev.download(int(b) + at * 4, F32, count)
        how = BINARY_OPS[op]
        dev.upload(
            int(out) + at * 4, x * y if how is BinaryKind.MUL else _gated(x, y) if how is BinaryKind.GATE else x + y
        )


def _gated(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a * sigmoid(b), as the kernel computes it: a / (1 + exp(-b))."""
    with np.errstate(over="ignore"):
        return a / (F32(1) + np.exp(-b))


@lowers(RopeOp)
def rope_calls(op: RopeOp, at: Operands) -> list[KernelCall]:
    pos, x = operand(op, "pos"), operand(op, "x")
    heads, rows = op.heads.value.data, pos.length
    hd = x.length // (rows * heads)
    rot = op.rotary.value.data or hd
    if hd % 2 or hd * heads * rows != x.length or rot % 2 or rot > hd:
        raise fail(
            op,
            f"{x.length} values are not {rows} rows of {heads} heads of an even size, or they do not "
            f"hold an even {rot} values to turn",
        )
    bands = (f32(p.value.data) for p in (op.factor, op.low_freq, op.high_freq))
    scaling = (i32(SCALINGS.index(op.scaling.data)), *bands)
    args = (ptr(at.plain(x.value)), ptr(at.plain(pos.value)), i32(heads), i32(hd), i32(rot), f32(op.theta.value.data))
    return [KernelCall("rope", (heads, rows, 1), THREADS, (*args, *scaling, i32(op.original.value.data)))]


def frequencies(
    rot: int, theta: float, scaling: int, factor: float, low: float, high: float, original: float, n: int
) -> np.ndarray:
    """The angle each of the `rot` / 2 pairs turns at a position, in float64, as the kernel's `frequency` takes it
    (`n`: the step's last position + 1, which a dynamic base grows by)."""
    scaled = SCALINGS[scaling]
    if scaled is ScalingKind.DYNAMIC and n > original:
        theta *= (factor * n / original - (factor - 1)) ** (rot / (rot - 2))
    f = theta ** (-2.0 * np.arange(rot // 2) / rot)
    if scaled is ScalingKind.LINEAR:
        return f / factor
    if scaled is not ScalingKind.LLAMA3:
        return f
    wavelength = 2 * np.pi / f
    s = (original / wavelength - low) / (high - low)
    blended = (1 - s) * f / factor + s * f
    return np.where(wavelength > original / low, f / factor, np.where(wavelength < original / high, f, blended))


@kernel
def rope(dev, grid, block, x, pos, heads, hd, rot, theta, scaling, factor, low, high, original) -> None:
    twin.check_block("rope", block)
    heads, rows = grid[0], grid[1]
    hd, rot = int(hd), int(rot)
    positions = dev.download(int(pos), I32, rows)
    n = int(positions.max()) + 1
    freq = frequencies(rot, float(theta), int(scaling), float(factor), float(low), float(high), float(original), n)
    for r in range(rows):
        f = float(positions[r]) * freq
        c, s = np.cos(f).astype(F32), np.sin(f).astype(F32)
        for h in range(heads):  # a block a head of a row
            at = int(x) + (r * heads + h) * hd * 4
            a, b = np.split(dev.download(at, F32, rot), 2)
            dev.upload(at, np.concatenate([a * c - b * s, b * c + a * s]))
