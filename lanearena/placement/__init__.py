"""Placement algorithms over plain data (stopgap: the reference greedy only, until the placement module lands)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Buffer:
    id: str
    lower: int
    upper: int
    size: int


@dataclass(frozen=True)
class Placement:
    offsets: list[int]
    height: int
    lower_bound: int
    algorithm: str


class PlacementError(Exception):
    pass


ALGORITHMS = ("greedy", "best")


def lower_bound(buffers: Sequence[Buffer]) -> int:
    events = sorted([(b.lower, b.size) for b in buffers] + [(b.upper, -b.size) for b in buffers],
                    key=lambda e: (e[0], e[1]))
    live = best = 0
    for _, d in events:
        live += d
        best = max(best, live)
    return best


def place(buffers: Sequence[Buffer], algorithm: str = "best", *, alignment: int = 1,
          time_limit: float | None = None, capacity: int | None = None,
          progress: Callable[[str], None] | None = None) -> Placement:
    if algorithm not in ALGORITHMS:
        raise PlacementError(f"unknown algorithm {algorithm}")
    order = sorted(range(len(buffers)), key=lambda i: (-buffers[i].size, buffers[i].lower))
    offsets = [0] * len(buffers)
    done: list[int] = []
    for i in order:
        b = buffers[i]
        busy = sorted((offsets[j], offsets[j] + buffers[j].size) for j in done
                      if buffers[j].lower < b.upper and b.lower < buffers[j].upper)
        o = 0
        for lo, hi in busy:
            if o + b.size <= lo:
                break
            o = max(o, -(-hi // alignment) * alignment)
        offsets[i] = o
        done.append(i)
    height = max((offsets[i] + b.size for i, b in enumerate(buffers)), default=0)
    return Placement(offsets, height, lower_bound(buffers), "greedy")
