"""Projections in the tiles of the seed's tensor-core projections (tiles.cu): gemm_tc and glu_tc, their last wave's
tiles cut along k, and a batch's gated pair with its gate and up sums apart; their kernel calls and numpy twins."""

from __future__ import annotations

import numpy as np

from lanearena.dialects.kinds.products import GemmTcOp, GluTcOp
from lanearena.kernel_shapes import GEMM_TILE_N, gemm_rows, gemm_tiles_wide
from lanearena.lowering.kernels import twin
from lanearena.lowering.kernels.base import (
    THREADS,
    TILE,
    KernelCall,
    Operands,
    activation,
    cdiv,
    fail,
    i32,
    k_part,
    kernel,
    lowers,
    numerics,
    operand,
    ptr,
    quantized,
    variant,
    weight,
)
from lanearena.lowering.kernels.twin import F32

NULL = ptr(0)


@lowers(GemmTcOp, GluTcOp)
def tiles_calls(op: GemmTcOp | GluTcOp, at: Operands) -> list[KernelCall]:
    gated = isinstance(op, GluTcOp)
    x, w, out = (operand(op, n) for n in ("x", "w_gate" if gated else "w", "out"))
    n, k = w.shape[0], w.length // w.shape[0]
    if x.length % k:
        raise fail(op, f"x of {x.length} values is not rows of {k}")
    m = x.length // k
    quantized(op, k)
    split, whole = op.split.value.data, op.whole.value.data
    up = operand(op, "w_up") if gated else None
    matrices = (w,) if up is None else (w, up)
    weights = (*weight(op, at, w), *(weight(op, at, up) if up is not None else (NULL, NULL)))
    xs = activation(op, at, "x")
    if split > 1:
        rt, wide = gemm_rows(m, numerics(op)), gemm_tiles_wide(2 * n if gated else n)
        tiles = wide * cdiv(m, rt)
        if not 0 <= whole < tiles:
            raise fail(op, f"whole {whole} leaves none of its {tiles} tiles to cut")
        args = (
            ptr(at.plain(out.value)),
            *xs,
            *weights,
            ptr(at.scratch("tp")),
            ptr(at.counter("tc")),
            i32(n),
            i32(k),
            i32(m),
            i32(rt),
            i32(wide),
            i32(whole),
            i32(split),
            i32(k_part(k, split)),
        )
        return [
            KernelCall(variant(op, "gemm_tiles", *matrices), (whole + (tiles - whole) * split, 1, 1), THREADS, args)
        ]
    if gated and m > 1:
        mg, mu = ptr(at.scratch("mg")), ptr(at.scratch("mu"))
        return [
            KernelCall(
                variant(op, "glu_sums", *matrices),
                (cdiv(n, TILE), m, 1),
                THREADS,
                (mg, mu, *xs, *weights, i32(n), i32(k)),
            ),
            KernelCall(
                "glu_gated", (cdiv(m * n, THREADS[0]), 1, 1), THREADS, (ptr(at.plain(out.value)), mg, mu, i32(m * n))
            ),
        ]
    if gated:
        return [
            KernelCall(
                variant(op, "glu", *matrices),
                (cdiv(n, TILE), 1, m),
                THREADS,
                (ptr(at.plain(out.value)), *xs, *weights, NULL, NULL, NULL, NULL, i32(n), i32(k), i32(k)),
            )
        ]
    return [
        KernelCall(
            variant(op, "gemv", w),
            (cdiv(n, TILE), 1, m),
            THREADS,
            (ptr(at.plain(out.value)), i32(n), *xs, *weights[:2], NULL, NULL, NULL, i32(n), i32(k), i32(k)),
        )
    ]


