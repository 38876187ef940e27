"""Greedy placements: the buffers in one order, each at the lowest offset clear of every placed buffer live beside
it (first fit, the reference's `place()`) or in the tightest gap that holds it (best fit).

The placed buffers are kept in a segment tree over the steps (numbered by rank among the buffers' ends). A buffer
is filed under the O(log n) nodes that cover its life exactly; each node keeps two sorted lists of disjoint byte
ranges, merged where they touch: `cover`, the buffers filed there, and `full`, every buffer live at any step under
the node. The buffers live beside a new one are then those in `full` of its own nodes and in `cover` of their
ancestors, a few dozen lists whose merged ranges stay few where the placement is dense, so one placement costs
O(log n) list operations, not a scan of every buffer placed (see `_place`). The loop is compiled with numba: it is
sequential by nature, and in Python each of its small steps would cost a microsecond."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

from lanearena.placement.problem import Buffer

FITS = ("first", "best")
"""`first`: the lowest offset that holds the buffer; `best`: the tightest gap that does (lowest among equals),
above every live buffer where none does."""

ORDERS = ("size", "life", "area", "start")
"""The orders the portfolio tries, in turn, each a sort (ties by input order): `size` (largest first, then the
earlier start: the reference's), `life` (longest first, then size, then start: long lives kept low, as a training
graph's activations want), `area` (size times life, then size, then start), `start` (earliest first, then the
largest)."""


def order(buffers: Sequence[Buffer], name: str = "size") -> np.ndarray:
    """The indices of `buffers` in the order `name` of `ORDERS`."""
    lower = np.array([b.lower for b in buffers], dtype=np.int64)
    life = np.array([b.upper for b in buffers], dtype=np.int64) - lower
    size = np.array([b.size for b in buffers], dtype=np.int64)
    index = np.arange(len(buffers))
    keys = {  # most significant last, as np.lexsort takes them
        "size": (index, lower, -size),
        "area": (index, lower, -size, -size * life),
        "life": (index, lower, -size, -life),
        "start": (index, -size, lower),
    }[name]
    return np.lexsort(keys) if len(buffers) else index


def greedy(
    buffers: Sequence[Buffer], order_: str | Sequence[int] = "size", fit: str = "first", alignment: int = 1
) -> list[int]:
    """Offsets for `buffers` placed one at a time in `order_` (a name of `ORDERS` or the indices in turn), each
    where `fit` (one of `FITS`) puts it; every offset a multiple of `alignment`."""
    offsets, _ = place_in_order(buffers, order_, fit, alignment)
    return offsets


def place_in_order(
    buffers: Sequence[Buffer],
    order_: str | Sequence[int] = "size",
    fit: str = "first",
    alignment: int = 1,
    stop: int | None = None,
) -> tuple[list[int], int]:
    """`greedy`'s offsets and how many buffers of the order it placed: with `stop`, it stops after the first that
    ends above `stop` (the offsets of those not placed are 0)."""
    if not buffers:
        return [], 0
    indices = order(buffers, order_) if isinstance(order_, str) else np.asarray(order_, dtype=np.int64)
    offsets, placed = Placer(buffers, alignment).run(indices, fit, stop)
    return offsets.tolist(), placed


class Placer:
    """Greedy placements of one list of buffers (at least one) in any number of orders: the steps numbered and the
    sizes rounded once."""

    def __init__(self, buffers: Sequence[Buffer], alignment: int = 1):
        lower = np.array([b.lower for b in buffers], dtype=np.int64)
        upper = np.array([b.upper for b in buffers], dtype=np.int64)
        steps = np.unique(np.concatenate([lower, upper]))
        self.first, self.last = np.searchsorted(steps, lower), np.searchsorted(steps, upper)
        self.size = np.array([b.size for b in buffers], dtype=np.int64)
        # Every placed offset is a multiple of the alignment, so a buffer blocks its size rounded up to it, and the
        # whole search can count in alignments.
        self.units = -(-self.size // alignment)
        self.alignment = alignment

    def run(self, indices: np.ndarray, fit: str = "first", stop: int | None = None) -> tuple[np.ndarray, int]:
        """The offsets of the buffers placed in the order `indices` by `fit`, and how many were placed: with `stop`,
        up to the first that ends above `stop`."""
        offsets, placed = _place(
            self.first,
            self.last,
            self.units,
            self.size,
            indices.astype(np.int64),
            fit == "best",
            self.alignment,
            -1 if stop is None else stop,
        )
        return offsets * self.alignment, int(placed)


@njit(cache=True)
def _grow(pool, top, need):
    """`pool` with room for `need` more values past `top` (a larger copy when it has not)."""
    if top + need <= pool.shape[0]:
        return pool
    bigger = np.empty(max(2 * pool.shape[0], top + need), dtype=np.int64)
    bigger[:top] = pool[:top]
    return bigger


@njit(cache=True)
def _add(pool, top, head, cap, count, k, a, b):
    """Adds the range [a, b) to list `k` (sorted disjoint ranges, `pool[head+2j]`, `pool[head+2j+1]`), merging
    the ranges it overlaps or touches; returns the pool and its new top."""
    h, m = head[k], count[k]
    lo, hi = 0, m
    while lo < hi:  # the first range that ends at or above a
        mid = (lo + hi) >> 1
        if pool[h + 2 * mid + 1] < a:
            lo = mid + 1
        else:
            hi = mid
    i = lo
    hi = m
    while lo < hi:  # the first range that starts above b
        mid = (lo + hi) >> 1
        if pool[h + 2 * mid] <= b:
            lo = mid + 1
        else:
            hi = mid
    j = lo
    if i < j:  # ranges i..j-1 merge into one
        pool[h + 2 * i] = min(a, pool[h + 2 * i])
        pool[h + 2 * i + 1] = max(b, pool[h + 2 * j - 1])
        gone = j - i - 1
        if gone:
            for x in range(h + 2 * (i + 1), h + 2 * (m - gone)):  # ascending: the source lies above
                pool[x] = pool[x + 2 * gone]
            count[k] = m - gone
        return pool, top
    if m == cap[k]:  # full: move the list to the top of the pool with twice the room
        room = max(4, 2 * cap[k])
        pool = _grow(pool, top, 2 * room)
        pool[top : top + 2 * m] = pool[h : h + 2 * m]
        head[k], cap[k], h = top, room, top
        top += 2 * room
    for x in range(h + 2 * m + 1, h + 2 * i + 1, -1):  # descending: the target lies above
        pool[x] = pool[x - 2]
    pool[h + 2 * i] = a
    pool[h + 2 * i + 1] = b
    count[k] = m + 1
    return pool, top


@njit(cache=True)
def _first_free(pool, head, count, lists, nlists, size):
    """The lowest offset o where [o, o + size) meets no range of the lists: raised past each range it meets,
    list after list, until a whole round raises it no more."""
    o = 0
    moved = True
    while moved:
        moved = False
        for t in range(nlists):
            k = lists[t]
            h, m = head[k], count[k]
            lo, hi = 0, m
            while lo < hi:  # the first range that ends above o
                mid = (lo + hi) >> 1
                if pool[h + 2 * mid + 1] <= o:
                    lo = mid + 1
                else:
                    hi = mid
            while lo < m and pool[h + 2 * lo] < o + size:
                o = pool[h + 2 * lo + 1]
                moved = True
                lo += 1
    return o


@njit(cache=True)
def _tightest(pool, head, count, lists, nlists, size):
    """The start of the tightest gap between the merged ranges of the lists that holds `size` (the lowest among
    equals), or the top of the ranges where none does."""
    total = 0
    for t in range(nlists):
        total += count[lists[t]]
    starts = np.empty(total, dtype=np.int64)
    ends = np.empty(total, dtype=np.int64)
    at = 0
    for t in range(nlists):
        k = lists[t]
        for j in range(count[k]):
            starts[at] = pool[head[k] + 2 * j]
            ends[at] = pool[head[k] + 2 * j + 1]
            at += 1
    by = np.argsort(starts, kind="mergesort")
    best, best_gap, top = -1, 0, 0
    for x in by:
        if top + size <= starts[x] and (best < 0 or starts[x] - top < best_gap):
            best, best_gap = top, starts[x] - top
        top = max(top, ends[x])
    return top if best < 0 else best


@njit(cache=True)
def _place(first, last, units, size, order, best_fit, alignment, stop):
    """Offsets in units for buffers live over leaves [first, last) of `units` units (`size` bytes), placed in
    `order`; stops after the first that ends above `stop` bytes when `stop` >= 0. Returns the offsets and how many
    were placed."""
    n = units.shape[0]
    leaves = 1
    while leaves < last.max():
        leaves <<= 1
    # List k of node v: `cover` is k = v, `full` is k = 2 * leaves + v.
    head = np.zeros(4 * leaves, dtype=np.int64)
    cap = np.zeros(4 * leaves, dtype=np.int64)
    count = np.zeros(4 * leaves, dtype=np.int64)
    pool = np.empty(16 * n + 64, dtype=np.int64)
    top = 0
    seen = np.zeros(2 * leaves, dtype=np.int64)  # the buffer that last marked a node as an ancestor
    offsets = np.zeros(n, dtype=np.int64)
    nodes = np.empty(128, dtype=np.int64)  # the nodes of a life, then their strict ancestors
    lists = np.empty(128, dtype=np.int64)
    placed = 0
    for step in range(n):
        i = order[step]
        # The nodes that cover [first, last) exactly, bottom up.
        canonical = 0
        lo, hi = first[i] + leaves, last[i] + leaves
        while lo < hi:
            if lo & 1:
                nodes[canonical] = lo
                canonical += 1
                lo += 1
            if hi & 1:
                hi -= 1
                nodes[canonical] = hi
                canonical += 1
            lo >>= 1
            hi >>= 1
        for c in range(canonical):
            seen[nodes[c]] = step + 1
        total = canonical
        for c in range(canonical):
            v = nodes[c] >> 1
            while v >= 1 and seen[v] != step + 1:
                seen[v] = step + 1
                nodes[total] = v
                total += 1
                v >>= 1
        for c in range(canonical):
            lists[c] = 2 * leaves + nodes[c]
        for c in range(canonical, total):
            lists[c] = nodes[c]
        if best_fit:
            o = _tightest(pool, head, count, lists, total, units[i])
        else:
            o = _first_free(pool, head, count, lists, total, units[i])
        offsets[i] = o
        placed += 1
        for c in range(total):
            v = nodes[c]
            if c < canonical:
                pool, top = _add(pool, top, head, cap, count, v, o, o + units[i])
            pool, top = _add(pool, top, head, cap, count, 2 * leaves + v, o, o + units[i])
        if stop >= 0 and o * alignment + size[i] > stop:
            break
    return offsets, placed
