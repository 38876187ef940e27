"""Products with the launches around them folded in (fused_products.cu): norm_gemv, norm_gemv_bias and gemv_add
through `gemv_fused`, norm_glu through `glu_fused`; their kernel calls and numpy twins. A twin makes the prologue's
rows with the very functions the norm's and the quantize's twins use, so the fused step's products read what the
unfused step's read, to the bit. Each kernel reads f32 or Q8_0 weights, and its `_bf16` instantiation bf16 ones
(`twin.weighted`)."""

from __future__ import annotations

import numpy as np

from lanearena.dialects.kinds.fused_products import (
    ROW_LIMIT,
    GemvAddNormOp,
    GemvAddOp,
    NormGemvBiasOp,
    NormGemvOp,
    NormGluOp,
)
from lanearena.lowering.kernels import twin
from lanearena.lowering.kernels.base import (
    THREADS,
    TILE,
    KernelCall,
    Operands,
    activation,
    cdiv,
    f32,
    fail,
    i32,
    k_part,
    lowers,
    numerics,
    operand,
    ptr,
    quant_out,
    quantized,
    variant,
    weight,
)
from lanearena.lowering.kernels.gemv import _bias, _blocks, _split, _store, biases
from lanearena.lowering.kernels.rows import _store_quantized, rms_normed
from lanearena.lowering.kernels.twin import F32
from lanearena.lowering.runtime import quant
from lanearena.model import QBLOCK, Form

NULL = ptr(0)

Prologued = NormGemvOp | NormGemvBiasOp | NormGluOp | GemvAddOp | GemvAddNormOp

NORMED = (NormGemvOp, NormGemvBiasOp, NormGluOp)
"""The kinds whose prologue norms x."""


def _shape(op: Prologued, w_name: str) -> tuple[int, int, int, int]:
    """(rows, n, k, split) of a fused product, checked (k in whole blocks where it works in them)."""
    x, w = operand(op, "x"), operand(op, w_name)
    n, k = w.shape[0], w.length // w.shape[0]
    if x.length % k:
        raise fail(op, f"x of {x.length} values is not rows of {k}")
    if op.quantize is not None and k % QBLOCK:
        raise fail(op, f"{k} values a row is not a whole number of {QBLOCK}-value blocks")
    quantized(op, k)
    return x.length // k, n, k, op.split.value.data


def _prologue(op: Prologued, at: Operands, k: int) -> tuple:
    """The arguments from x to quant: the activation's pointers, the gain (null where it is not normed), eps, and
    how the prologue quantizes (0 not, 1 in one word, 2 in two)."""
    normed = isinstance(op, NORMED)  # (gemv_add_norm's gain norms its sums, not x)
    if k > ROW_LIMIT and (op.quantize is not None or normed):
        raise fail(op, f"a prologue stages rows of at most {ROW_LIMIT} values, not {k}")
    if isinstance(op, NORMED):
        gain, scales = weight(op, at, operand(op, "gain"))
        if scales:
            raise fail(op, "a norm's gain must be f32")
        eps = f32(op.eps.value.data)
    else:
        gain, eps = NULL, f32(0)
    words = 0 if op.quantize is None else 2 if numerics(op).two_words else 1
    return (*activation(op, at, "x"), gain, eps, i32(words))


@lowers(NormGemvOp, NormGemvBiasOp, GemvAddOp)
def gemv_fused_calls(op: NormGemvOp | NormGemvBiasOp | GemvAddOp, at: Operands) -> list[KernelCall]:
    rows, n, k, split = _shape(op, "w")
    w = operand(op, "w")
    residual = ptr(at.plain(op.operand("residual"))) if "residual" in op.operand_names() else NULL
    args = (
        ptr(at.plain(op.operand("out"))),
        *_prologue(op, at, k),
        *weight(op, at, w),
        *biases(op, at, ("bias",)),
        residual,
        *_split(op, at, split, "fp", "fq"),
        i32(n),
        i32(k),
        i32(k_part(k, split)),
    )
    return [KernelCall(variant(op, "gemv_fused", w), (cdiv(n, TILE), split, rows), THREADS, args)]


@lowers(GemvAddNormOp)
def gemv_add_norm_calls(op: GemvAddNormOp, at: Operands) -> list[KernelCall]:
    rows, n, k, split = _shape(op, "w")
    w = operand(op, "w")
    forms, normed = op.written_forms("normed"), op.operand("normed")
    if Form.QUANT in forms and n % QBLOCK:
        raise fail(op, f"rows of {n} values cannot be quantized in {QBLOCK}-value blocks")
    *x_ptrs, _, _, words = _prologue(op, at, k)  # no gain: gemv_add_norm norms its sums, not x
    gain, scales = weight(op, at, operand(op, "gain"))
    if scales:
        raise fail(op, "a norm's gain must be f32")
    args = (
        ptr(at.plain(op.operand("out"))),
        ptr(at.plain(normed)) if Form.PLAIN in forms else NULL,
        *(quant_out(at, normed) if Form.QUANT in forms else (NULL,) * 3),
        ptr(at.counter("gc")),
        *x_ptrs,
        words,
        *weight(op, at, w),
        ptr(at.plain(op.operand("residual"))),
        *_split(op, at, split, "fp", "fq"),
        gain,
        f32(op.eps.value.data),
        i32(n),
        i32(k),
        i32(k_part(k, split)),
    )
    return [KernelCall(variant(op, "gemv_add_norm", w), (cdiv(n, TILE), split, rows), THREADS, args)]


