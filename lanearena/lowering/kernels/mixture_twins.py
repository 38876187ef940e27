"""The numpy twins of mixture.cu's kernels (their calls are in `mixture`): pick each row's experts, group the rows by
expert, gather them, their hidden rows, the weighed rows, and combine (with the residual, the next norm and the
shared expert where fused)."""

from __future__ import annotations

import numpy as np

from lanearena.lowering.kernels import twin
from lanearena.lowering.kernels.base import TILE, kernel
from lanearena.lowering.kernels.mixture import gates_of
from lanearena.lowering.kernels.rows import _store_quantized
from lanearena.lowering.kernels.twin import F32, I32
from lanearena.model import QBLOCK


def _rank_first(values: np.ndarray) -> int:
    """The index that ranks first: the first NaN, else the largest, ties to the lowest index (numpy's argmax)."""
    return int(np.argmax(values))


def _pick(dev, row: int, ids: int, gates: int, experts: int, topk: int, over_all) -> None:
    logits = dev.download(row, F32, experts)
    picked: list[int] = []
    for _ in range(topk):
        free = np.setdiff1d(np.arange(experts), picked)
        picked.append(int(free[_rank_first(logits[free])]))
    dev.upload(ids, np.array(picked, I32))
    dev.upload(gates, gates_of(logits, picked, over_all))


@kernel
def mix_pick(dev, grid, block, ids, gates, rc, rl, experts, topk, over_all) -> None:
    twin.check_block("mix_pick", block)
    rows, experts, topk = grid[1], int(experts), int(topk)
    counts = twin.Counters(dev, "mix_pick", rc, rows)
    for r in range(rows):  # a block a row
        twin.require(counts.arrive(slice(r, r + 1), 1), "mix_pick: one block a row")
        at = (int(rl) + r * experts * 4, int(ids) + r * topk * 4, int(gates) + r * topk * 4)
        _pick(dev, *at, experts, topk, over_all)


@kernel
def mix_group(dev, grid, block, ec, eo, el, ep, ids, experts, choices) -> None:
    twin.check_block("mix_group", block)
    experts, choices = int(experts), int(choices)
    chosen = dev.download(int(ids), I32, choices)
    if not ((chosen >= 0) & (chosen < experts)).all():  # (the message, which prints the choices, only then)
        twin.require(False, f"mix_group: choices {chosen} outside {experts} experts")
    counts = np.bincount(chosen, minlength=experts).astype(I32)
    starts = np.concatenate([[0], np.cumsum(counts)]).astype(I32)
    order = np.argsort(chosen, kind="stable").astype(I32)
    places = np.empty(choices, I32)
    places[order] = np.arange(choices, dtype=I32)
    for addr, values in ((ec, counts), (eo, starts), (el, order), (ep, places)):
        dev.upload(int(addr), values)