def _sums(dev, x: tuple, weights: list, rows: range, k: int, k0: int, k1: int, c0: int, n: int, outs: int):
    """[rows, GEMM_TILE_N] sums of a tile: each weight's columns [c0, c0 + outs) side by side (0 past n)."""
    a = twin.activation(dev, x, rows, k, k0, k1)
    got = np.zeros((len(rows), GEMM_TILE_N), F32)
    c1 = min(n, c0 + outs)
    for i, (w, ws) in enumerate(weights):
        got[:, i * outs : i * outs + c1 - c0] = twin.dot(a, twin.weight(dev, w, ws, c0, c1 - c0, k, k0, k1))
    return got


def _finish(dev, out: int, sums: np.ndarray, n: int, r0: int, c0: int, outs: int, gated: bool) -> None:
    c1 = min(n, c0 + outs)
    values = twin.silu(sums[:, : c1 - c0]) * sums[:, outs : outs + c1 - c0] if gated else sums[:, : c1 - c0]
    for i, row in enumerate(values):
        dev.upload(out + ((r0 + i) * n + c0) * 4, row.astype(F32))


@twin.weighted
def gemm_tiles(
    dev, grid, block, out, x, xh, xl, xs, w, ws, wu, wus, tp, tc, n, k, m, rt, wide, whole, split, kpart
) -> None:
    twin.check_block("gemm_tiles", block)
    n, k, m, rt, wide, whole, split, kpart = map(int, (n, k, m, rt, wide, whole, split, kpart))
    gated = bool(wu)
    outs = GEMM_TILE_N // 2 if gated else GEMM_TILE_N
    weights = [(w, ws)] + ([(wu, wus)] if gated else [])
    tiles = (grid[0] - whole) // split + whole
    counts = twin.Counters(dev, "gemm_tiles", tc, tiles - whole)
    for b in range(grid[0]):  # a block a whole tile or a part of a cut one
        cut = b >= whole
        tile, part = (whole + (b - whole) // split, (b - whole) % split) if cut else (b, 0)
        r0, c0 = tile // wide * rt, tile % wide * outs
        rows = range(r0, min(m, r0 + rt))
        k0, k1 = (part * kpart, min(k, (part + 1) * kpart)) if cut else (0, k)
        sums = _sums(dev, (x, xh, xl, xs), weights, rows, k, k0, k1, c0, n, outs)
        if not cut:
            _finish(dev, int(out), sums, n, r0, c0, outs, gated)
            continue
        parts = dev.view(int(tp) + (tile - whole) * split * rt * GEMM_TILE_N * 4, F32, split * rt * GEMM_TILE_N)
        parts = parts.reshape(split, rt, GEMM_TILE_N)
        parts[part, : len(rows)] = sums
        if counts.arrive(slice(tile - whole, tile - whole + 1), split):
            parts[0] = twin.sum_in_order(parts.copy())
            _finish(dev, int(out), parts[0, : len(rows)], n, r0, c0, outs, gated)


@twin.weighted
def glu_sums(dev, grid, block, mg, mu, x, xh, xl, xs, wg, wgs, wu, wus, n, k) -> None:
    twin.check_block("glu_sums", block)
    n, k = int(n), int(k)
    for r, tile in np.ndindex(grid[1], grid[0]):  # a block a tile of a row
        c0, c1 = tile * TILE, min(n, (tile + 1) * TILE)
        a = twin.activation(dev, (x, xh, xl, xs), range(r, r + 1), k, 0, k)
        for sums, (w, ws) in ((mg, (wg, wgs)), (mu, (wu, wus))):
            dev.upload(int(sums) + (r * n + c0) * 4, twin.dot(a, twin.weight(dev, w, ws, c0, c1 - c0, k, 0, k))[0])


@kernel
def glu_gated(dev, grid, block, out, mg, mu, count) -> None:
    twin.check_block("glu_gated", block)
    count, each = int(count), THREADS[0]
    for at in range(0, count, each):  # a block THREADS values
        c = min(each, count - at)
        g, u = dev.download(int(mg) + at * 4, F32, c), dev.download(int(mu) + at * 4, F32, c)
        dev.upload(int(out) + at * 4, twin.silu(g) * u)