@lowers(NormGluOp)
def glu_fused_calls(op: NormGluOp, at: Operands) -> list[KernelCall]:
    rows, n, k, split = _shape(op, "w_gate")
    wg, wu = operand(op, "w_gate"), operand(op, "w_up")
    forms, out = op.written_forms("out"), op.operand("out")
    if Form.QUANT in forms and n % QBLOCK:
        raise fail(op, f"rows of {n} values cannot be quantized in {QBLOCK}-value blocks")
    args = (
        ptr(at.plain(out)) if Form.PLAIN in forms else NULL,
        *(quant_out(at, out) if Form.QUANT in forms else (NULL,) * 3),
        *_prologue(op, at, k),
        *weight(op, at, wg),
        *weight(op, at, wu),
        *_split(op, at, split, "gp", "gq"),
        i32(n),
        i32(k),
        i32(k_part(k, split)),
    )
    return [KernelCall(variant(op, "glu_fused", wg, wu), (cdiv(n, TILE), split, rows), THREADS, args)]


def _staged(dev, x: tuple, gain, eps, words: int, rows: int, k: int) -> tuple | twin.Staged:
    """The rows the product reads: x's pointers as they are, or the prologue's rows (normed by `gain`, as rms_norm
    norms them, where it is not null; quantized in `words` words, as quantize quantizes them, where not 0)."""
    if not gain and not words:
        return x
    twin.require(bool(x[0]), "a prologue reads x in f32")
    values = dev.download(int(x[0]), F32, rows * k).reshape(rows, k)
    if gain:
        g = dev.download(int(gain), F32, k)
        values = np.stack([rms_normed(row, g, eps) for row in values])
    if not words:
        return twin.Staged(values)
    qs = [quant.quantize(row, two_words=words == 2) for row in values]
    lo = np.stack([q.lo for q in qs if q.lo is not None]) if words == 2 else None
    return twin.Staged(quant.Quantized(np.stack([q.hi for q in qs]), lo, np.stack([q.scales for q in qs])))


@twin.weighted
def gemv_fused(
    dev, grid, block, out, x, xh, xl, xs, gain, eps, words, w, ws, bias, residual, fp, fq, n, k, kpart
) -> None:
    twin.check_block("gemv_fused", block)
    n, k = int(n), int(k)
    a = _staged(dev, (x, xh, xl, xs), gain, eps, int(words), grid[2], k)

    def finish(c0: int, r0: int, sums: list[np.ndarray]) -> None:
        y = sums[0] + _bias(dev, bias, c0, sums[0].shape[1])
        if residual:
            y = _residual(dev, residual, n, c0, r0, y.shape) + y
        _store(dev, out, n, c0, r0, y)

    _blocks(dev, grid, a, [(w, ws)], fp, fq, n, k, int(kpart), "gemv_fused", finish, TILE)


@twin.weighted
def glu_fused(
    dev, grid, block, out, oh, ol, os, x, xh, xl, xs, gain, eps, words, wg, wgs, wu, wus, gp, gq, n, k, kpart
) -> None:
    twin.check_block("glu_fused", block)
    n, k = int(n), int(k)
    a = _staged(dev, (x, xh, xl, xs), gain, eps, int(words), grid[2], k)

    def finish(c0: int, r0: int, sums: list[np.ndarray]) -> None:
        gate, up = sums
        for r, row in enumerate(twin.silu(gate) * up):
            at = (r0 + r) * n + c0
            if out:
                dev.upload(int(out) + at * 4, row)
            if oh:
                _store_quantized(dev, (oh, ol, os), at, row)

    _blocks(dev, grid, a, [(wg, wgs), (wu, wus)], gp, gq, n, k, int(kpart), "glu_fused", finish, 1)


@twin.weighted
def gemv_add_norm(
    dev,
    grid,
    block,
    out,
    nf,
    nh,
    nl,
    ns,
    gc,
    x,
    xh,
    xl,
    xs,
    words,
    w,
    ws,
    residual,
    fp,
    fq,
    norm_gain,
    norm_eps,
    n,
    k,
    kpart,
) -> None:
    twin.check_block("gemv_add_norm", block)
    tiles, split, rows = grid
    n, k = int(n), int(k)
    a = _staged(dev, (x, xh, xl, xs), NULL, F32(0), int(words), rows, k)
    counts = twin.Counters(dev, "gemv_add_norm", gc, 1)
    tiles_done = tiles * (rows if split == 1 else cdiv(rows, TILE))

    def finish(c0: int, r0: int, sums: list[np.ndarray]) -> None:
        y = sums[0] + _residual(dev, residual, n, c0, r0, sums[0].shape)
        _store(dev, out, n, c0, r0, y)
        if counts.arrive(slice(0, 1), tiles_done, by=len(y) if split == 1 else 1):
            g = dev.download(int(norm_gain), F32, n)
            for r in range(rows):
                normed = rms_normed(dev.download(int(out) + r * n * 4, F32, n), g, norm_eps)
                if nf:
                    dev.upload(int(nf) + r * n * 4, normed)
                if nh:
                    _store_quantized(dev, (nh, nl, ns), r * n, normed)

    _blocks(dev, grid, a, [(w, ws)], fp, fq, n, k, int(kpart), "gemv_add_norm", finish, TILE)


def _residual(dev, residual, n: int, c0: int, r0: int, shape: tuple[int, int]) -> np.ndarray:
    """Columns [c0, c0 + shape[1]) of rows [r0, r0 + shape[0]) of the residual (rows of n)."""
    return np.stack([dev.download(int(residual) + ((r0 + r) * n + c0) * 4, F32, shape[1]) for r in range(shape[0])])
