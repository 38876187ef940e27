"""Greedy placements: the buffers in one order, each at the lowest offset clear of every placed buffer live beside
it (first fit, the reference's `place()`) or in the tightest gap that holds it (best fit).

A small problem (a decoder step's few hundred buffers, a few live at each step) is placed here, in Python, by
scanning the buffers placed at the steps of each life: a few milliseconds, and no numpy or numba to load. A large
one is placed by the compiled loop of `tree.py` in O(n log n) list operations. Both give the same offsets
(`test_placement_paths.py`)."""

from __future__ import annotations

from collections.abc import Sequence

from lanearena.placement.problem import COMPILED_FROM, Buffer, columns, step_ranks

FITS = ("first", "best")
"""`first`: the lowest offset that holds the buffer; `best`: the tightest gap that does (lowest among equals),
above every live buffer where none does."""

ORDERS = ("size", "life", "area", "start")
"""The orders the portfolio tries, in turn, each a sort (ties by input order): `size` (largest first, then the
earlier start: the reference's), `life` (longest first, then size, then start: long lives kept low, as a training
graph's activations want), `area` (size times life, then size, then start), `start` (earliest first, then the
largest)."""

SCAN_WORK = 250_000
"""The most work (`scan_work`: pairs of buffers live together, steps of the lives) a problem may take in Python;
past it the compiled loop places it. Measured: Python does about 5 a microsecond, so this is at most about 50 ms,
where loading numba and the compiled loop takes 0.5-1 s in a fresh process; a decoder step of 1,000 buffers is
about 13,000, a random mix of 1,000 lives up to 1,000 steps 140,000."""


def order(buffers: Sequence[Buffer], name: str = "size") -> list[int]:
    """The indices of `buffers` in the order `name` of `ORDERS`."""
    lowers, uppers, sizes = columns(buffers)
    if sizes and len(sizes) >= COMPILED_FROM:
        from lanearena.placement import compiled

        by = compiled.order(lowers, uppers, sizes, name)
        if by is not None:
            return by
    keys = {
        "size": lambda i: (-sizes[i], lowers[i]),
        "area": lambda i: (-sizes[i] * (uppers[i] - lowers[i]), -sizes[i], lowers[i]),
        "life": lambda i: (lowers[i] - uppers[i], -sizes[i], lowers[i]),
        "start": lambda i: (lowers[i], -sizes[i]),
    }[name]
    return sorted(range(len(buffers)), key=keys)  # a stable sort: ties stay in input order


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
    placer = Placer(buffers, alignment)
    return placer.run(order(buffers, order_) if isinstance(order_, str) else order_, fit, stop)


class Placer:
    """Greedy placements of one list of buffers (at least one) in any number of orders: the steps numbered, the
    sizes rounded and the way to place them (`compiled`) chosen once."""

    def __init__(self, buffers: Sequence[Buffer], alignment: int = 1):
        lowers, uppers, sizes = columns(buffers)
        self.alignment = alignment
        self.compiled = len(sizes) > SCAN_WORK  # each buffer's scan costs at least 1
        if not self.compiled:
            self.first, self.last = step_ranks(lowers, uppers)
            self.compiled = scan_work(self.first, self.last) > SCAN_WORK
        if self.compiled:
            from lanearena.placement import compiled

            self.loop = compiled.GreedyLoop(lowers, uppers, sizes, alignment)
        else:
            # Every placed offset is a multiple of the alignment, so a buffer blocks its size rounded up to it, and
            # the whole placement can count in alignments.
            self.sizes, self.units = sizes, [-(-s // alignment) for s in sizes]

    def run(self, indices: Sequence[int], fit: str = "first", stop: int | None = None) -> tuple[list[int], int]:
        """The offsets of the buffers placed in the order `indices` by `fit`, and how many were placed: with `stop`,
        up to the first that ends above `stop`."""
        if self.compiled:
            units, placed = self.loop.run(indices, fit == "best", stop)
        else:
            units, placed = _scan(self.first, self.last, self.units, self.sizes, indices, fit, self.alignment, stop)
        return [u * self.alignment for u in units], placed


def scan_work(first: Sequence[int], last: Sequence[int]) -> int:
    """`_scan`'s work, whatever the order: the steps of every life, and the pairs of buffers whose lives overlap
    (each pair is met once, when the second of the two is placed)."""
    n, steps = len(first), max(last, default=0) + 1
    starts, ends = [0] * steps, [0] * steps
    for f, l_ in zip(first, last, strict=True):
        starts[f] += 1
        ends[l_] += 1
    started, ended = [0] * steps, [0] * steps  # lives started before step t, lives ended at or before it
    for t in range(1, steps):
        started[t] = started[t - 1] + starts[t - 1]
        ended[t] = ended[t - 1] + ends[t]
    met = sum(started[l_] - ended[f] for f, l_ in zip(first, last, strict=True))  # each overlap twice, itself once
    return sum(last) - sum(first) + (met - n) // 2


def _scan(
    first: list[int],
    last: list[int],
    units: list[int],
    sizes: list[int],
    order_: Sequence[int],
    fit: str,
    alignment: int,
    stop: int | None,
) -> tuple[list[int], int]:
    """`Placer.run` in Python, in units: for each buffer the byte ranges of the placed buffers live at its first
    step (kept a step) and of those starting inside its life, sorted and scanned."""
    live: list[list[tuple[int, int]]] = [[] for _ in range(max(last) + 1)]
    starting: list[list[tuple[int, int]]] = [[] for _ in live]
    offsets = [0] * len(units)
    placed = 0
    for i in order_:
        f, l_, u = first[i], last[i], units[i]
        busy = list(live[f])
        for t in range(f + 1, l_):
            busy += starting[t]
        busy.sort()
        o = 0
        if fit == "first":
            for a, b in busy:
                if o + u <= a:
                    break
                o = max(o, b)
        else:
            best = gap = -1
            for a, b in busy:
                if o + u <= a and (best < 0 or a - o < gap):
                    best, gap = o, a - o
                o = max(o, b)
            o = o if best < 0 else best
        offsets[i] = o
        placed += 1
        span = (o, o + u)
        starting[f].append(span)
        for t in range(f, l_):
            live[t].append(span)
        if stop is not None and o * alignment + sizes[i] > stop:
            break
    return offsets, placed
