"""The placement problem over plain data: buffers live over half-open step ranges, each to be given an offset so
that no two buffers live at once share a byte. Everything here is in Python's exact integers; a large problem's
bound and check run compiled (`compiled.py`, loaded only then), where the values are known to fit in 64 bits."""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass

from lanearena.placement.limit import LIMIT

COMPILED_FROM = 20_000
"""The buffers from which the bound and the check run compiled (below it, Python takes at most a few tens of
milliseconds; loading numpy and the compiled sweep takes longer)."""


@dataclass(frozen=True)
class Buffer:
    """A buffer of `size` bytes live over the steps `[lower, upper)`."""

    id: str
    lower: int
    upper: int
    size: int


@dataclass(frozen=True)
class Placement:
    """Offsets parallel to the buffers placed, the height they reach, the lower bound, and the algorithm that
    produced them."""

    offsets: list[int]
    height: int
    lower_bound: int
    algorithm: str


class PlacementError(Exception):
    """No placement could be made as asked (an unknown algorithm, a capacity not reached in time, a problem too
    large to count in 64 bits)."""


def columns(buffers: Sequence[Buffer]) -> tuple[list[int], list[int], list[int]]:
    """The buffers' lowers, uppers and sizes."""
    return [b.lower for b in buffers], [b.upper for b in buffers], [b.size for b in buffers]


def step_ranks(lowers: Sequence[int], uppers: Sequence[int]) -> tuple[list[int], list[int]]:
    """Each life as ranks among the steps where lives start or end: `[first, last)`."""
    rank = {step: k for k, step in enumerate(sorted({*lowers, *uppers}))}
    return [rank[s] for s in lowers], [rank[s] for s in uppers]


def refuse_oversized(buffers: Sequence[Buffer], alignment: int) -> None:
    """A `PlacementError` where a step, a size, the alignment or the sum of the sizes (rounded up to the alignment:
    the highest any placement can reach) is not below `LIMIT`, or a life or a size is empty."""
    for b in buffers:
        if not (0 <= b.lower < b.upper < LIMIT and 0 < b.size < LIMIT):
            raise PlacementError(
                f"buffer {b.id}: life [{b.lower}, {b.upper}) and size {b.size} must satisfy "
                f"0 <= lower < upper < 2^62 and 0 < size < 2^62"
            )
    if not 0 < alignment < LIMIT:
        raise PlacementError(f"alignment {alignment} must be positive and below 2^62")
    total = sum(-(-b.size // alignment) * alignment for b in buffers)
    if total >= LIMIT:
        raise PlacementError(f"the sizes add up to {total} bytes aligned, past 2^62: too large to place")


def lower_bound(buffers: Sequence[Buffer]) -> int:
    """The most bytes live at one step: no placement is lower."""
    if buffers and len(buffers) >= COMPILED_FROM:
        from lanearena.placement import compiled

        bound = compiled.lower_bound(*columns(buffers))
        if bound is not None:
            return bound
    # At equal steps the ends (0) come before the starts (1): lives are half-open.
    events = sorted([(b.upper, 0, -b.size) for b in buffers] + [(b.lower, 1, b.size) for b in buffers])
    live = most = 0
    for _, _, size in events:
        live += size
        most = max(most, live)
    return most


def height(buffers: Sequence[Buffer], offsets: Sequence[int]) -> int:
    """The highest end of the placed buffers, 0 for none."""
    return max((o + b.size for b, o in zip(buffers, offsets, strict=True)), default=0)


def check(buffers: Sequence[Buffer], offsets: Sequence[int], alignment: int = 1) -> list[str]:
    """Every misaligned or negative offset and, sweeping the steps, a pair of live buffers sharing bytes for each
    buffer that starts over another; [] when the placement is valid. Exact for any integers."""
    if len(offsets) != len(buffers):
        return [f"{len(offsets)} offsets for {len(buffers)} buffers"]
    if buffers and len(buffers) >= COMPILED_FROM:
        from lanearena.placement import compiled

        # The same sweep compiled, to pass a valid placement of a million buffers in a second; the messages of an
        # invalid one (or of values too large for it) come from the sweep below.
        if compiled.valid(*columns(buffers), offsets, alignment):
            return []
    return _problems(buffers, offsets, alignment)


def _problems(buffers: Sequence[Buffer], offsets: Sequence[int], alignment: int) -> list[str]:
    """`check`'s messages, one sweep in Python."""
    problems = []
    for b, o in zip(buffers, offsets, strict=True):  # `check` returned early on a length mismatch
        if o < 0:
            problems.append(f"buffer {b.id}: negative offset {o}")
        if o % alignment:
            problems.append(f"buffer {b.id}: offset {o} is not a multiple of {alignment}")
    # The live buffers by offset: while they share no byte, one that starts over any of them starts over the one
    # just below it or the one just above it.
    live: list[tuple[int, int, int]] = []
    events = [(b.upper, 0, i) for i, b in enumerate(buffers)] + [(b.lower, 1, i) for i, b in enumerate(buffers)]
    for _, starts, i in sorted(events):  # at one step the lives that end go first: they are half-open
        span = (offsets[i], offsets[i] + buffers[i].size, i)
        at = bisect.bisect_left(live, span)
        if not starts:
            del live[at]
            continue
        for o, end, j in live[max(at - 1, 0) : at + 1]:
            if o < span[1] and span[0] < end:
                problems.append(
                    f"buffers {buffers[j].id} [{o}, {end}) and {buffers[i].id} [{span[0]}, {span[1]}) "
                    "are live together and share bytes"
                )
        live.insert(at, span)
    return problems
