"""Row-wise kinds (rows.cu): gather, norm, quantize; their kernel calls and numpy twins."""

from __future__ import annotations

import numpy as np

from lanearena.dialects.kinds.rows import GatherOp, NormOp, QuantizeOp
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
    quant_out,
    variant,
    weight,
)
from lanearena.lowering.kernels.twin import F32, I32
from lanearena.lowering.runtime import quant
from lanearena.model import QBLOCK, Form


@lowers(GatherOp)
def gather_calls(op: GatherOp, at: Operands) -> list[KernelCall]:
    table, ids, out = (operand(op, n) for n in ("table", "ids", "out"))
    v, d = table.shape[0], table.length // table.shape[0]
    data, scales = weight(op, at, table)
    if scales and d % QBLOCK:
        raise fail(op, f"a Q8_0 table row of {d} values is not a whole number of {QBLOCK}-value blocks")
    args = (ptr(at.plain(out.value)), data, scales, ptr(at.plain(ids.value)), i32(d), i32(v))
    return [KernelCall(variant(op, "gather", table), (ids.length, 1, 1), THREADS, args)]


@twin.weighted
def gather(dev, grid, block, out, table, scales, ids, d, v) -> None:
    twin.check_block("gather", block)
    d, v = int(d), int(v)
    for r in range(grid[0]):  # a block a row
        i = int(dev.download(int(ids) + r * 4, I32, 1)[0])
        twin.require(0 <= i < v, f"gather: id {i} outside a table of {v} rows")
        dev.upload(int(out) + r * d * 4, _table_row(dev, int(table), int(scales), i, d))


def _table_row(dev, table: int, scales: int, row: int, d: int) -> np.ndarray:
    w = twin.weight(dev, table, scales, row, 1, d, 0, d)
    return w[0] if isinstance(w, np.ndarray) else quant.dequantize(quant.Quantized(w.hi[0], None, w.scales[0]))


@lowers(NormOp)
def norm_calls(op: NormOp, at: Operands) -> list[KernelCall]:
    x, gain, out = (operand(op, n) for n in ("x", "gain", "out"))
    d = gain.length
    forms = op.written_forms("out")
    if Form.QUANT in forms and d % QBLOCK:
        raise fail(op, f"a row of {d} values cannot be quantized in {QBLOCK}-value blocks")
    plain = ptr(at.plain(out.value)) if Form.PLAIN in forms else ptr(0)
    q = quant_out(at, out.value) if Form.QUANT in forms else (ptr(0),) * 3
    gain_data, gain_scales = weight(op, at, gain)
    if gain_scales:
        raise fail(op, "a norm's gain must be f32")
    args = (plain, *q, ptr(at.plain(x.value)), gain_data, i32(d), f32(op.eps.value.data))
    return [KernelCall("rms_norm", (x.length // d, 1, 1), THREADS, args)]


@kernel
def rms_norm(dev, grid, block, out, oh, ol, os, x, gain, d, eps) -> None:
    twin.check_block("rms_norm", block)
    d = int(d)
    for r in range(grid[0]):  # a block a row
        y = rms_normed(dev.download(int(x) + r * d * 4, F32, d), dev.download(int(gain), F32, d), eps)
        if out:
            dev.upload(int(out) + r * d * 4, y)
        if oh:
            _store_quantized(dev, (oh, ol, os), r * d, y)


def rms_normed(x: np.ndarray, gain: np.ndarray, eps: np.float32) -> np.ndarray:
    """A row `x` over its root mean square (f32 throughout, eps inside the root), times `gain`."""
    inv = F32(1) / np.sqrt((x * x).sum(dtype=F32) / F32(x.size) + eps)
    return x * inv * gain


def _store_quantized(dev, ptrs: tuple, at: int, values: np.ndarray) -> None:
    """`values` quantized into the quantized array at `ptrs` (words, low words, scales) from value `at` on."""
    hi, lo, scales = (int(p) for p in ptrs)
    q = quant.quantize(values, two_words=bool(lo))
    dev.upload(hi + at, q.hi)
    if lo:
        dev.upload(lo + at, q.lo)
    dev.upload(scales + at // QBLOCK * 4, q.scales)


@lowers(QuantizeOp)
def quantize_calls(op: QuantizeOp, at: Operands) -> list[KernelCall]:
    x, out = operand(op, "x"), operand(op, "out")
    if x.length % QBLOCK:
        raise fail(op, f"{x.length} values are not a whole number of {QBLOCK}-value blocks")
    return [quantize_call(ptr(at.plain(x.value)), quant_out(at, out.value), x.length)]


def quantize_call(x: np.uint64, out: tuple, n: int) -> KernelCall:
    """The call that quantizes `n` f32 values at `x` into the quantized array at `out` (words, low words, scales)."""
    return KernelCall("quantize", (cdiv(n, THREADS[0]), 1, 1), THREADS, (*out, x, i32(n)))


@kernel
def quantize(dev, grid, block, oh, ol, os, x, n) -> None:
    twin.check_block("quantize", block)
    n, each = int(n), THREADS[0]
    twin.require(grid[0] == cdiv(n, each), f"quantize: grid {grid} for {n} values")
    for b in range(grid[0]):  # a block THREADS values
        at = b * each
        _store_quantized(dev, (oh, ol, os), at, dev.download(int(x) + at * 4, F32, min(each, n - at)))
