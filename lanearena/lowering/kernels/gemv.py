"""Matrix products (gemv.cu): gemv and glu, cut along k in `split` parts whose sums meet in scratch, and the same
with biases (gemv_bias, glu_bias); their kernel calls and numpy twins."""

from __future__ import annotations

import numpy as np

from lanearena.dialects.kernel import KernelOp
from lanearena.dialects.kinds.products import GemvBiasOp, GemvOp, GluBiasOp, GluOp
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
    lowers,
    operand,
    ptr,
    quantized,
    variant,
    weight,
)
from lanearena.lowering.kernels.twin import F32
from lanearena.model import Part

NULL = ptr(0)


def _shape(op: GemvOp | GluOp | GemvBiasOp | GluBiasOp, w_name: str) -> tuple[int, int, int, int]:
    """(rows, n, k, split) of a product, checked."""
    x, w = operand(op, "x"), operand(op, w_name)
    n, k = w.shape[0], w.length // w.shape[0]
    split = op.split.value.data
    if x.length % k or split < 1:
        raise fail(op, f"x of {x.length} values is not rows of {k}, or split {split} < 1")
    quantized(op, k)
    return x.length // k, n, k, split


def _split(op: KernelOp, at: Operands, split: int, parts: str, counts: str) -> tuple[np.uint64, np.uint64]:
    """The partial sums' and counters' pointers of a split (null when not split)."""
    if split == 1:
        return ptr(0), ptr(0)
    return ptr(at.scratch(parts)), ptr(at.counter(counts))


def biases(op: KernelOp, at: Operands, names: tuple[str, ...]) -> tuple[np.uint64, ...]:
    """The pointers of a product's biases `names` (f32 weights of one value a column), null where the kind has
    none."""
    if not all(n in op.operand_names() for n in names):
        return (NULL,) * len(names)
    out = []
    for name in names:
        data, scales = weight(op, at, operand(op, name))
        if scales:
            raise fail(op, f"a bias ({name}) must be f32")
        out.append(data)
    return tuple(out)


@lowers(GemvOp, GemvBiasOp)
def gemv_calls(op: GemvOp | GemvBiasOp, at: Operands) -> list[KernelCall]:
    rows, n, k, split = _shape(op, "w")
    w, out = operand(op, "w"), operand(op, "out")
    part = op.written_part or Part(n, 0, n)
    pitch, start = part.pitch, part.start
    if part.width != n or start + n > pitch:
        raise fail(op, f"{n} columns do not fit [start, start + width) of a pitch of {pitch}")
    out_at = ptr(at.plain(out.value) + start * 4)
    args = (
        out_at,
        i32(pitch),
        *activation(op, at, "x"),
        *weight(op, at, w),
        *biases(op, at, ("bias",)),
        *_split(op, at, split, "fp", "fq"),
        i32(n),
        i32(k),
        i32(k_part(k, split)),
    )
    return [KernelCall(variant(op, "gemv", w), (cdiv(n, TILE), split, rows), THREADS, args)]


@twin.weighted
def gemv(dev, grid, block, out, pitch, x, xh, xl, xs, w, ws, bias, fp, fq, n, k, kpart) -> None:
    twin.check_block("gemv", block)

    def finish(c0: int, r0: int, sums: list[np.ndarray]) -> None:
        _store(dev, out, pitch, c0, r0, sums[0] + _bias(dev, bias, c0, sums[0].shape[1]))

    _blocks(dev, grid, (x, xh, xl, xs), [(w, ws)], fp, fq, int(n), int(k), int(kpart), "gemv", finish, TILE)


