"""An expert mixture (moe.cu): router logits and top-k choices, each choice's gated hidden row (quantized under int8
numerics), and the choices' down projections weighed by their gates; its kernel calls and numpy twins."""

from __future__ import annotations

import numpy as np

from lanearena.dialects.kinds.mixtures import MoeOp
from lanearena.lowering.kernels import mixture, twin
from lanearena.lowering.kernels.base import (
    THREADS,
    TILE,
    KernelCall,
    Operands,
    activation,
    cdiv,
    fail,
    i32,
    lowers,
    numerics,
    operand,
    ptr,
    quantized,
    variant,
    weight,
)
from lanearena.lowering.kernels.rows import quantize_call
from lanearena.lowering.kernels.twin import F32, I32
from lanearena.model import QBLOCK

TOPK_MAX = 32
"""The most choices a row may make (moe.cu's TOPK_MAX)."""

WARPS = THREADS[0] // 32
"""Router logits a block computes: one a warp."""


@lowers(MoeOp)
def moe_calls(op: MoeOp, at: Operands) -> list[KernelCall]:
    x, wr, wg, wu, wd, out = (operand(op, n) for n in ("x", "w_router", "w_gate", "w_up", "w_down", "out"))
    experts, topk = op.experts.value.data, op.topk.value.data
    _, f, d = wg.shape
    rows = x.length // d
    if rows > 1:  # a block's rows grouped by expert
        return mixture.batched_calls(op, at)
    if wr.shape != (experts, d) or wu.shape != wg.shape or wd.shape != (experts, d, f) or out.length != x.length:
        raise fail(
            op,
            f"weights {wr.shape}, {wg.shape}, {wu.shape}, {wd.shape} do not make a mixture of "
            f"{experts} experts over rows of {d} ({x.length} values)",
        )
    if not 1 <= topk <= min(experts, TOPK_MAX) or rows * d != x.length:
        raise fail(op, f"top {topk} of {experts} experts (at most {TOPK_MAX}), or {x.length} values not rows")
    if (quantized(op, d) or op.quantizes_rows(numerics(op))) and f % QBLOCK:
        raise fail(op, f"hidden rows of {f} values are not a whole number of {QBLOCK}-value blocks")
    router, router_scales = weight(op, at, wr)
    if router_scales:
        raise fail(op, "the router must be f32 or bf16")
    xs = activation(op, at, "x")
    ids, gates, h = ptr(at.scratch("i")), ptr(at.scratch("g")), ptr(at.scratch("h"))
    sizes = (i32(d), i32(f), i32(topk))
    calls = [
        KernelCall(
            variant(op, "moe_route", wr),
            (cdiv(experts, WARPS), rows, 1),
            THREADS,
            (
                ptr(at.scratch("rl")),
                ids,
                gates,
                ptr(at.counter("rc")),
                *xs,
                router,
                i32(d),
                i32(experts),
                i32(topk),
                mixture.over_all(op),
            ),
        ),
        KernelCall(
            variant(op, "moe_hidden", wg, wu),
            (cdiv(f, TILE), topk, rows),
            THREADS,
            (h, *xs, ids, *weight(op, at, wg), *weight(op, at, wu), *sizes),
        ),
    ]
    hidden = (h, ptr(0), ptr(0), ptr(0))
    if op.quantizes_rows(numerics(op)):
        hq = (ptr(at.scratch("hq")), ptr(at.scratch("hl") if numerics(op).two_words else 0), ptr(at.scratch("hs")))
        calls.append(quantize_call(h, hq, rows * topk * f))
        hidden = (ptr(0), *hq)
    calls.append(
        KernelCall(
            variant(op, "moe_down", wd),
            (cdiv(d, TILE), rows, 1),
            THREADS,
            (ptr(at.plain(out.value)), *hidden, ids, gates, *weight(op, at, wd), *sizes),
        )
    )
    return calls


