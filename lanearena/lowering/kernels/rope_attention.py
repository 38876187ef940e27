"""Attention with what feeds it (rope_attention.cu): rope_attention and norm_rope_attention, the decode row's q and k
normed and turned, k and v appended to the caches, and attention over the positions seen in chunks sized at run time
from the position; their kernel call and numpy twin."""

from __future__ import annotations

import numpy as np

from lanearena.dialects.kinds.fused_attention import NormRopeAttentionOp, RopeAttentionOp, chunk_size
from lanearena.lowering.kernels import twin
from lanearena.lowering.kernels.attend import _two_words
from lanearena.lowering.kernels.attention import _chunk, _position, _weights, cache_slots, seen, slot_of
from lanearena.lowering.kernels.base import (
    THREADS,
    KernelCall,
    Operands,
    f32,
    fail,
    i32,
    kernel,
    lowers,
    operand,
    ptr,
    weight,
)
from lanearena.lowering.kernels.pointwise import SCALINGS, frequencies
from lanearena.lowering.kernels.twin import F32

HD_MAX = 256
"""The largest head the kernel holds (rope_attention.cu's HD_MAX)."""

GROUP_MAX = 8
"""The most q heads a kv head serves that the kernel holds (rope_attention.cu's GROUP_MAX)."""


@lowers(RopeAttentionOp, NormRopeAttentionOp)
def rope_attention_calls(op: RopeAttentionOp | NormRopeAttentionOp, at: Operands) -> list[KernelCall]:
    """One row a sequence (a decode row, or one of each of `seqs` sequences): rope_attention makes, appends and
    attends each. More: rope_append makes and appends them (their q heads into scratch `aq`), then rope_attention
    attends each over the caches."""
    q, k, v, pos, kc, vc, out = (operand(op, n) for n in ("q", "k", "v", "pos", "k_cache", "v_cache", "out"))
    heads, kv_heads, splits = op.heads.value.data, op.kv_heads.value.data, op.splits.value.data
    rows = pos.length
    seqs, length, _ = cache_slots(op, rows)
    hd = q.length // (heads * rows)
    rot = op.rotary.value.data or hd
    if hd * heads * rows != q.length or heads % kv_heads or out.length != q.length:
        raise fail(op, f"q {q.shape} is not {rows} rows of {heads} heads, or {kv_heads} kv heads do not divide them")
    if hd > HD_MAX or heads // kv_heads > GROUP_MAX or not k.length == v.length == rows * kv_heads * hd:
        raise fail(
            op, f"heads of {hd} (at most {HD_MAX}), {heads // kv_heads} a kv head (at most {GROUP_MAX}), or k, v"
        )
    if kc.length != seqs * length * kv_heads * hd or vc.shape != kc.shape or rot % 2 or rot > hd:
        raise fail(op, f"a {kc.shape} cache is not {kv_heads} heads of {hd}, or {rot} values do not turn")
    gains = [ptr(0), ptr(0)]
    if isinstance(op, NormRopeAttentionOp):
        gains = [weight(op, at, operand(op, n))[0] for n in ("q_gain", "k_gain")]
    eps = f32(op.eps.value.data) if isinstance(op, NormRopeAttentionOp) else f32(0)
    sizes = tuple(map(i32, (heads, kv_heads, hd, length)))
    turn = (
        i32(rot),
        f32(op.theta.value.data),
        i32(SCALINGS.index(op.scaling.data)),
        *(f32(p.value.data) for p in (op.factor, op.low_freq, op.high_freq)),
        i32(op.original.value.data),
        i32(op.two_words is not None),
        i32(seqs),
    )
    kcp, vcp, posp = (ptr(at.plain(t.value)) for t in (kc, vc, pos))
    split = (ptr(at.scratch("ap")), ptr(at.counter("ac"))) if splits > 1 else (ptr(0), ptr(0))
    window = i32(op.window.value.data)
    head = (ptr(at.plain(out.value)), kcp, vcp, *split)
    new = (*(ptr(at.plain(t.value)) for t in (q, k, v)), posp, *gains)
    if rows == seqs:
        attend = (*head, *new, *sizes, window, eps, *turn)
        return [KernelCall("rope_attention", (splits, kv_heads, rows), THREADS, attend)]
    aq = ptr(at.scratch("aq"))
    made = (aq, ptr(0), ptr(0), posp, ptr(0), ptr(0))  # q made, k and v in the caches: nothing to turn
    plain = (i32(0), *turn[1:-2], i32(0), i32(seqs))
    return [
        KernelCall("rope_append", (rows, kv_heads, 1), THREADS, (aq, kcp, vcp, *new, *sizes, eps, *turn)),
        KernelCall("rope_attention", (splits, kv_heads, rows), THREADS, (*head, *made, *sizes, window, eps, *plain)),
    ]


