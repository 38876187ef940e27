"""The exact search's loop as it was first written, in Python (a generator over numpy arrays, resumable): the
oracle for the compiled loop of `lanearena.placement.dive`, which must visit the same nodes and find the same
offsets."""

from __future__ import annotations

import itertools
import sys
from collections.abc import Generator
from types import SimpleNamespace
from typing import Literal

import numpy as np

from lanearena.placement.search import Run, Search

FOUND, EXHAUSTED = "found", "exhausted"
_BIG = np.int64(1 << 60)
_ALL = -1


class ReferenceDive:
    """One search of a `Search` under a `Run`, resumable: `advance` runs it some nodes further."""

    def __init__(self, search: Search, p: Run):
        n = search.n
        self.s = SimpleNamespace(  # the search's lists as the arrays this loop was written over
            n=n,
            sections=search.sections,
            span=search.span,
            sizes=search.size,
            size=np.array(search.size, dtype=np.int64),
            first=np.array(search.first, dtype=np.int64),
            last=np.array(search.last, dtype=np.int64),
            members=[np.array(m, dtype=np.intp) for m in search.members],
            flat=np.array(search.flat, dtype=np.intp),
            starts=np.array(search.member_at[:-1], dtype=np.intp),
            beside=[np.array(b, dtype=np.intp) for b in search.beside],
            smallest_beside=np.array(search.smallest_beside, dtype=np.int64),
            load=np.array(search.load, dtype=np.int64),
            cuts=np.array(search.cuts, dtype=np.int64),
        )
        self.p = p
        self.rank = np.array(p.rank, dtype=np.int64)
        self.failures = np.zeros(n, dtype=np.int64)  # section failures by buffer, when `p.failures` is given
        self.nodes = self.depth = self.pause_at = 0
        self.minoff = np.zeros(n, dtype=np.int64)
        self.excluded_at = np.full(n, -1, dtype=np.int64)
        self.placed = np.zeros(n, dtype=bool)
        self.free_beside = np.array([len(b) for b in search.beside], dtype=np.int64)
        self.unplaced = self.s.load.copy()
        self.crossing = self.s.cuts.copy()
        self.offset = np.zeros(n, dtype=np.int64)
        self.placed_depth = np.zeros(n, dtype=np.int64)
        self.lifted_depth = np.zeros(n, dtype=np.int64)
        self.excluded_depth = np.zeros(n, dtype=np.int64)
        self.outcome: str | None = EXHAUSTED if max(search.load) > p.capacity else None
        self._steps = self._node(np.ones(n, dtype=bool), 0, search.sections)

    def advance(self, nodes: int) -> str | None:
        """Searches `nodes` nodes more : FOUND or EXHAUSTED once it ends, else None."""
        if self.outcome is None:
            self.pause_at = self.nodes + nodes
            limit = sys.getrecursionlimit()
            sys.setrecursionlimit(max(limit, 4 * self.s.n + 1000))
            try:
                next(self._steps)
            except StopIteration as end:
                self.outcome = FOUND if end.value[0] else EXHAUSTED
            finally:
                sys.setrecursionlimit(limit)
        return self.outcome

    @property
    def offsets(self) -> list[int]:
        """The offsets found, in units."""
        return self.offset.tolist()

    def _node(self, group: np.ndarray, lo: int, hi: int) -> Generator[None, None, tuple[bool, int]]:
        """Searches the unplaced buffers of `group` (spanning sections `[lo, hi)`), pausing (yielding) at the node
        budget; returns whether they can be placed, and if not the decisions to blame (a bit a
        depth)."""
        self.nodes += 1
        if self.nodes >= self.pause_at:
            yield
        excluded: list[tuple[int, int, int]] = []  # the buffers excluded at this node, each with its exclusion before
        chain: list[tuple[int, int]] = []  # (depth, conflict of placing it)
        found = False
        while True:
            decision = self._decide(group, lo, hi)
            if decision is True:
                found = True
                break
            if decision is None:
                conflict = self.conflict
                break
            c, level, forced = decision
            d = self.depth
            found, conflict = yield from self._place(c, level, group, lo, hi)
            if found:
                break
            if forced:
                conflict = _ALL if conflict >> d & 1 else conflict
                break
            if not conflict >> d & 1:  # placing c was not to blame: neither is leaving it out
                break
            chain.append((d, conflict))
            excluded.append((c, int(self.excluded_at[c]), int(self.excluded_depth[c])))
            self.excluded_at[c], self.excluded_depth[c] = level, d
            self.depth += 1
        for c, at, depth in reversed(excluded):
            self.excluded_at[c], self.excluded_depth[c] = at, depth
        self.depth -= len(excluded)
        if found:
            return True, 0
        for d, placing in reversed(chain):
            if conflict >> d & 1:
                conflict = (placing | conflict) & ~(1 << d) if self.p.backjump else _ALL
        return False, conflict

    def _decide(self, group: np.ndarray, lo: int, hi: int) -> Literal[True] | tuple[int, int, bool] | None:
        """True when `group` is all placed; None when this node fails (its reasons in `self.conflict`); else the
        buffer to decide next, the level it would take, and whether it is placed without a branch."""
        # np.count_nonzero and .nonzero() cost a fraction of .any() and np.flatnonzero on arrays this small.
        free = group & ~self.placed
        if not np.count_nonzero(free):
            return True
        minoff, capacity = self.minoff, self.p.capacity
        excluded = free & (self.excluded_at == minoff)
        if np.count_nonzero(excluded):
            open_ = free & ~excluded
            if not np.count_nonzero(open_):
                self.conflict = _ALL
                return None
            level = int(minoff[open_].min())
            if np.count_nonzero(excluded & (minoff + self.s.size <= level)):
                self.conflict = _ALL
                return None
            stranded = excluded & (self.free_beside == 0)
            if np.count_nonzero(stranded):
                self.conflict = self._blame_stranded(int(stranded.argmax()))
                return None
            floor = np.where(excluded, level + self.s.smallest_beside, minoff)
        else:
            open_, level, floor = free, int(minoff[free].min()), minoff
        lowest = np.minimum.reduceat(np.where(free, floor, _BIG)[self.s.flat], self.s.starts)[lo:hi]
        need = np.minimum(lowest, capacity) + self.unplaced[lo:hi]
        if need.max() > capacity:
            s = int(need.argmax()) + lo
            if self.p.failures is not None:
                self.failures[self.s.members[s]] += 1
            self.conflict = self._blame_section(s, free, excluded) if self.p.backjump else _ALL
            return None
        candidates = open_ & (minoff == level)
        hatless = candidates & (self.free_beside == 0)
        if np.count_nonzero(hatless):
            return int(hatless.argmax()), level, True
        return int(np.where(candidates, self.rank, _BIG).argmin()), level, False

    def _place(
        self, c: int, level: int, group: np.ndarray, lo: int, hi: int
    ) -> Generator[None, None, tuple[bool, int]]:
        """Places buffer `c` at `level`, searches on (pausing as `_node`), and takes it back; the search's outcome."""
        d = self.depth
        self.depth += 1
        self.placed[c], self.offset[c], self.placed_depth[c] = True, level, d
        size, top = self.s.sizes[c], level + self.s.sizes[c]
        near, minoff = self.s.beside[c], self.minoff
        before = minoff[near]
        minoff[near] = np.maximum(before, top)
        if self.p.backjump:
            lifted = self.lifted_depth[near]
            self.lifted_depth[near] = np.where(before < top, d, lifted)
        self.free_beside[near] -= 1
        a, b = self.s.span[c]
        self.unplaced[a:b] -= size
        self.crossing[a : b - 1] -= 1
        x, y = max(a, lo), min(b - 1, hi - 1)
        cuts = ((self.crossing[x:y] == 0).nonzero()[0] + (x + 1)).tolist() if x < y else []
        if cuts:
            found, conflict = yield from self._apart(group, [lo, *cuts, hi])
        else:
            found, conflict = yield from self._node(group, lo, hi)
        self.crossing[a : b - 1] += 1
        self.unplaced[a:b] += size
        self.free_beside[near] += 1
        minoff[near] = before
        if self.p.backjump:
            self.lifted_depth[near] = lifted
        self.placed[c] = False
        self.depth -= 1
        return found, conflict

    def _apart(self, group: np.ndarray, bounds: list[int]) -> Generator[None, None, tuple[bool, int]]:
        """Solves the unplaced buffers of `group` between each pair of `bounds` (sections no buffer crosses)
        apart: whether all can be placed, and the conflict of the first that cannot."""
        free = group & ~self.placed
        for x, y in itertools.pairwise(bounds):
            part = free & (self.s.first < y) & (self.s.last > x)
            if np.count_nonzero(part):
                found, conflict = yield from self._node(part, x, y)
                if not found:
                    return False, conflict
        return True, 0

    def _blame_section(self, s: int, free: np.ndarray, excluded: np.ndarray) -> int:
        """The decisions that leave section `s` short of room: for each of its unplaced buffers, its exclusion or
        the placement that last lifted its floor, when either alone lifts it high enough."""
        unplaced = self.s.members[s][free[self.s.members[s]]]
        low = self.p.capacity - int(self.s.size[unplaced].sum()) + 1
        by_exclusion = excluded[unplaced] & (self.excluded_at[unplaced] + self.s.smallest_beside[unplaced] >= low)
        by_lift = ~by_exclusion & (self.minoff[unplaced] >= low)
        if not (by_exclusion | by_lift).all():
            return _ALL
        conflict = 0
        for depth in set(
            self.excluded_depth[unplaced[by_exclusion]].tolist() + self.lifted_depth[unplaced[by_lift]].tolist()
        ):
            conflict |= 1 << depth
        return conflict

    def _blame_stranded(self, j: int) -> int:
        """The decisions that leave excluded buffer `j` nothing to rest on: its exclusion and every placement
        beside it."""
        conflict = 1 << int(self.excluded_depth[j])
        for depth in self.placed_depth[self.s.beside[j]].tolist():
            conflict |= 1 << depth
        return conflict