@twin.weighted
def moe_route(dev, grid, block, rl, ids, gates, rc, x, xh, xl, xs, wr, d, experts, topk, over_all) -> None:
    twin.check_block("moe_route", block)
    blocks, rows = grid[0], grid[1]
    d, experts, topk = int(d), int(experts), int(topk)
    twin.require(blocks == cdiv(experts, WARPS), f"moe_route: {blocks} blocks for {experts} experts")
    counts = twin.Counters(dev, "moe_route", rc, rows)
    for r, b in np.ndindex(rows, blocks):  # a block WARPS experts of a row
        e0, e1 = b * WARPS, min(experts, (b + 1) * WARPS)
        a = twin.activation(dev, (x, xh, xl, xs), range(r, r + 1), d, 0, d)
        dev.upload(int(rl) + (r * experts + e0) * 4, twin.dot(a, twin.weight(dev, wr, 0, e0, e1 - e0, d, 0, d))[0])
        if counts.arrive(slice(r, r + 1), blocks):
            at = (int(rl) + r * experts * 4, int(ids) + r * topk * 4, int(gates) + r * topk * 4)
            _choose(dev, *at, experts, topk, over_all)


def _choose(dev, logits: int, ids: int, gates: int, experts: int, topk: int, over_all) -> None:
    """The last block of a row: its `topk` largest logits (ties to the lower expert) picked one by one, each written
    as it is picked, and their gates."""
    picked: list[int] = []
    for j in range(topk):
        free = np.setdiff1d(np.arange(experts), picked)
        best = int(free[np.argmax(dev.download(logits, F32, experts)[free])])  # argmax: the first of equals
        picked.append(best)
        dev.upload(ids + j * 4, np.array([best], I32))
    dev.upload(gates, mixture.gates_of(dev.download(logits, F32, experts), picked, over_all))


@twin.weighted
def moe_hidden(dev, grid, block, h, x, xh, xl, xs, ids, wg, wgs, wu, wus, d, f, topk) -> None:
    twin.check_block("moe_hidden", block)
    tiles, topk, rows = grid
    d, f = int(d), int(f)
    for r, j, tile in np.ndindex(rows, topk, tiles):  # a block a tile of a choice's hidden row
        choice, c0, c1 = r * topk + j, tile * TILE, min(f, (tile + 1) * TILE)
        e = int(dev.download(int(ids) + choice * 4, I32, 1)[0])
        a = twin.activation(dev, (x, xh, xl, xs), range(r, r + 1), d, 0, d)
        g = twin.dot(a, twin.weight(dev, wg, wgs, e * f + c0, c1 - c0, d, 0, d))[0]
        u = twin.dot(a, twin.weight(dev, wu, wus, e * f + c0, c1 - c0, d, 0, d))[0]
        dev.upload(int(h) + (choice * f + c0) * 4, twin.silu(g) * u)


@twin.weighted
def moe_down(dev, grid, block, out, h, hh, hl, hs, ids, gates, wd, wds, d, f, topk) -> None:
    twin.check_block("moe_down", block)
    tiles, rows = grid[0], grid[1]
    d, f, topk = int(d), int(f), int(topk)
    for r, tile in np.ndindex(rows, tiles):  # a block a tile of a row
        c0, c1 = tile * TILE, min(d, (tile + 1) * TILE)
        chosen = dev.download(int(ids) + r * topk * 4, I32, topk)
        weights = dev.download(int(gates) + r * topk * 4, F32, topk)
        acc = np.zeros(c1 - c0, F32)
        for j, e in enumerate(chosen):
            a = twin.activation(dev, (h, hh, hl, hs), range(r * topk + j, r * topk + j + 1), f, 0, f)
            acc += weights[j] * twin.dot(a, twin.weight(dev, wd, wds, int(e) * d + c0, c1 - c0, f, 0, f))[0]
        dev.upload(int(out) + (r * d + c0) * 4, acc)
