"""An exact search for offsets under a capacity, in the spirit of MiniMalloc (Moffitt, ASPLOS 2023), over one
group of buffers whose lives overlap transitively.

Only canonical solutions are searched: every buffer rests on a buffer below it or at 0, and buffers are placed
bottom up, so each goes at the lowest offset clear of those placed (its floor), at the lowest level any unplaced
buffer can take. A node decides one buffer at that level: placed there, or not there ("excluded"); an excluded
buffer must rest on one placed later, so it sits at least that level plus the smallest size beside it.

Inference prunes a node when
- a section (the buffers live at one step) cannot fit its unplaced bytes between the lowest offset any of them can
  take and the capacity,
- an excluded buffer fits wholly below the level: the placement where it sits there instead is searched already
  (dominance), or an excluded buffer has nothing unplaced beside it left to rest on.
A buffer with nothing unplaced beside it is placed at its floor without a branch. Once no unplaced buffer lives
across a step, the stretches of time on either side are solved apart.

With `backjump`, a failure also names the decisions that caused it, and the search returns past the decisions it
does not name. That is a heuristic here (the reasons are not complete in the canonical order), so such a search can
miss a solution, and only a search without it proves that none exists.

A search (`Dive`) runs afresh with a given number of nodes; its loop is `dive.node`, run in Python for a short run
of a small group and compiled otherwise (the same nodes either way)."""

from __future__ import annotations

import bisect
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from lanearena.placement import dive

FOUND, EXHAUSTED = "found", "exhausted"
"""How a search ends: a solution, or no solution in its tree (a proof when not backjumping)."""

PYTHON_WORK = 20_000
"""The most nodes times buffers and sections of its group that a run takes in Python (measured: about 2 microseconds
each, so at most 40 ms: a search of a small step that ends within it loads no numba). A run given more that has not
ended by then runs again from the start compiled, to the same end, and so does every later run of its group."""

PYTHON_BESIDE = 500
"""The most buffers of a group whose neighbours are found in Python (past it, numpy's test of all lives against each
is quicker: 3,000 buffers in 0.05 s rather than 1 s)."""


@dataclass
class Run:
    """A search's parameters: the capacity (in units), the rank of each buffer (lowest decided first at a level),
    backjumping, and where to add up section failures by buffer (or None)."""

    capacity: int
    rank: list[int]
    backjump: bool = False
    failures: list[int] | None = None


class Search:
    """The static data of one group of buffers (lives `[lowers, uppers)`, sizes in units; at least one): its
    sections, each buffer's span of sections and the buffers live beside it, as the loop takes them (flat lists:
    members and neighbours as offsets into one list each, the buffers by first section with where each section's
    starters begin)."""

    def __init__(self, lowers: Sequence[int], uppers: Sequence[int], sizes: Sequence[int]):
        n = len(sizes)
        ends = sorted(set(uppers))
        self.n, self.sections = n, len(ends)
        self.compiled = False  # whether its runs have outgrown Python (`PYTHON_WORK`)
        self.arrays: Any = None  # its lists as the compiled loop takes them (arrays), once it runs compiled
        self.span = [
            (bisect.bisect_right(ends, lo), bisect.bisect_left(ends, up) + 1)
            for lo, up in zip(lowers, uppers, strict=True)
        ]
        members: list[list[int]] = [[] for _ in ends]
        for i, (a, b) in enumerate(self.span):
            for s in range(a, b):
                members[s].append(i)
        self.members = members
        self.flat = [i for m in members for i in m]
        self.member_at = _offsets(members)
        self.first = [a for a, _ in self.span]
        self.last = [b for _, b in self.span]
        self.size = list(sizes)
        if n > PYTHON_BESIDE:
            from lanearena.placement import compiled

            self.beside = compiled.beside(lowers, uppers)
        else:
            by_lower = sorted(range(n), key=lowers.__getitem__)
            starts = [lowers[i] for i in by_lower]
            self.beside = [  # those that start before i ends and end after it starts, but i
                sorted(j for j in by_lower[: bisect.bisect_left(starts, up)] if uppers[j] > lo and j != i)
                for i, (lo, up) in enumerate(zip(lowers, uppers, strict=True))
            ]
        self.beside_at = _offsets(self.beside)
        self.beside_flat = [j for b in self.beside for j in b]
        size_of = self.size.__getitem__
        self.smallest_beside = [min(map(size_of, b), default=dive.BIG) for b in self.beside]
        self.load = [sum(map(size_of, m)) for m in members]
        self.cuts = [0] * self.sections
        for a, b in self.span:
            for s in range(a, b - 1):
                self.cuts[s] += 1
        self.width = [up - lo for lo, up in zip(lowers, uppers, strict=True)]
        self.peak = [max(self.load[a:b]) for a, b in self.span]
        self.by_first = sorted(range(n), key=self.first.__getitem__)
        firsts = [self.first[i] for i in self.by_first]
        self.first_at = [bisect.bisect_left(firsts, s) for s in range(self.sections + 1)]

    def rank(self, keys: str, weights: Sequence[int] | None = None) -> list[int]:
        """Each buffer's rank when sorted by `keys`, each largest first: W(idth of life), A(rea), T(he most bytes
        live at a step of its life), Z (size), F(ailures, `weights`); ties by index."""
        values = {"W": self.width, "A": [w * z for w, z in zip(self.width, self.size, strict=True)]}
        values.update(T=self.peak, Z=self.size, F=list(weights or []))
        order = sorted(range(self.n), key=lambda i: [-values[k][i] for k in keys])
        rank = [0] * self.n
        for r, i in enumerate(order):
            rank[i] = r
        return rank


