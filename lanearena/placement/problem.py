"""The placement problem over plain data: buffers live over half-open step ranges, each to be given an offset so
that no two buffers live at once share a byte."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


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
    events = sorted([(b.lower, b.size) for b in buffers] + [(b.upper, -b.size) for b in buffers])
    live = best = 0
    for _, delta in events:  # at equal steps the ends (negative) come first: half-open lives
        live += delta
        best = max(best, live)
    return best


def height(buffers: Sequence[Buffer], offsets: Sequence[int]) -> int:
    """The highest end of the placed buffers, 0 for none."""
    return max((o + b.size for b, o in zip(buffers, offsets)), default=0)


def check(buffers: Sequence[Buffer], offsets: Sequence[int], alignment: int = 1) -> list[str]:
    """Every way `offsets` fail: live buffers sharing bytes, a negative or misaligned offset; [] when valid."""
    problems = []
    if len(offsets) != len(buffers):
        return [f"{len(offsets)} offsets for {len(buffers)} buffers"]
    for b, o in zip(buffers, offsets):
        if o < 0:
            problems.append(f"buffer {b.id}: negative offset {o}")
        if o % alignment:
            problems.append(f"buffer {b.id}: offset {o} is not a multiple of {alignment}")
    order = sorted(range(len(buffers)), key=lambda i: offsets[i])
    for k, i in enumerate(order):
        a, end = buffers[i], offsets[i] + buffers[i].size
        for j in order[k + 1:]:
            if offsets[j] >= end:
                break
            b = buffers[j]
            if a.lower < b.upper and b.lower < a.upper:
                problems.append(f"buffers {a.id} [{offsets[i]}, {end}) and {b.id} [{offsets[j]}, "
                                f"{offsets[j] + b.size}) are live together and share bytes")
    return problems
