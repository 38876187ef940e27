"""Fused launches (fused.cu): gather_norm, gemv_norm and gemv_rope; their kernel calls and numpy twins."""

from __future__ import annotations

import numpy as np

from lanearena.dialects.kernel import KernelOp
from lanearena.dialects.kinds.products import GemvNormOp, GemvRopeOp
from lanearena.dialects.kinds.rows import GatherNormOp
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
    operand,
    ptr,
    quant_out,
    quantized,
    variant,
    weight,
)
from lanearena.lowering.kernels.gemv import _blocks, _store
from lanearena.lowering.kernels.mixture_twins import _norm_into
from lanearena.lowering.kernels.rows import _table_row
from lanearena.lowering.kernels.twin import F32, I32
from lanearena.model import QBLOCK, Form

NULL = ptr(0)


def _written(op: KernelOp, at: Operands, name: str) -> tuple:
    """The plain and quantized pointers of output `name` (null where not written)."""
    forms, value = op.written_forms(name), op.operand(name)
    plain = ptr(at.plain(value)) if Form.PLAIN in forms else NULL
    return (plain, *(quant_out(at, value) if Form.QUANT in forms else (NULL,) * 3))


def _f32_gain(op: KernelOp, at: Operands) -> np.uint64:
    data, scales = weight(op, at, operand(op, "gain"))
    if scales:
        raise fail(op, "a norm's gain must be f32")
    return data


@lowers(GatherNormOp)
def gather_norm_calls(op: GatherNormOp, at: Operands) -> list[KernelCall]:
    table, ids, x = (operand(op, n) for n in ("table", "ids", "x"))
    v, d = table.shape[0], table.length // table.shape[0]
    data, scales = weight(op, at, table)
    if (scales or Form.QUANT in op.written_forms("out")) and d % QBLOCK:
        raise fail(op, f"rows of {d} values are not a whole number of {QBLOCK}-value blocks")
    args = (
        ptr(at.plain(x.value)),
        *_written(op, at, "out"),
        data,
        scales,
        ptr(at.plain(ids.value)),
        _f32_gain(op, at),
        i32(d),
        i32(v),
        f32(op.eps.value.data),
    )
    return [KernelCall(variant(op, "gather_norm", table), (ids.length, 1, 1), THREADS, args)]


@twin.weighted
def gather_norm(dev, grid, block, x, out, oh, ol, os, table, scales, ids, gain, d, v, eps) -> None:
    twin.check_block("gather_norm", block)
    d, v = int(d), int(v)
    for r in range(grid[0]):  # a block a row
        i = int(dev.download(int(ids) + r * 4, I32, 1)[0])
        row = _table_row(dev, int(table), int(scales), i, d) if 0 <= i < v else np.zeros(d, F32)
        dev.upload(int(x) + r * d * 4, row)
        _norm_into(dev, (out, oh, ol, os), r * d, dev.download(int(x) + r * d * 4, F32, d).copy(), gain, eps)


def _product(op: GemvNormOp | GemvRopeOp, at: Operands) -> tuple:
    """(rows, n, k, split, the product's arguments from x to kpart) of a fused projection."""
    x, w = operand(op, "x"), operand(op, "w")
    n, k = w.shape[0], w.length // w.shape[0]
    split = op.split.value.data
    if x.length % k or split < 1:
        raise fail(op, f"x of {x.length} values is not rows of {k}, or split {split} < 1")
    quantized(op, k)
    cut = (ptr(at.scratch("fp")), ptr(at.counter("fq"))) if split > 1 else (NULL, NULL)
    return x.length // k, n, k, split, (*activation(op, at, "x"), *weight(op, at, w), *cut)


@lowers(GemvNormOp)
def gemv_norm_calls(op: GemvNormOp, at: Operands) -> list[KernelCall]:
    rows, n, k, split, product = _product(op, at)
    if Form.QUANT in op.written_forms("normed") and n % QBLOCK:
        raise fail(op, f"rows of {n} values cannot be quantized in {QBLOCK}-value blocks")
    args = (
        ptr(at.plain(op.operand("out"))),
        *_written(op, at, "normed"),
        ptr(at.counter("gc")),
        *product,
        _f32_gain(op, at),
        i32(n),
        i32(k),
        i32(k_part(k, split)),
        f32(op.eps.value.data),
    )
    name = variant(op, "gemv_norm", operand(op, "w"))
    return [KernelCall(name, (cdiv(n, TILE), split, rows), THREADS, args)]


