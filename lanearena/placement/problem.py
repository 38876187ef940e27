"""The placement problem over plain data: buffers live over half-open step ranges, each to be given an offset so
that no two buffers live at once share a byte."""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


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
    """No placement could be made as asked (an unknown algorithm, a capacity not reached in time)."""


def lower_bound(buffers: Sequence[Buffer]) -> int:
    """The most bytes live at one step: no placement is lower."""
    if not buffers:
        return 0
    steps = np.array([b.lower for b in buffers] + [b.upper for b in buffers], dtype=np.int64)
    size = np.array([b.size for b in buffers], dtype=np.int64)
    delta = np.concatenate([size, -size])
    by = np.lexsort((delta, steps))  # at equal steps the ends (negative) come first: half-open lives
    return max(int(np.cumsum(delta[by]).max()), 0)


def height(buffers: Sequence[Buffer], offsets: Sequence[int]) -> int:
    """The highest end of the placed buffers, 0 for none."""
    return max((o + b.size for b, o in zip(buffers, offsets)), default=0)


def check(buffers: Sequence[Buffer], offsets: Sequence[int], alignment: int = 1) -> list[str]:
    """Every misaligned or negative offset and, sweeping the steps, a pair of live buffers sharing bytes for each
    buffer that starts over another; [] when the placement is valid."""
    if len(offsets) != len(buffers):
        return [f"{len(offsets)} offsets for {len(buffers)} buffers"]
    problems = []
    for b, o in zip(buffers, offsets):
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
        for o, end, j in live[max(at - 1, 0):at + 1]:
            if o < span[1] and span[0] < end:
                problems.append(f"buffers {buffers[j].id} [{o}, {end}) and {buffers[i].id} [{span[0]}, {span[1]}) "
                                "are live together and share bytes")
        live.insert(at, span)
    return problems