def _offsets(lists: list[list[int]]) -> list[int]:
    """Where each list starts in their concatenation, and where the last ends."""
    at = [0]
    for x in lists:
        at.append(at[-1] + len(x))
    return at


class Dive:
    """Searches of a `Search` under a `Run`, each afresh with a number of nodes (`run`); the loop is `dive.node`,
    in Python for a short run of a small group, else compiled."""

    def __init__(self, search: Search, p: Run):
        self.s, self.p = search, p
        self.nodes = self.most = 0  # nodes searched and the most buffers placed at once, in the last run
        self.outcome: str | None = None
        self._offsets: list[int] = []
        self._scratch: Any = None  # the loop's working rows (written before read, so kept from run to run)
        self.start: Any = None  # the tables a run starts from, as the compiled loop takes them

    def run(self, nodes: int) -> str | None:
        """Searches afresh, `nodes` nodes at most: FOUND or EXHAUSTED if it ends, else None (also in `outcome`)."""
        if max(self.s.load) > self.p.capacity:
            self.nodes, self.outcome = 0, EXHAUSTED
            return self.outcome
        python_nodes = PYTHON_WORK // (self.s.n + self.s.sections)
        if self.s.compiled:
            ending, ctl, b = self._run(nodes, compiled=True)
        else:
            ending, ctl, b = self._run(min(nodes, python_nodes), compiled=False)
            if ending == dive.STOPPED and nodes > python_nodes:
                self.s.compiled = True
                ending, ctl, b = self._run(nodes, compiled=True)
        n = self.s.n
        if self.p.failures is not None:
            for i in range(n):
                self.p.failures[i] += b[dive.FAILURES * n + i]
        self.nodes, self.most = ctl[dive.NODES], ctl[dive.MOST]
        self._offsets = b[dive.OFFSET * n : dive.OFFSET * n + n]
        self.outcome = {dive.FOUND: FOUND, dive.FAILED: EXHAUSTED}.get(ending)
        return self.outcome

    def tables(self) -> tuple[list[int], list[int]]:
        """The buffer and section tables a run starts from."""
        s, p, n = self.s, self.p, self.s.n
        b = [0] * (dive.BUFFER_ROWS * n)
        for row, values in (
            (dive.EXCL_AT, [-1] * n),
            (dive.FREE_BESIDE, [len(x) for x in s.beside]),
            (dive.SIZE, s.size),
            (dive.FIRST, s.first),
            (dive.LAST, s.last),
            (dive.SMALLEST, s.smallest_beside),
            (dive.RANK, p.rank),
        ):
            b[row * n : row * n + n] = values
        return b, s.load + s.cuts + [0] * s.sections

    def _run(self, nodes: int, compiled: bool) -> tuple[int, list[int], list[int]]:
        """One run of the loop from the start: its ending, control array and buffer table."""
        s, p, n = self.s, self.p, self.s.n
        deepest = 4 * n + 64
        width = max(len(s.beside_flat), 1)
        ctl = [0] * dive.CONTROL
        ctl[dive.LIMIT], ctl[dive.CAPACITY] = nodes, p.capacity
        ctl[dive.BACKJUMP], ctl[dive.COUNT_FAILURES] = int(p.backjump), int(p.failures is not None)
        ctl[dive.BUFFERS], ctl[dive.SECTIONS], ctl[dive.SAVED_WIDTH], ctl[dive.DEEPEST] = n, s.sections, width, deepest
        words = (deepest + dive.WORD - 1) // dive.WORD
        rows = (2 * width, 4 * deepest, deepest, deepest * words, words, n)  # the working rows' sizes
        tables = [s.member_at, s.flat, s.beside_at, s.beside_flat, s.by_first, s.first_at]
        if compiled:
            from lanearena.placement import compiled as numba_side

            if s.arrays is None:
                s.arrays = numba_side.int_arrays(tables)
            if self.start is None:  # the tables a run starts from, and its working rows (written before read)
                self.start, self._scratch = numba_side.int_arrays(self.tables()), numba_side.zeros(rows)
            return numba_side.run_dive(self.start, s.arrays, self._scratch, ctl)
        b, sec = self.tables()
        if self._scratch is None:
            self._scratch = [[0] * size for size in rows]
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, 2 * deepest + 1000))  # a node a decision deep, and one for each apart
        try:
            ending = dive.node(b, sec, ctl, *tables, *self._scratch, 0, s.sections)
        finally:
            sys.setrecursionlimit(limit)
        return ending, ctl, b

    @property
    def offsets(self) -> list[int]:
        """The offsets found, in units."""
        return self._offsets