@kernel
def rope_append(
    dev,
    grid,
    block,
    aq,
    kc,
    vc,
    q,
    k,
    v,
    pos,
    q_gain,
    k_gain,
    heads,
    kv_heads,
    hd,
    length,
    eps,
    rot,
    theta,
    scaling,
    factor,
    low,
    high,
    original,
    two_words,
    seqs,
) -> None:
    twin.check_block("rope_append", block)
    rows, groups = grid[0], grid[1]
    heads, hd, length, per = int(heads), int(hd), int(length), rows // int(seqs)
    group, width = heads // groups, groups * hd
    positions = [_position(dev, pos, r, length, "rope_append") for r in range(rows)]
    turning = (rot, theta, scaling, factor, low, high, original)
    for r, g in np.ndindex(rows, groups):  # a block a kv group of a row
        p, s = positions[r], slot_of(r, rows, int(seqs))
        last = max(positions[s * per : (s + 1) * per])  # its sequence's
        qs, new_k, new_v = _new_row(
            dev, (q, k, v, q_gain, k_gain), r, g, heads, groups, hd, eps, p, last + 1, turning, two_words
        )
        dev.upload(int(aq) + (r * heads + g * group) * hd * 4, qs.reshape(-1))
        at = ((s * length + p) * width + g * hd) * 4
        dev.upload(int(kc) + at, new_k)
        dev.upload(int(vc) + at, new_v)


@kernel
def rope_attention(
    dev,
    grid,
    block,
    out,
    kc,
    vc,
    ap,
    ac,
    q,
    k,
    v,
    pos,
    q_gain,
    k_gain,
    heads,
    kv_heads,
    hd,
    length,
    window,
    eps,
    rot,
    theta,
    scaling,
    factor,
    low,
    high,
    original,
    two_words,
    seqs,
) -> None:
    twin.check_block("rope_attention", block)
    splits, groups, rows = grid
    heads, hd, length, window = int(heads), int(hd), int(length), int(window)
    group, width = heads // groups, groups * hd
    twin.require(bool(k) == bool(v) and (bool(k) or not (q_gain or rot or two_words)), "rope_attention: k, v, turn")
    twin.require(rows == int(seqs) or not k, "rope_attention: more than one row a sequence made here")
    counts = twin.Counters(dev, "rope_attention", ac, rows * groups) if splits > 1 else None
    turning = (rot, theta, scaling, factor, low, high, original)
    for r, g, c in np.ndindex(rows, groups, splits):  # a block a chunk of a kv group of a row
        p = _position(dev, pos, r, length, "rope_attention")
        first = seen(p, window)
        chunk = chunk_size(p + 1 - first, splits)
        t0 = first + c * chunk
        t1 = min(t0 + chunk, p + 1)
        heads_at = (r * heads + g * group) * hd * 4
        slot = slot_of(r, rows, int(seqs)) * length * width * 4
        caches = int(kc) + slot, int(vc) + slot
        if k:
            qs, new_k, new_v = _new_row(
                dev, (q, k, v, q_gain, k_gain), r, g, heads, groups, hd, eps, p, p + 1, turning, two_words
            )
            if t0 <= p < t1:  # the block whose chunk holds the new row appends it
                dev.upload(caches[0] + (p * width + g * hd) * 4, new_k)
                dev.upload(caches[1] + (p * width + g * hd) * 4, new_v)
        else:  # made and appended by rope_append
            qs = dev.download(int(q) + heads_at, F32, group * hd).reshape(group, hd)
        for j in range(group):
            h = r * heads + g * group + j  # of all rows' heads
            top, total, values = _chunk(dev, qs[j], *caches, t0, t1, width, g * hd)
            if splits == 1:
                dev.upload(int(out) + h * hd * 4, values / total)
                continue
            dev.upload(int(ap) + (h * splits + c) * (hd + 2) * 4, np.concatenate([[top, total], values]).astype(F32))
        at = r * groups + g
        if counts is not None and counts.arrive(slice(at, at + 1), splits):  # the group's last chunk folds them
            for h in range(r * heads + g * group, r * heads + (g + 1) * group):
                got = dev.download(int(ap) + h * splits * (hd + 2) * 4, F32, splits * (hd + 2)).reshape(splits, hd + 2)
                w = _weights(got[:, 0], got[:, 0].max())
                folded = twin.sum_in_order(got[:, 2:] * w[:, None]) / twin.sum_in_order(got[:, 1] * w)
                dev.upload(int(out) + h * hd * 4, folded)


