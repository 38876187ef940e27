"""Attention variants (attend.cu): shared attention (every head of a kv group in one block, chunks folded by a second
kernel) and attention in two words (the cache quantized to high and low words first); their calls and numpy twins."""

from __future__ import annotations

import numpy as np

from lanearena.dialects.kinds.attention import AttentionI8x2Op, AttentionSharedOp
from lanearena.lowering.kernels import twin
from lanearena.lowering.kernels.attention import _chunk, _position, _weights, cache_slots, chunk_size, seen, slot_of
from lanearena.lowering.kernels.base import (
    THREADS,
    KernelCall,
    Operands,
    fail,
    i32,
    kernel,
    lowers,
    numerics,
    operand,
    ptr,
)
from lanearena.lowering.kernels.twin import F32, I8

HD_MAX = 256
"""The largest head attend.cu's kernels hold (a thread a value)."""


def _shape(op: AttentionSharedOp | AttentionI8x2Op):
    q, kc, vc, pos, out = (operand(op, n) for n in ("q", "k_cache", "v_cache", "pos", "out"))
    heads, kv_heads = op.heads.value.data, op.kv_heads.value.data
    hd, rows = q.shape[-1] // heads, pos.length
    seqs, length, _ = cache_slots(op, rows)
    if hd * heads * rows != q.length or out.length != q.length or heads % kv_heads or hd > HD_MAX:
        raise fail(
            op,
            f"q {q.shape} is not {rows} rows of {heads} heads of at most {HD_MAX}, or {kv_heads} kv "
            "heads do not divide them",
        )
    if kc.length != seqs * length * kv_heads * hd or vc.shape != kc.shape:
        raise fail(op, f"a {kc.shape} cache is not {kv_heads} heads of {hd}")
    return (q, kc, vc, pos, out), heads, kv_heads, hd, rows, (seqs, length)


@lowers(AttentionSharedOp)
def attention_shared_calls(op: AttentionSharedOp, at: Operands) -> list[KernelCall]:
    (q, kc, vc, pos, out), heads, kv_heads, hd, rows, (seqs, length) = _shape(op)
    splits = op.splits.value.data
    ap = ptr(at.scratch("ap")) if splits > 1 else ptr(0)
    window = op.window.value.data
    args = (
        ptr(at.plain(out.value)),
        ap,
        *(ptr(at.plain(t.value)) for t in (q, kc, vc, pos)),
        *map(i32, (heads, kv_heads, hd, length, chunk_size(length, window, splits), window, seqs)),
    )
    calls = [KernelCall("attention_group", (splits, kv_heads, rows), THREADS, args)]
    if splits > 1:
        calls.append(
            KernelCall(
                "attention_fold",
                (heads, rows, 1),
                THREADS,
                (ptr(at.plain(out.value)), ap, i32(heads), i32(hd), i32(splits)),
            )
        )
    return calls


@kernel
def attention_group(
    dev, grid, block, out, ap, q, kc, vc, pos, heads, kv_heads, hd, length, chunk, window, seqs
) -> None:
    twin.check_block("attention_group", block)
    splits, groups, rows = grid
    heads, hd, length, chunk, window = int(heads), int(hd), int(length), int(chunk), int(window)
    group, width = heads // groups, groups * hd
    for r, g, c in np.ndindex(rows, groups, splits):  # a block a chunk of a group of a row
        p = _position(dev, pos, r, length, "attention_group")
        t0 = seen(p, window) + c * chunk
        t1 = min(t0 + chunk, p + 1, length)
        slot = slot_of(r, rows, int(seqs)) * length * width * 4
        caches = int(kc) + slot, int(vc) + slot
        for h in range(g * group, (g + 1) * group):
            head = (r * heads + h) * hd
            q_head = dev.download(int(q) + head * 4, F32, hd)
            top, total, values = _chunk(dev, q_head, *caches, t0, t1, width, g * hd)
            if splits == 1:
                dev.upload(int(out) + head * 4, values / total)
                continue
            dev.upload(
                int(ap) + ((r * heads + h) * splits + c) * (hd + 2) * 4,
                np.concatenate([[top, total], values]).astype(F32),
            )


@kernel
def attention_fold(dev, grid, block, out, ap, heads, hd, splits) -> None:
    twin.check_block("attention_fold", block)
    heads, hd, splits = int(heads), int(hd), int(splits)
    for r, h in np.ndindex(grid[1], grid[0]):  # a block a head of a row
        got = dev.download(int(ap) + (r * heads + h) * splits * (hd + 2) * 4, F32, splits * (hd + 2))
        got = got.reshape(splits, hd + 2)
        w = _weights(got[:, 0], got[:, 0].max())
        dev.upload(
            int(out) + (r * heads + h) * hd * 4,
            twin.sum_in_order(got[:, 2:] * w[:, None]) / twin.sum_in_order(got[:, 1] * w),
        )