def _blocks(
    dev,
    grid,
    x: tuple | twin.Staged,
    weights: list,
    parts,
    counts,
    n: int,
    k: int,
    kpart: int,
    kernel: str,
    finish,
    group: int,
) -> None:
    """A product's blocks: each tile's and part's dots with every weight, for every row (a wave), of the activation
    at pointers `x` (or the rows a prologue `Staged`). Split, the parts'
    sums go to scratch `parts` ([weights, split, rows, n]) and each tile's counter of `group` rows at `counts`
    ([ceil(rows / group), tiles]) counts its parts' arrivals; the last to arrive adds the parts of its rows in order.
    Whole, or added up, a tile's sums (one [rows, columns] a weight) go to `finish(first column, first row, sums)`.
    A tile's parts run one after the other, so that it is finished before the next tile reads x."""
    tiles, split, rows = grid
    shape = (len(weights), split, rows, n)
    arrived = twin.Counters(dev, kernel, counts, cdiv(rows, group) * tiles) if split > 1 else None
    sums = dev.view(int(parts), F32, int(np.prod(shape))).reshape(shape) if split > 1 else None
    for tile, part in np.ndindex(tiles, split):
        k0, k1 = min(k, part * kpart), min(k, (part + 1) * kpart)
        c0, c1 = tile * TILE, min(n, (tile + 1) * TILE)
        a = x.part(k0, k1) if isinstance(x, twin.Staged) else twin.activation(dev, x, range(rows), k, k0, k1)
        got = [twin.dot(a, twin.weight(dev, w, ws, c0, c1 - c0, k, k0, k1)) for w, ws in weights]
        if split == 1:
            finish(c0, 0, got)
            continue
        assert sums is not None and arrived is not None  # both made when split > 1
        sums[:, part, :, c0:c1] = got
        for g in range(cdiv(rows, group)):
            r0, r1 = g * group, min(rows, (g + 1) * group)
            at = g * tiles + tile
            if arrived.arrive(slice(at, at + 1), split * (r1 - r0), by=r1 - r0):
                finish(c0, r0, [twin.sum_in_order(s[:, r0:r1, c0:c1]) for s in sums])


def _bias(dev, bias, c0: int, count: int) -> np.ndarray | F32:
    """Columns [c0, c0 + count) of a bias, or 0 where there is none."""
    return dev.download(int(bias) + c0 * 4, F32, count) if bias else F32(0)


def _store(dev, out, pitch, c0: int, r0: int, values: np.ndarray) -> None:
    """Row r of `values` written at out[(r0 + r) * pitch + c0]."""
    for r, row in enumerate(values):
        dev.upload(int(out) + ((r0 + r) * int(pitch) + c0) * 4, row)


@lowers(GluOp, GluBiasOp)
def glu_calls(op: GluOp | GluBiasOp, at: Operands) -> list[KernelCall]:
    rows, n, k, split = _shape(op, "w_gate")
    wg, wu, out = (operand(op, name) for name in ("w_gate", "w_up", "out"))
    weights = (*weight(op, at, wg), *weight(op, at, wu))
    args = (
        ptr(at.plain(out.value)),
        *activation(op, at, "x"),
        *weights,
        *biases(op, at, ("b_gate", "b_up")),
        *_split(op, at, split, "gp", "gq"),
        i32(n),
        i32(k),
        i32(k_part(k, split)),
    )
    return [KernelCall(variant(op, "glu", wg, wu), (cdiv(n, TILE), split, rows), THREADS, args)]


@twin.weighted
def glu(dev, grid, block, out, x, xh, xl, xs, wg, wgs, wu, wus, bg, bu, gp, gq, n, k, kpart) -> None:
    twin.check_block("glu", block)

    def finish(c0: int, r0: int, sums: list[np.ndarray]) -> None:
        gate, up = sums
        count = gate.shape[1]
        _store(dev, out, n, c0, r0, twin.silu(gate + _bias(dev, bg, c0, count)) * (up + _bias(dev, bu, c0, count)))

    _blocks(dev, grid, (x, xh, xl, xs), [(wg, wgs), (wu, wus)], gp, gq, int(n), int(k), int(kpart), "glu", finish, 1)
