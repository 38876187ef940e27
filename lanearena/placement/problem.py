"""The placement problem over plain data: buffers live over half-open step ranges, each to be given an offset so
that no two buffers live at once share a byte."""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numba import njit


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
    # At equal steps the ends (negative) come first: half-open lives.
    by = np.argsort(2 * steps + (delta > 0), kind="stable")
    return max(int(np.cumsum(delta[by]).max()), 0)


def height(buffers: Sequence[Buffer], offsets: Sequence[int]) -> int:
    """The highest end of the placed buffers, 0 for none."""
    if not buffers:
        return 0
    return int((np.array(offsets, dtype=np.int64) + np.array([b.size for b in buffers], dtype=np.int64)).max())


def check(buffers: Sequence[Buffer], offsets: Sequence[int], alignment: int = 1) -> list[str]:
    """Every misaligned or negative offset and, sweeping the steps, a pair of live buffers sharing bytes for each
    buffer that starts over another; [] when the placement is valid."""
    if len(offsets) != len(buffers):
        return [f"{len(offsets)} offsets for {len(buffers)} buffers"]
    if not buffers:
        return []
    # The same sweep compiled, to pass a valid placement of a million buffers in a second; the messages of an
    # invalid one come from the sweep below.
    lower = np.array([b.lower for b in buffers], dtype=np.int64)
    upper = np.array([b.upper for b in buffers], dtype=np.int64)
    start = np.array(offsets, dtype=np.int64)
    end = start + np.array([b.size for b in buffers], dtype=np.int64)
    # The ends (i) before the starts (n + i) at one step, each in input order; the buffers by offset, then end.
    events = np.argsort(2 * np.concatenate([upper, lower]) + np.repeat([0, 1], len(buffers)), kind="stable")
    by_end = np.argsort(end, kind="stable")
    by_offset = by_end[np.argsort(start[by_end], kind="stable")]
    if (start >= 0).all() and not (start % alignment).any() and not _overlap(events, by_offset, start, end):
        return []
    return _problems(buffers, offsets, alignment)


@njit(cache=True)
def _overlap(events, by_offset, start, end):
    """Whether the sweep of `events` (buffer i's end as i, its start as n + i, in order) finds a starting buffer
    sharing bytes with the live one just below or above it by offset (`by_offset`: the buffers in that order). The
    live buffers are a set of ranks in that order, kept in a tree of counts."""
    n = start.shape[0]
    rank = np.empty(n, dtype=np.int64)
    rank[by_offset] = np.arange(n)
    size = 1
    while size < n:
        size <<= 1
    count = np.zeros(2 * size, dtype=np.int64)
    for e in events:
        i = e % n
        r = rank[i]
        if e < n:  # an end
            v = r + size
            while v:
                count[v] -= 1
                v >>= 1
            continue
        v = r + size  # the live rank just below r
        while v > 1 and not (v & 1 and count[v - 1] > 0):
            v >>= 1
        if v > 1:
            v -= 1
            while v < size:
                v = 2 * v + 1 if count[2 * v + 1] > 0 else 2 * v
            j = by_offset[v - size]
            if start[j] < end[i] and start[i] < end[j]:
                return True
        v = r + size  # the live rank just above r
        while v > 1 and not (not v & 1 and count[v + 1] > 0):
            v >>= 1
        if v > 1:
            v += 1
            while v < size:
                v = 2 * v if count[2 * v] > 0 else 2 * v + 1
            j = by_offset[v - size]
            if start[j] < end[i] and start[i] < end[j]:
                return True
        v = r + size
        while v:
            count[v] += 1
            v >>= 1
    return False


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