@lowers(AttentionI8x2Op)
def attention_i8x2_calls(op: AttentionI8x2Op, at: Operands) -> list[KernelCall]:
    (q, kc, vc, pos, out), heads, kv_heads, hd, rows, (seqs, length) = _shape(op)
    if not numerics(op).two_words:
        raise fail(op, "an attention in two words runs under int8x2 numerics")
    words = (ptr(at.scratch("ak")), ptr(at.scratch("aw")), ptr(at.scratch("as")))
    return [
        KernelCall(
            "kv_two_words",
            (seqs * length, kv_heads, 1),
            THREADS,
            (*words, ptr(at.plain(kc.value)), ptr(at.plain(vc.value)), i32(seqs * length), i32(kv_heads), i32(hd)),
        ),
        KernelCall(
            "attention_two_words",
            (heads, rows, 1),
            THREADS,
            (
                ptr(at.plain(out.value)),
                ptr(at.plain(q.value)),
                *words,
                ptr(at.plain(pos.value)),
                i32(heads),
                i32(kv_heads),
                i32(hd),
                i32(length),
                i32(op.window.value.data),
                i32(seqs),
            ),
        ),
    ]


def _two_words(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows of `x` in two words with a scale a row: (high words, low words, scales)."""
    s = (np.abs(x).max(axis=-1) / F32(127)).astype(F32)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(s[..., None] != 0, x / s[..., None], F32(0)).astype(F32)
    hi = np.clip(np.rint(t), -127, 127)
    lo = np.clip(np.rint((t - hi) * F32(127)), -127, 127)
    return hi.astype(I8), lo.astype(I8), s


@kernel
def kv_two_words(dev, grid, block, ak, aw, asc, kc, vc, length, kv_heads, hd) -> None:
    twin.check_block("kv_two_words", block)
    length, kv_heads, hd = int(length), int(kv_heads), int(hd)
    n = length * kv_heads * hd
    for t in range(grid[0]):  # a block a row's head, a row of them at a time
        at = t * kv_heads * hd
        for cache, words, side in ((kc, ak, 0), (vc, aw, 1)):
            hi, lo, s = _two_words(dev.download(int(cache) + at * 4, F32, kv_heads * hd).reshape(kv_heads, hd))
            dev.upload(int(words) + at, hi.reshape(-1))
            dev.upload(int(words) + n + at, lo.reshape(-1))
            for g in range(kv_heads):
                dev.upload(int(asc) + ((t * kv_heads + g) * 2 + side) * 4, s[g : g + 1])


@kernel
def attention_two_words(dev, grid, block, out, q, ak, aw, asc, pos, heads, kv_heads, hd, length, window, seqs) -> None:
    twin.check_block("attention_two_words", block)
    heads, kv_heads, hd, length, seqs = int(heads), int(kv_heads), int(hd), int(length), int(seqs)
    n = seqs * length * kv_heads * hd
    for r, h in np.ndindex(grid[1], grid[0]):  # a block a head of a row
        g = h // (heads // kv_heads)
        p = _position(dev, pos, r, length, "attention_two_words")
        base = slot_of(r, grid[1], seqs) * length
        rows = range(base + seen(p, int(window)), base + min(p + 1, length))
        keys, ks = _cache_rows(dev, ak, asc, 0, n, seqs * length, kv_heads, hd, rows, g)
        values, vs = _cache_rows(dev, aw, asc, 1, n, seqs * length, kv_heads, hd, rows, g)
        head = (r * heads + h) * hd
        scores = (keys @ dev.download(int(q) + head * 4, F32, hd)) * ks * (F32(1) / np.sqrt(F32(hd)))
        e = np.exp(scores - scores.max())
        dev.upload(int(out) + head * 4, (e * vs) @ values / e.sum(dtype=F32))


def _cache_rows(dev, words, asc, side: int, n: int, length: int, kv_heads: int, hd: int, rows: range, g: int):
    """Rows `rows` of kv head g of a cache in two words (high + low / 127) and their scales (`side` 0: keys')."""
    at = slice(rows.start, rows.stop)
    hi = dev.download(int(words), I8, n).reshape(length, kv_heads, hd)[at, g].astype(F32)
    lo = dev.download(int(words) + n, I8, n).reshape(length, kv_heads, hd)[at, g].astype(F32)
    s = dev.download(int(asc), F32, length * kv_heads * 2).reshape(length, kv_heads, 2)[at, g, side]
    return hi + lo / F32(127), s