@twin.weighted
def gemv_norm(dev, grid, block, out, nf, nh, nl, ns, gc, x, xh, xl, xs, w, ws, fp, fq, gain, n, k, kpart, eps) -> None:
    twin.check_block("gemv_norm", block)
    tiles, split, rows = grid
    n = int(n)
    counts = twin.Counters(dev, "gemv_norm", gc, 1)
    events = tiles * (rows if split == 1 else cdiv(rows, TILE))

    def finish(c0: int, r0: int, sums: list[np.ndarray]) -> None:
        _store(dev, out, n, c0, r0, sums[0])
        if counts.arrive(slice(0, 1), events, by=rows if split == 1 else 1):
            for r in range(rows):
                _norm_into(dev, (nf, nh, nl, ns), r * n, dev.download(int(out) + r * n * 4, F32, n).copy(), gain, eps)

    _blocks(dev, grid, (x, xh, xl, xs), [(w, ws)], fp, fq, n, int(k), int(kpart), "gemv_norm", finish, TILE)


@lowers(GemvRopeOp)
def gemv_rope_calls(op: GemvRopeOp, at: Operands) -> list[KernelCall]:
    rows, n, k, split, product = _product(op, at)
    heads, kv_heads = op.heads.value.data, op.kv_heads.value.data
    hd = n // (heads + 2 * kv_heads)
    pos = operand(op, "pos")
    if hd * (heads + 2 * kv_heads) != n or hd % 2 or pos.length != rows:
        raise fail(
            op,
            f"rows of {n} values are not {heads} q, {kv_heads} k and {kv_heads} v heads of an even "
            f"size, or {pos.length} positions for {rows} rows",
        )
    args = (
        ptr(at.plain(op.operand("out"))),
        ptr(at.counter("gc")),
        *product,
        ptr(at.plain(pos.value)),
        i32(n),
        i32(k),
        i32(k_part(k, split)),
        i32(hd),
        i32(heads + kv_heads),
        f32(op.theta.value.data),
    )
    name = variant(op, "gemv_rope", operand(op, "w"))
    return [KernelCall(name, (cdiv(n, TILE), split, rows), THREADS, args)]


@twin.weighted
def gemv_rope(dev, grid, block, out, gc, x, xh, xl, xs, w, ws, fp, fq, pos, n, k, kpart, hd, turned, theta) -> None:
    twin.check_block("gemv_rope", block)
    _, split, rows = grid
    n, hd, turned = int(n), int(hd), int(turned)
    counts = twin.Counters(dev, "gemv_rope", gc, turned)
    events = rows if split == 1 else cdiv(rows, TILE)
    half = hd // 2
    freq = np.float64(theta) ** (-2.0 * np.arange(half) / hd)

    def finish(c0: int, r0: int, sums: list[np.ndarray]) -> None:
        _store(dev, out, n, c0, r0, sums[0])
        c1 = min(n, c0 + TILE)
        for head in range(c0 // hd, min(turned, cdiv(c1, hd))):
            first, last = head * hd // TILE, ((head + 1) * hd - 1) // TILE
            if not counts.arrive(slice(head, head + 1), (last - first + 1) * events, by=rows if split == 1 else 1):
                continue
            for r in range(rows):
                f = float(dev.download(int(pos) + r * 4, I32, 1)[0]) * freq
                c, s = np.cos(f).astype(F32), np.sin(f).astype(F32)
                at = int(out) + (r * n + head * hd) * 4
                a, b = np.split(dev.download(at, F32, hd), 2)
                dev.upload(at, np.concatenate([a * c - b * s, b * c + a * s]))

    _blocks(dev, grid, (x, xh, xl, xs), [(w, ws)], fp, fq, n, int(k), int(kpart), "gemv_rope", finish, TILE)