@kernel
def mix_gather(dev, grid, block, gx, gq, gl, gs, x, xh, xl, xs, el, d, topk) -> None:
    twin.check_block("mix_gather", block)
    d, topk = int(d), int(topk)
    for place in range(grid[0]):  # a block a place
        row = int(dev.download(int(el) + place * 4, I32, 1)[0]) // topk
        a = twin.activation(dev, (x, xh, xl, xs), range(row, row + 1), d, 0, d)
        if gx:
            values = a[0] if isinstance(a, np.ndarray) else _dequantized(a)
            dev.upload(int(gx) + place * d * 4, values)
        elif isinstance(a, np.ndarray):
            _store_quantized(dev, (gq, gl, gs), place * d, a[0])
        else:
            dev.upload(int(gq) + place * d, a.hi[0])
            if gl:
                dev.upload(int(gl) + place * d, a.lo[0] if a.lo is not None else np.zeros(d, np.int8))
            dev.upload(int(gs) + place * d // QBLOCK * 4, a.scales[0])


def _dequantized(a) -> np.ndarray:
    """A quantized row's values as mix_gather's f32 copy makes them: scale * (hi + lo / 127)."""
    v = a.hi[0].astype(F32)
    if a.lo is not None:
        v = v + a.lo[0].astype(F32) / F32(127)
    return np.repeat(a.scales[0], QBLOCK) * v


@twin.weighted
def mix_hidden(dev, grid, block, h, gx, gq, gl, gs, ids, el, wg, wgs, wu, wus, d, f) -> None:
    twin.check_block("mix_hidden", block)
    tiles, places = grid[0], grid[1]
    d, f = int(d), int(f)
    for place, tile in np.ndindex(places, tiles):  # a block a tile of a place's hidden row
        c0, c1 = tile * TILE, min(f, (tile + 1) * TILE)
        choice = int(dev.download(int(el) + place * 4, I32, 1)[0])
        e = int(dev.download(int(ids) + choice * 4, I32, 1)[0])
        a = twin.activation(dev, (gx, gq, gl, gs), range(place, place + 1), d, 0, d)
        g = twin.dot(a, twin.weight(dev, wg, wgs, e * f + c0, c1 - c0, d, 0, d))[0]
        u = twin.dot(a, twin.weight(dev, wu, wus, e * f + c0, c1 - c0, d, 0, d))[0]
        dev.upload(int(h) + (place * f + c0) * 4, twin.silu(g) * u)


@twin.weighted
def mix_weigh(dev, grid, block, pa, h, hh, hl, hs, ids, gates, el, wd, wds, d, f) -> None:
    twin.check_block("mix_weigh", block)
    tiles, places = grid[0], grid[1]
    d, f = int(d), int(f)
    for place, tile in np.ndindex(places, tiles):  # a block a tile of a place's weighed row
        c0, c1 = tile * TILE, min(d, (tile + 1) * TILE)
        choice = int(dev.download(int(el) + place * 4, I32, 1)[0])
        e = int(dev.download(int(ids) + choice * 4, I32, 1)[0])
        gate = dev.download(int(gates) + choice * 4, F32, 1)[0]
        a = twin.activation(dev, (h, hh, hl, hs), range(place, place + 1), f, 0, f)
        s = twin.dot(a, twin.weight(dev, wd, wds, e * d + c0, c1 - c0, f, 0, f))[0]
        dev.upload(int(pa) + (place * d + c0) * 4, gate * s)


def _norm_into(dev, ptrs: tuple, at: int, y: np.ndarray, gain: int, eps) -> None:
    """`y` RMS-normed with `gain`, written plain and quantized where their pointers (np, nh, nl, ns) are given."""
    nf, nh, nl, ns = (int(p) for p in ptrs)
    d = y.size
    inv = F32(1) / np.sqrt((y * y).sum(dtype=F32) / F32(d) + eps)
    normed = y * inv * dev.download(int(gain), F32, d)
    if nf:
        dev.upload(nf + at * 4, normed)
    if nh:
        _store_quantized(dev, (nh, nl, ns), at, normed)


@twin.weighted
def mix_combine(
    dev,
    grid,
    block,
    out,
    nf,
    nh,
    nl,
    ns,
    pa,
    ep,
    residual,
    gain,
    hsh,
    hsh_h,
    hsh_l,
    hsh_s,
    wsd,
    wsds,
    wsr,
    x,
    xh,
    xl,
    xs,
    d,
    fs,
    topk,
    eps,
) -> None:
    twin.check_block("mix_combine", block)
    d, fs, topk = int(d), int(fs), int(topk)
    for r in range(grid[0]):  # a block a row
        y = dev.download(int(residual) + r * d * 4, F32, d).copy() if residual else np.zeros(d, F32)
        if wsd:
            xa = twin.activation(dev, (x, xh, xl, xs), range(r, r + 1), d, 0, d)
            logit = twin.dot(xa, twin.weight(dev, wsr, 0, 0, 1, d, 0, d))[0, 0]
            with np.errstate(over="ignore"):
                gate = F32(1) / (F32(1) + np.exp(-logit))
            a = twin.activation(dev, (hsh, hsh_h, hsh_l, hsh_s), range(r, r + 1), fs, 0, fs)
            y = y + gate * twin.dot(a, twin.weight(dev, wsd, wsds, 0, d, fs, 0, fs))[0]
        for place in dev.download(int(ep) + r * topk * 4, I32, topk):
            y += dev.download(int(pa) + int(place) * d * 4, F32, d)
        dev.upload(int(out) + r * d * 4, y)
        if gain:
            _norm_into(dev, (nf, nh, nl, ns), r * d, y, gain, eps)


@twin.weighted
def mix_down(
    dev,
    grid,
    block,
    out,
    nf,
    nh,
    nl,
    ns,
    gc,
    h,
    hh,
    hl,
    hs,
    ids,
    gates,
    wd,
    wds,
    wsd,
    wsds,
    wsr,
    x,
    xh,
    xl,
    xs,
    residual,
    gain,
    d,
    f,
    fs,
    topk,
    eps,
) -> None:
    twin.check_block("mix_down", block)
    d, f, fs, topk = int(d), int(f), int(fs), int(topk)
    tiles = grid[0]
    counts = twin.Counters(dev, "mix_down", gc, 1) if gain else None
    for tile in range(tiles):  # a block a tile of the row
        c0, c1 = tile * TILE, min(d, (tile + 1) * TILE)
        chosen = dev.download(int(ids), I32, topk)
        weights = dev.download(int(gates), F32, topk)
        hidden = (h, hh, hl, hs)
        acc = np.zeros(c1 - c0, F32)
        for j, e in enumerate(chosen):
            a = twin.activation(dev, hidden, range(j, j + 1), f, 0, f)
            acc += weights[j] * twin.dot(a, twin.weight(dev, wd, wds, int(e) * d + c0, c1 - c0, f, 0, f))[0]
        if wsd:
            xa = twin.activation(dev, (x, xh, xl, xs), range(1), d, 0, d)
            logit = twin.dot(xa, twin.weight(dev, wsr, 0, 0, 1, d, 0, d))[0, 0]
            with np.errstate(over="ignore"):
                gate = F32(1) / (F32(1) + np.exp(-logit))
            a = _shared_row(dev, hidden, topk * f, fs)
            acc += gate * twin.dot(a, twin.weight(dev, wsd, wsds, c0, c1 - c0, fs, 0, fs))[0]
        if residual:
            acc = dev.download(int(residual) + c0 * 4, F32, c1 - c0) + acc
        dev.upload(int(out) + c0 * 4, acc)
        if counts is not None and counts.arrive(slice(0, 1), tiles):
            _norm_into(dev, (nf, nh, nl, ns), 0, dev.download(int(out), F32, d).copy(), gain, eps)


def _shared_row(dev, hidden: tuple, at: int, fs: int):
    """The shared expert's hidden row of `fs` values, `at` values into the hidden rows (f32 or quantized)."""
    h, hh, hl, hs = (int(p) for p in hidden)
    moved = (h + at * 4 if h else 0, hh + at if hh else 0, hl + at if hl else 0, hs + at // QBLOCK * 4 if hs else 0)
    return twin.activation(dev, moved, range(1), fs, 0, fs)
