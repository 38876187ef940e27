"""Attention with what feeds it (rope_attention.cu): rope_attention and norm_rope_attention, the decode row's q and k
normed and turned, k and v appended to the caches, and attention over the positions seen in chunks sized at run time
from the position; their kernel call and numpy twin."""

from __future__ import annotations

import numpy as np

from lanearena.dialects.kinds.fused_attention import NormRopeAttentionOp, RopeAttentionOp, chunk_size
from lanearena.lowering.kernels import twin
from lanearena.lowering.kernels.attend import _two_words
from lanearena.lowering.kernels.attention import _chunk, _position, _weights, seen
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
    q, k, v, pos, kc, vc, out = (operand(op, n) for n in ("q", "k", "v", "pos", "k_cache", "v_cache", "out"))
    heads, kv_heads, splits = op.heads.value.data, op.kv_heads.value.data, op.splits.value.data
    hd, length = q.length // heads, kc.shape[0]
    rot = op.rotary.value.data or hd
    if pos.length != 1 or hd * heads != q.length or heads % kv_heads or out.length != q.length:
        raise fail(op, f"q {q.shape} is not one row of {heads} heads, or {kv_heads} kv heads do not divide them")
    if hd > HD_MAX or heads // kv_heads > GROUP_MAX or not k.length == v.length == kv_heads * hd:
        raise fail(
            op, f"heads of {hd} (at most {HD_MAX}), {heads // kv_heads} a kv head (at most {GROUP_MAX}), or k, v"
        )
    if kc.length != length * kv_heads * hd or vc.shape != kc.shape or rot % 2 or rot > hd:
        raise fail(op, f"a {kc.shape} cache is not {kv_heads} heads of {hd}, or {rot} values do not turn")
    gains = [ptr(0), ptr(0)]
    if isinstance(op, NormRopeAttentionOp):
        gains = [weight(op, at, operand(op, n))[0] for n in ("q_gain", "k_gain")]
    split = (ptr(at.scratch("ap")), ptr(at.counter("ac"))) if splits > 1 else (ptr(0), ptr(0))
    eps = f32(op.eps.value.data) if isinstance(op, NormRopeAttentionOp) else f32(0)
    args = (
        *(ptr(at.plain(t.value)) for t in (out, kc, vc)),
        *split,
        *(ptr(at.plain(t.value)) for t in (q, k, v, pos)),
        *gains,
        *map(i32, (heads, kv_heads, hd, length, op.window.value.data)),
        eps,
        i32(rot),
        f32(op.theta.value.data),
        i32(SCALINGS.index(op.scaling.data)),
        *(f32(p.value.data) for p in (op.factor, op.low_freq, op.high_freq)),
        i32(op.original.value.data),
        i32(op.two_words is not None),
    )
    return [KernelCall("rope_attention", (splits, kv_heads, 1), THREADS, args)]


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
) -> None:
    twin.check_block("rope_attention", block)
    splits, groups = grid[0], grid[1]
    heads, hd, length, window, rot = int(heads), int(hd), int(length), int(window), int(rot)
    group, width = heads // groups, groups * hd
    p = _position(dev, pos, 0, length, "rope_attention")
    first = seen(p, window)
    chunk = chunk_size(p + 1 - first, splits)
    angles = float(p) * frequencies(
        rot, float(theta), int(scaling), float(factor), float(low), float(high), float(original), p + 1
    )
    turn = np.cos(angles).astype(F32), np.sin(angles).astype(F32)
    counts = twin.Counters(dev, "rope_attention", ac, groups) if splits > 1 else None
    for g, c in np.ndindex(groups, splits):  # a block a chunk of a kv group
        qs = dev.download(int(q) + g * group * hd * 4, F32, group * hd).reshape(group, hd)
        new_k = dev.download(int(k) + g * hd * 4, F32, hd).reshape(1, hd)
        new_v = dev.download(int(v) + g * hd * 4, F32, hd)
        if q_gain:
            qs, new_k = (
                _normed(qs, dev.download(int(q_gain), F32, hd), eps),
                _normed(new_k, dev.download(int(k_gain), F32, hd), eps),
            )
        qs, new_k = _turned(qs, rot, *turn), _turned(new_k, rot, *turn)[0]
        if two_words:
            new_k, new_v = _in_two_words(new_k), _in_two_words(new_v)
        t0 = first + c * chunk
        t1 = min(t0 + chunk, p + 1)
        if t0 <= p < t1:  # the block whose chunk holds the new row appends it
            at = (p * width + g * hd) * 4
            dev.upload(int(kc) + at, new_k)
            dev.upload(int(vc) + at, new_v)
        for j in range(group):
            h = g * group + j
            top, total, values = _chunk(dev, qs[j], kc, vc, t0, t1, width, g * hd)
            if splits == 1:
                dev.upload(int(out) + h * hd * 4, values / total)
                continue
            dev.upload(int(ap) + (h * splits + c) * (hd + 2) * 4, np.concatenate([[top, total], values]).astype(F32))
        if counts is not None and counts.arrive(slice(g, g + 1), splits):  # the group's last chunk folds them
            for h in range(g * group, (g + 1) * group):
                got = dev.download(int(ap) + h * splits * (hd + 2) * 4, F32, splits * (hd + 2)).reshape(splits, hd + 2)
                w = _weights(got[:, 0], got[:, 0].max())
                folded = twin.sum_in_order(got[:, 2:] * w[:, None]) / twin.sum_in_order(got[:, 1] * w)
                dev.upload(int(out) + h * hd * 4, folded)


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
