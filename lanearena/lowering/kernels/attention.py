"""The key/value cache (attention.cu): kv_store, and attention over the cache split in chunks whose partial softmaxes
meet in scratch; their kernel calls and numpy twins."""

from __future__ import annotations

import numpy as np

from lanearena.dialects.kernel import KernelOp
from lanearena.dialects.kinds.attention import AttentionOp, KvStoreOp
from lanearena.lowering.kernels import twin
from lanearena.lowering.kernels.base import THREADS, KernelCall, Operands, cdiv, fail, i32, kernel, lowers, operand, ptr
from lanearena.lowering.kernels.source import specialized
from lanearena.lowering.kernels.twin import F32, I32

HD_MAX = 256
"""The largest head a block of attention holds (attention.cu's HD_MAX)."""


def cache_slots(op: KernelOp, rows: int) -> tuple[int, int, int]:
    """(seqs, length, width) of `op`'s caches: `seqs` slots (a sequence's, slot-major) of `length` positions of rows
    of `width` values; a refusal where its `rows` are not whole sequences' or the caches not `seqs` slots."""
    kc = operand(op, "k_cache")
    seqs = int(op.params["seqs"])
    slot = kc.shape[1:] if seqs > 1 else kc.shape
    if rows % seqs or (seqs > 1 and kc.shape[0] != seqs) or len(slot) < 2:
        raise fail(op, f"{rows} rows of {seqs} sequences do not fit a {kc.shape} cache of a slot a sequence")
    return seqs, slot[0], kc.length // (seqs * slot[0])


def slot_of(r: int, rows: int, seqs: int) -> int:
    """The sequence (its caches' slot) row r of `rows` is in: rows / seqs rows a sequence, in order."""
    return r // (rows // seqs)


@lowers(KvStoreOp)
def kv_store_calls(op: KvStoreOp, at: Operands) -> list[KernelCall]:
    k, v, pos, kc, vc = (operand(op, n) for n in ("k", "v", "pos", "k_cache", "v_cache"))
    seqs, length, width = cache_slots(op, pos.length)
    if not k.length == v.length == pos.length * width or vc.shape != kc.shape:
        raise fail(op, f"k, v of {k.length}, {v.length} values are not {pos.length} rows of a {kc.shape} cache")
    args = (*(ptr(at.plain(t.value)) for t in (kc, vc, k, v, pos)), i32(width), i32(length), i32(seqs))
    return [KernelCall("kv_store", (pos.length, 1, 1), THREADS, args)]


@kernel
def kv_store(dev, grid, block, kc, vc, k, v, pos, width, length, seqs) -> None:
    twin.check_block("kv_store", block)
    width, length, rows = int(width), int(length), grid[0]
    for r in range(rows):  # a block a row
        p = _position(dev, pos, r, length, "kv_store")
        at = (slot_of(r, rows, int(seqs)) * length + p) * width * 4
        for cache, new in ((kc, k), (vc, v)):
            dev.upload(int(cache) + at, dev.download(int(new) + r * width * 4, F32, width))


def _position(dev, pos, r: int, length: int, kernel: str) -> int:
    """Row r's position, checked to lie in the cache."""
    p = int(dev.download(int(pos) + r * 4, I32, 1)[0])
    twin.require(0 <= p < length, f"{kernel}: position {p} outside a cache of {length}")
    return p


@lowers(AttentionOp)
def attention_calls(op: AttentionOp, at: Operands) -> list[KernelCall]:
    q, kc, vc, pos, out = (operand(op, n) for n in ("q", "k_cache", "v_cache", "pos", "out"))
    heads, kv_heads, splits = op.heads.value.data, op.kv_heads.value.data, op.splits.value.data
    # Heads and rows as kinds.launch sized the scratch: q is [rows, heads * hd].
    hd, rows = q.shape[-1] // heads, pos.length
    seqs, length, _ = cache_slots(op, rows)
    if hd * heads * rows != q.length or out.length != q.length or heads % kv_heads or splits < 1:
        raise fail(
            op,
            f"q {q.shape} is not {rows} rows of {heads} heads, or {kv_heads} kv heads do not "
            f"divide them, or splits {splits} < 1",
        )
    if hd > HD_MAX or kc.length != seqs * length * kv_heads * hd or vc.shape != kc.shape:
        raise fail(op, f"heads of {hd} (at most {HD_MAX}) do not match a {kc.shape} cache of {kv_heads} heads")
    split = (ptr(at.scratch("ap")), ptr(at.counter("ac"))) if splits > 1 else (ptr(0), ptr(0))
    window = op.window.value.data
    args = (
        *(ptr(at.plain(t.value)) for t in (out, q, kc, vc, pos)),
        *split,
        *map(i32, (heads, kv_heads, hd, length, chunk_size(length, window, splits), window, seqs)),
    )
    return [KernelCall(attention_kernel(hd), (splits, heads, rows), THREADS, args)]


