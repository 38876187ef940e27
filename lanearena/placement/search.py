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

A search (`Dive`) runs afresh with a given number of nodes; the loop itself is compiled (`dive.py`)."""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from lanearena.placement import dive

FOUND, EXHAUSTED = "found", "exhausted"
"""How a search ends: a solution, or no solution in its tree (a proof when not backjumping)."""

_BIG = np.int64(1 << 60)


@dataclass
class Run:
    """A search's parameters: the capacity (in units), the rank of each buffer (lowest decided first at a level),
    backjumping, and where to add up section failures by buffer (or None)."""

    capacity: int
    rank: np.ndarray
    backjump: bool = False
    failures: np.ndarray | None = None


class Search:
    """The static data of one group of buffers (lives `[lowers, uppers)`, sizes in units; at least one): its
    sections, each buffer's span of sections and the buffers live beside it."""

    def __init__(self, lowers: Sequence[int], uppers: Sequence[int], sizes: Sequence[int]):
        n = len(sizes)
        ends = sorted(set(uppers))
        self.n, self.sections = n, len(ends)
        self.span = [
            (bisect.bisect_right(ends, lo), bisect.bisect_left(ends, up) + 1)
            for lo, up in zip(lowers, uppers, strict=True)
        ]
        members: list[list[int]] = [[] for _ in ends]
        for i, (a, b) in enumerate(self.span):
            for s in range(a, b):
                members[s].append(i)
        self.members = [np.array(m, dtype=np.intp) for m in members]
        self.flat = np.concatenate(self.members).astype(np.int64)
        self.starts = np.cumsum([0] + [len(m) for m in members[:-1]]).astype(np.intp)
        self.first = np.array([a for a, _ in self.span], dtype=np.intp)
        self.last = np.array([b for _, b in self.span], dtype=np.intp)
        self.size = np.array(sizes, dtype=np.int64)
        self.sizes = [int(s) for s in sizes]
        low, up = np.array(lowers, dtype=np.int64), np.array(uppers, dtype=np.int64)
        self.beside = []
        for i in range(n):
            near = (low < uppers[i]) & (up > lowers[i])
            near[i] = False
            self.beside.append(np.flatnonzero(near))
        self.smallest_beside = np.array([self.size[b].min() if len(b) else _BIG for b in self.beside], dtype=np.int64)
        self.load = np.add.reduceat(self.size[self.flat], self.starts)
        self.cuts = np.zeros(self.sections, dtype=np.int64)
        for a, b in self.span:
            self.cuts[a : b - 1] += 1
        self.width = up - low
        self.peak = np.array([self.load[a:b].max() for a, b in self.span], dtype=np.int64)
        # The same in the compiled loop's flat form: members and neighbours as offsets into one array each, and the
        # buffers by first section with where each section's starters begin.
        self.member_at = np.append(self.starts, len(self.flat)).astype(np.int64)
        self.beside_at = np.cumsum([0] + [len(b) for b in self.beside]).astype(np.int64)
        self.beside_flat = np.concatenate(self.beside).astype(np.int64) if n else np.zeros(0, dtype=np.int64)
        self.by_first = np.argsort(self.first, kind="stable").astype(np.int64)
        self.first_at = np.searchsorted(self.first[self.by_first], np.arange(self.sections + 1)).astype(np.int64)

    def rank(self, keys: str, weights: np.ndarray | None = None) -> np.ndarray:
        """Each buffer's rank when sorted by `keys`, each largest first: W(idth of life), A(rea), T(he most bytes
        live at a step of its life), Z (size), F(ailures, `weights`); ties by index."""
        values = {"W": self.width, "A": self.width * self.size, "T": self.peak, "Z": self.size}
        if weights is not None:
            values["F"] = weights
        order = np.lexsort((np.arange(self.n), *(-values[k] for k in reversed(keys))))
        rank = np.empty(self.n, dtype=np.int64)
        rank[order] = np.arange(self.n)
        return rank


class Dive:
    """Searches of a `Search` under a `Run`, each afresh with a number of nodes (`run`); the loop is `dive.node`."""

    def __init__(self, search: Search, p: Run):
        n, s = search.n, search
        self.s, self.p = search, p
        self.nodes = self.most = 0  # nodes searched and the most buffers placed at once, in the last run
        self.outcome: str | None = None
        b = np.zeros((dive.BUFFER_ROWS, n), dtype=np.int64)
        b[dive.SIZE], b[dive.FIRST], b[dive.LAST] = s.size, s.first, s.last
        b[dive.SMALLEST], b[dive.RANK] = s.smallest_beside, p.rank
        self._b = b
        deepest = 4 * n + 64
        self._saved = np.zeros((2, max(len(s.beside_flat), 1)), dtype=np.int64)
        self._exclusions = np.zeros((4, deepest), dtype=np.int64)
        self._chain = np.zeros(deepest, dtype=np.int64)
        words = (deepest + dive.WORD - 1) // dive.WORD
        self._bits = np.zeros((deepest, words), dtype=np.uint64)
        self._res = np.zeros(words, dtype=np.uint64)
        self._free = np.zeros(n, dtype=np.int64)

    def run(self, nodes: int) -> str | None:
        """Searches afresh, `nodes` nodes at most: FOUND or EXHAUSTED if it ends, else None (also in `outcome`)."""
        s, p, b = self.s, self.p, self._b
        if int(s.load.max()) > p.capacity:
            self.nodes, self.outcome = 0, EXHAUSTED
            return self.outcome
        b[: dive.SIZE] = 0
        b[dive.EXCL_AT] = -1
        b[dive.FREE_BESIDE] = np.diff(s.beside_at)
        sec = np.zeros((dive.SECTION_ROWS, s.sections), dtype=np.int64)
        sec[dive.UNPLACED], sec[dive.CROSSING] = s.load, s.cuts
        ctl = np.zeros(dive.CONTROL, dtype=np.int64)
        ctl[dive.LIMIT], ctl[dive.CAPACITY] = nodes, p.capacity
        ctl[dive.BACKJUMP], ctl[dive.COUNT_FAILURES] = p.backjump, p.failures is not None
        ending = dive.node(
            b, sec, ctl, s.member_at, s.flat, s.beside_at, s.beside_flat, s.by_first, s.first_at, self._saved,
            self._exclusions, self._chain, self._bits, self._res, self._free, 0, s.sections,
        )  # fmt: skip
        if p.failures is not None:
            p.failures += b[dive.FAILURES]
        self.nodes, self.most = int(ctl[dive.NODES]), int(ctl[dive.MOST])
        self.outcome = {dive.FOUND: FOUND, dive.FAILED: EXHAUSTED}.get(int(ending))
        return self.outcome

    @property
    def offsets(self) -> list[int]:
        """The offsets found, in units."""
        return self._b[dive.OFFSET].tolist()