def _new_row(dev, ptrs: tuple, r: int, g: int, heads: int, groups: int, hd: int, eps, p: int, n: int, turning, two):
    """Row r's q heads of kv group g, and its k and v of kv head g, as new_row makes them: normed where the gains
    are given, turned at position p (n: the step's last position + 1), k and v in two words where `two`."""
    q, k, v, q_gain, k_gain = ptrs
    group = heads // groups
    rot, theta, scaling, factor, low, high, original = turning
    qs = dev.download(int(q) + (r * heads + g * group) * hd * 4, F32, group * hd).reshape(group, hd)
    new_k = dev.download(int(k) + (r * groups + g) * hd * 4, F32, hd).reshape(1, hd)
    new_v = dev.download(int(v) + (r * groups + g) * hd * 4, F32, hd)
    if q_gain:
        qs = _normed(qs, dev.download(int(q_gain), F32, hd), eps)
        new_k = _normed(new_k, dev.download(int(k_gain), F32, hd), eps)
    rot = int(rot)
    angles = float(p) * frequencies(
        rot, float(theta), int(scaling), float(factor), float(low), float(high), float(original), n
    )
    cos, sin = np.cos(angles).astype(F32), np.sin(angles).astype(F32)
    qs, new_k = _turned(qs, rot, cos, sin), _turned(new_k, rot, cos, sin)[0]
    if two:
        new_k, new_v = _in_two_words(new_k), _in_two_words(new_v)
    return qs, new_k, new_v


def _normed(rows: np.ndarray, gain: np.ndarray, eps) -> np.ndarray:
    """Each row over its root mean square, times `gain`, as rms_norm computes it."""
    inv = F32(1) / np.sqrt((rows * rows).sum(axis=1, dtype=F32, keepdims=True) / F32(rows.shape[1]) + eps)
    return rows * inv * gain


def _turned(rows: np.ndarray, rot: int, cos: np.ndarray, sin: np.ndarray) -> np.ndarray:
    """The first `rot` values of each row turned (rotate-half) by the angles whose cosines and sines are given."""
    a, b = rows[:, : rot // 2], rows[:, rot // 2 : rot]
    return np.concatenate([a * cos - b * sin, b * cos + a * sin, rows[:, rot:]], axis=1)


def _in_two_words(row: np.ndarray) -> np.ndarray:
    """What a row's two words (one scale) stand for: (high + low / 127) * scale."""
    hi, lo, s = _two_words(row)
    return (hi.astype(F32) + lo.astype(F32) / F32(127)) * s