def attention_kernel(hd: int) -> str:
    """The attention kernel for heads of `hd` values: where hd is a whole number of warps' lanes (64, 128 and 256,
    every published model's), the variant compiled for it, whose per-lane loops, registers and shared sums are sized
    for hd rather than HD_MAX and whose bounds are constants; else the generic kernel."""
    return specialized("attention", HEAD_DIM=hd) if hd % 32 == 0 else "attention"


def chunk_size(length: int, window: int, splits: int) -> int:
    """The positions each of `splits` chunks takes of the ones a row sees: the cache of `length`, or its sliding
    `window` (0: none)."""
    return cdiv(min(window, length) if window else length, splits)


def seen(p: int, window: int) -> int:
    """The first position a row at position `p` sees (the kernels' `window_start`)."""
    return max(0, p - window + 1) if window else 0


@kernel
def attention(dev, grid, block, out, q, kc, vc, pos, ap, ac, heads, kv_heads, hd, length, chunk, window, seqs) -> None:
    twin.check_block("attention", block)
    splits, heads, rows = grid
    hd, length, chunk, window = int(hd), int(length), int(chunk), int(window)
    group, width = heads // int(kv_heads), int(kv_heads) * hd
    counts = twin.Counters(dev, "attention", ac, rows * heads) if splits > 1 else None
    shape = (rows, heads, splits, hd + 2)
    parts = dev.view(int(ap), F32, int(np.prod(shape))).reshape(shape) if splits > 1 else None
    for r, h, c in np.ndindex(rows, heads, splits):  # a block a chunk of a head of a row
        head = (r * heads + h) * hd * 4
        p = _position(dev, pos, r, length, "attention")
        t0 = seen(p, window) + c * chunk
        t1 = min(t0 + chunk, p + 1, length)
        slot = slot_of(r, rows, int(seqs)) * length * width * 4
        q_head = dev.download(int(q) + head, F32, hd)
        top, total, values = _chunk(dev, q_head, int(kc) + slot, int(vc) + slot, t0, t1, width, (h // group) * hd)
        if splits == 1:
            dev.upload(int(out) + head, values / total)
            continue
        assert parts is not None and counts is not None  # both made when splits > 1
        parts[r, h, c, 0], parts[r, h, c, 1], parts[r, h, c, 2:] = top, total, values
        if counts.arrive(slice(r * heads + h, r * heads + h + 1), splits):
            got = parts[r, h].copy()
            w = _weights(got[:, 0], got[:, 0].max())
            dev.upload(int(out) + head, twin.sum_in_order(got[:, 2:] * w[:, None]) / twin.sum_in_order(got[:, 1] * w))


def _weights(m: np.ndarray, top) -> np.ndarray:
    """exp(m - top), 0 where a part saw no position (m = -inf)."""
    with np.errstate(invalid="ignore"):
        return np.where(m == -np.inf, F32(0), np.exp(m - top))


def _chunk(dev, q: np.ndarray, kc, vc, t0: int, t1: int, width: int, kv: int):
    """A head's softmax over positions [t0, t1) of the cache (its values `kv` into rows of `width`): the top score,
    the sum of exp(score - top), the values weighed by exp(score - top)."""
    hd = q.size
    if t1 <= t0:
        return F32(-np.inf), F32(0), np.zeros(hd, F32)
    rows = [dev.download(int(c) + t0 * width * 4, F32, (t1 - t0) * width).reshape(t1 - t0, width) for c in (kc, vc)]
    keys, values = (v[:, kv : kv + hd] for v in rows)
    scores = (keys @ q) * (F32(1) / np.sqrt(F32(hd)))
    top = scores.max()
    e = np.exp(scores - top)
    return top, e.sum(dtype=F32), e @ values
