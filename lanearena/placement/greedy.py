"""Greedy placements: the buffers in one order, each at the lowest offset clear of every placed buffer live beside
it (first fit, the reference's `place()`) or in the tightest gap that holds it (best fit).

Placed buffers are found by the steps they live at: a buffer of a short life is filed under each of its steps, a
long one in a list scanned apart, so finding the buffers live beside one costs what they are, not all placed. Steps
are numbered by their rank among the buffers' ends first, so sparse step numbers cost nothing."""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence

from lanearena.placement.problem import Buffer

SHORT = 32
"""Lives of at most this many distinct steps are filed under each step; longer ones are scanned apart."""

Order = Callable[[Buffer, int], tuple]
"""A placement order: the sort key of buffer (`b`, its index)."""

ORDERS: dict[str, Order] = {
    "size": lambda b, i: (-b.size, b.lower, i),
    "area": lambda b, i: (-b.size * (b.upper - b.lower), -b.size, b.lower, i),
    "life": lambda b, i: (-(b.upper - b.lower), -b.size, b.lower, i),
    "start": lambda b, i: (b.lower, -b.size, i),
}
"""The orders the portfolio tries; `size` (largest first, then the earlier start, then input order) is the
reference's."""


class _Placed:
    """The buffers placed so far, by the steps they live at."""

    def __init__(self, buffers: Sequence[Buffer]):
        steps = sorted({b.lower for b in buffers} | {b.upper for b in buffers})
        self.span = [(bisect.bisect_left(steps, b.lower), bisect.bisect_left(steps, b.upper)) for b in buffers]
        self.at: list[list[int]] = [[] for _ in steps]
        self.long: list[int] = []
        self.offsets = [0] * len(buffers)
        self.sizes = [b.size for b in buffers]

    def add(self, i: int, offset: int) -> None:
        self.offsets[i] = offset
        lo, hi = self.span[i]
        if hi - lo <= SHORT:
            for t in range(lo, hi):
                self.at[t].append(i)
        else:
            self.long.append(i)

    def busy(self, i: int) -> list[tuple[int, int]]:
        """The byte ranges of the placed buffers live beside buffer `i`, sorted."""
        lo, hi = self.span[i]
        found: set[int] = set()
        if hi - lo <= SHORT:
            for t in range(lo, hi):
                found.update(self.at[t])
        else:
            at = self.at
            for t in range(lo, hi):
                if at[t]:
                    found.update(at[t])
        span = self.span
        found.update(j for j in self.long if span[j][0] < hi and lo < span[j][1])
        offsets, sizes = self.offsets, self.sizes
        return sorted((offsets[j], offsets[j] + sizes[j]) for j in found)


def _up(n: int, alignment: int) -> int:
    return -(-n // alignment) * alignment


def first_fit(busy: list[tuple[int, int]], size: int, alignment: int) -> int:
    """The lowest aligned offset where `size` bytes clear every range of `busy` (sorted)."""
    offset = 0
    for lo, hi in busy:
        if offset + size <= lo:
            break
        offset = max(offset, _up(hi, alignment))
    return offset


def best_fit(busy: list[tuple[int, int]], size: int, alignment: int) -> int:
    """The aligned offset of the tightest gap between the ranges of `busy` (sorted) that holds `size` bytes, the
    lowest among equals; above them all where none does."""
    best, best_gap, offset = None, None, 0
    for lo, hi in busy:
        if offset + size <= lo and (best_gap is None or lo - offset < best_gap):
            best, best_gap = offset, lo - offset
        offset = max(offset, _up(hi, alignment))
    return offset if best is None else best


def greedy(buffers: Sequence[Buffer], order: Order = ORDERS["size"], fit=first_fit, alignment: int = 1) -> list[int]:
    """Offsets for `buffers` placed one at a time in `order`, each where `fit` puts it."""
    placed = _Placed(buffers)
    for i in sorted(range(len(buffers)), key=lambda i: order(buffers[i], i)):
        placed.add(i, fit(placed.busy(i), buffers[i].size, alignment))
    return placed.offsets
