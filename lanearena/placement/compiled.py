"""The placement's numpy and numba side, for large problems only (imported where one is met, so that a small
problem loads neither): the bound, the check's sweep, the orders and the greedy loop over arrays. Each gives what
its Python counterpart gives, or None where a value does not fit the 64-bit arrays (the caller then takes the exact
Python way)."""

from __future__ import annotations

import sys
import types
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from numba import njit

from lanearena.placement import dive, tree
from lanearena.placement.limit import LIMIT


def twin(module: types.ModuleType) -> types.ModuleType:
    """The compiled twin of a loop written once for both ways (`dive.py`): its source run again as a module of its
    own, with numba's `njit` as `jit`. It shares the source file (numba caches the compiled code beside it, and
    reads the file's stamp to know when it changed)."""
    compiled = types.ModuleType(f"{module.__name__}_compiled")
    compiled.__file__ = module.__file__
    compiled.jit = njit(cache=True)  # type: ignore[attr-defined]
    sys.modules[compiled.__name__] = compiled  # numba's cache finds the module of what it loads by name
    assert module.__file__ is not None
    exec(compile(Path(module.__file__).read_text(), module.__file__, "exec"), compiled.__dict__)
    return compiled


DIVE = twin(dive)


def int_arrays(values: Sequence[Sequence[int]]) -> list[np.ndarray]:
    """`values` as int64 arrays, as the compiled loops take them."""
    return [np.array(v, dtype=np.int64) for v in values]


def zeros(sizes: Sequence[int]) -> list[np.ndarray]:
    """Int64 arrays of zeros of `sizes`: the compiled loop's working rows."""
    return [np.zeros(size, dtype=np.int64) for size in sizes]


def run_dive(
    start: Sequence[np.ndarray], tables: Sequence[np.ndarray], scratch: Sequence[np.ndarray], ctl: list[int]
) -> tuple[int, list[int], list[int]]:
    """One run of `dive.node` compiled (`search.Dive._run`), from the buffer and section tables `start` (copied),
    over the search's `tables` and working rows `scratch`, under the control array `ctl`: its ending, and the
    control array and buffer table it left."""
    b, sec = (a.copy() for a in start)
    control = np.array(ctl, dtype=np.int64)
    ending = DIVE.node(b, sec, control, *tables, *scratch, 0, ctl[DIVE.SECTIONS])
    return int(ending), control.tolist(), b.tolist()


def beside(lowers: Sequence[int], uppers: Sequence[int]) -> list[list[int]]:
    """For each life, the others that overlap it (`search.Search.beside`), by numpy's test of all against each."""
    low, up = np.array(lowers, dtype=np.int64), np.array(uppers, dtype=np.int64)
    out = []
    for i in range(len(low)):
        near = (low < up[i]) & (up > low[i])
        near[i] = False
        out.append(np.flatnonzero(near).tolist())
    return out


def arrays(*values: Sequence[int]) -> list[np.ndarray] | None:
    """`values` as int64 arrays, or None where one is negative or not below `LIMIT` (so that no sum or doubling of
    two of them wraps)."""
    out = []
    for v in values:
        try:
            a = np.asarray(v, dtype=np.int64)
        except OverflowError:
            return None
        if len(a) and (a.min() < 0 or a.max() >= LIMIT):
            return None
        out.append(a)
    return out


def lower_bound(lowers: Sequence[int], uppers: Sequence[int], sizes: Sequence[int]) -> int | None:
    """`problem.lower_bound` of the buffers given as columns (at least one)."""
    got = arrays(lowers, uppers, sizes)
    if got is None or sum(sizes) >= LIMIT:
        return None
    lower, upper, size = got
    steps = np.concatenate([lower, upper])
    delta = np.concatenate([size, -size])
    # At equal steps the ends (negative) come first: half-open lives.
    by = np.argsort(2 * steps + (delta > 0), kind="stable")
    return max(int(np.cumsum(delta[by]).max()), 0)


def valid(
    lowers: Sequence[int], uppers: Sequence[int], sizes: Sequence[int], offsets: Sequence[int], alignment: int
) -> bool:
    """Whether the placement is valid by the compiled sweep; False also where the values do not fit it."""
    got = arrays(lowers, uppers, sizes, offsets)
    if got is None:
        return False
    lower, upper, size, start = got
    end = start + size
    # The ends (i) before the starts (n + i) at one step, each in input order; the buffers by offset, then end.
    events = np.argsort(2 * np.concatenate([upper, lower]) + np.repeat([0, 1], len(size)), kind="stable")
    by_end = np.argsort(end, kind="stable")
    by_offset = by_end[np.argsort(start[by_end], kind="stable")]
    return not (start % alignment).any() and not _overlap(events, by_offset, start, end)


def order(lowers: Sequence[int], uppers: Sequence[int], sizes: Sequence[int], name: str) -> list[int] | None:
    """`greedy.order` by `np.lexsort` (stable, ties by index), or None where an area could wrap."""
    got = arrays(lowers, uppers, sizes)
    if got is None:
        return None
    lower, upper, size = got
    life = upper - lower
    if name == "area" and int(size.max()) * int(life.max()) >= LIMIT:
        return None
    index = np.arange(len(size))
    keys = {  # most significant last, as np.lexsort takes them
        "size": (index, lower, -size),
        "area": (index, lower, -size, -size * life),
        "life": (index, lower, -size, -life),
        "start": (index, -size, lower),
    }[name]
    return np.lexsort(keys).tolist()


def groups(lowers: Sequence[int], uppers: Sequence[int]) -> list[list[int]]:
    """`best.groups` by numpy (at least one buffer)."""
    lower, upper = np.array(lowers, dtype=np.int64), np.array(uppers, dtype=np.int64)
    by = np.argsort(lower, kind="stable")
    reach = np.maximum.accumulate(upper[by])
    # A group starts where a buffer starts at or after every earlier (by start) buffer has ended.
    cuts = np.flatnonzero(lower[by][1:] >= reach[:-1]) + 1
    return [np.sort(part).tolist() for part in np.split(by, cuts)]


class GreedyLoop:
    """`greedy.Placer`'s state for the compiled loop: the lives as leaf ranks, the sizes in units, the level of the
    unions (`tree.level`)."""

    def __init__(self, lowers: Sequence[int], uppers: Sequence[int], sizes: Sequence[int], alignment: int):
        got = arrays(lowers, uppers, sizes)
        assert got is not None  # `place` refused what does not fit (`problem.refuse_oversized`)
        lower, upper, self.size = got
        steps = np.unique(np.concatenate([lower, upper]))
        self.first, self.last = np.searchsorted(steps, lower), np.searchsorted(steps, upper)
        self.units = -(-self.size // alignment)
        self.alignment = alignment
        self.level = tree.level(self.first, self.last)

    def run(self, indices: Sequence[int], best_fit: bool, stop: int | None) -> tuple[list[int], int]:
        offsets, placed = tree.place(
            self.first,
            self.last,
            self.units,
            self.size,
            np.asarray(indices, dtype=np.int64),
            best_fit,
            self.alignment,
            -1 if stop is None else stop,
            self.level,
        )
        return offsets.tolist(), int(placed)


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
