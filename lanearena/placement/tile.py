"""A search that fills the arena bottom up as a skyline, for capacities at or just above the lower bound, where the
exact search of `search.py` branches on the wrong buffer: perfect packings (every step full) are exact covers.

The skyline is the height filled at each section (the steps between two buffers' ends). A valley is a stretch of
equal height with higher sections (or the group's ends) on both sides and unplaced bytes in it. The buffer that
sits at a valley's height at one of its sections lives inside the valley, so a node picks the valley section with
the fewest such buffers (fail first, as in Knuth's exact cover) and branches on each of them, largest life first;
then, where the slack of every section in the valley allows, on raising the valley to its lower side (leaving
those bytes empty). A node fails when a buffer cannot fit above the skyline, a section without slack has no buffer
that can sit at its height, or a valley's candidates cannot tile it side by side. At a capacity where no section
has slack the search is complete; with slack it is a heuristic (a gap need not reach the lower side), so a failure
there proves nothing."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

from lanearena.placement.dive import FAILED, FOUND, STOPPED

_BIG = np.int64(1 << 60)


def tiled(outcome: int) -> bool:
    """Whether a run's outcome is a placement."""
    return outcome == FOUND


class Tiling:
    """The skyline search over one group of buffers (lives `[lowers, uppers)`, sizes in units)."""

    def __init__(self, lowers: Sequence[int], uppers: Sequence[int], sizes: Sequence[int]):
        ends = np.unique(np.array(list(lowers) + list(uppers), dtype=np.int64))
        self.first = np.searchsorted(ends, np.array(lowers, dtype=np.int64)).astype(np.int64)
        self.last = np.searchsorted(ends, np.array(uppers, dtype=np.int64)).astype(np.int64)
        self.size = np.array(sizes, dtype=np.int64)
        self.sections = max(len(ends) - 1, 1)
        self.load = np.zeros(self.sections, dtype=np.int64)
        for a, b, s in zip(self.first, self.last, self.size, strict=True):
            self.load[a:b] += s
        self.nodes = self.most = 0  # nodes searched and the most buffers placed at once, in the last run
        self.offsets: list[int] = []

    def run(self, capacity: int, nodes: int, seed: int = 0) -> int:
        """Searches afresh under `capacity` units with `nodes` nodes at most, trying candidates in an order shuffled
        by `seed` (none for 0): FOUND (the offsets in `offsets`), FAILED or STOPPED."""
        if int(self.load.max()) > capacity:
            self.nodes = 0
            return FAILED
        n = len(self.size)
        sky = np.zeros(self.sections, dtype=np.int64)
        offsets = np.zeros(n, dtype=np.int64)
        placed = np.zeros(n, dtype=np.int64)
        ctl = np.array([0, nodes, 0, 0], dtype=np.int64)
        # Longest life first, then largest, then input order: the order candidates are tried in.
        order = np.lexsort((np.arange(n), -self.size, -(self.last - self.first))).astype(np.int64)
        if seed:
            order = np.random.default_rng(seed).permutation(order)
        by_first = np.argsort(self.first, kind="stable").astype(np.int64)
        outcome = _node(
            self.first, self.last, self.size, order, by_first, capacity, sky, self.load.copy(), placed, offsets, ctl
        )
        self.nodes, self.most = int(ctl[0]), int(ctl[3])
        if outcome == FOUND:
            self.offsets = offsets.tolist()
        return int(outcome)


@njit(cache=True)
def _node(first, last, size, order, by_first, capacity, sky, unplaced, placed, offsets, ctl):
    """One node: FOUND, FAILED or STOPPED. `ctl`: the nodes searched, their limit, the buffers placed now and the
    most placed at once."""
    ctl[0] += 1
    if ctl[0] > ctl[1]:
        return STOPPED
    height, valley, end, any_open = _valleys(sky, unplaced)
    if not any_open:
        return FOUND
    if not _candidates_everywhere(first, last, size, capacity, sky, unplaced, placed):
        return FAILED
    viable, tiles = _viable(first, last, size, by_first, capacity, sky, unplaced, placed, valley, end)
    if not tiles:
        return FAILED
    pick = _pick(first, last, capacity, sky, unplaced, valley, viable)
    a = valley[pick]
    b = end[a]
    h = sky[pick]
    for q in range(order.shape[0]):
        i = order[q]
        if not viable[i] or first[i] > pick or last[i] <= pick:
            continue
        placed[i], offsets[i] = 1, h
        ctl[2] += 1
        ctl[3] = max(ctl[3], ctl[2])
        for t in range(first[i], last[i]):
            sky[t] += size[i]
            unplaced[t] -= size[i]
        outcome = _node(first, last, size, order, by_first, capacity, sky, unplaced, placed, offsets, ctl)
        for t in range(first[i], last[i]):
            sky[t] -= size[i]
            unplaced[t] += size[i]
        placed[i] = 0
        ctl[2] -= 1
        if outcome != FAILED:
            return outcome
    # Nothing at this height here: raise the valley to its lower side, where every section has the room.
    left = height[a - 1] if a > 0 else _BIG
    right = height[b] if b < sky.shape[0] else _BIG
    side = min(left, right, capacity)
    for t in range(a, b):
        if side + unplaced[t] > capacity:
            return FAILED
    for t in range(a, b):
        sky[t] = side
    outcome = _node(first, last, size, order, by_first, capacity, sky, unplaced, placed, offsets, ctl)
    for t in range(a, b):
        sky[t] = h
    return outcome


@njit(cache=True)
def _valleys(sky, unplaced):
    """Each section's height (a section with nothing unplaced is a wall, of height `_BIG`), each section's valley
    (its first section) or -1, each valley's end at its first section, and whether any section is open."""
    m = sky.shape[0]
    height = np.empty(m, dtype=np.int64)
    for t in range(m):
        height[t] = sky[t] if unplaced[t] > 0 else _BIG
    valley = np.full(m, -1, dtype=np.int64)
    end = np.zeros(m, dtype=np.int64)
    any_open = False
    a = 0
    while a < m:
        b = a + 1
        while b < m and height[b] == height[a]:
            b += 1
        if height[a] < _BIG:
            any_open = True
            left = height[a - 1] if a > 0 else _BIG
            right = height[b] if b < m else _BIG
            if left > height[a] and right > height[a]:
                for t in range(a, b):
                    valley[t] = a
                end[a] = b
        a = b
    return height, valley, end, any_open


@njit(cache=True)
def _candidates_everywhere(first, last, size, capacity, sky, unplaced, placed):
    """Whether every unplaced buffer fits above the skyline (it only rises) and every section without slack has a
    candidate: an unplaced buffer that would sit at its height (the highest of the buffer's life)."""
    count = np.zeros(sky.shape[0], dtype=np.int64)
    for i in range(first.shape[0]):
        if placed[i]:
            continue
        top = 0
        for t in range(first[i], last[i]):
            top = max(top, sky[t])
        if top + size[i] > capacity:
            return False
        for t in range(first[i], last[i]):
            if sky[t] == top:
                count[t] += 1
    for t in range(sky.shape[0]):
        if unplaced[t] > 0 and count[t] == 0 and sky[t] + unplaced[t] == capacity:
            return False
    return True


@njit(cache=True)
def _viable(first, last, size, by_first, capacity, sky, unplaced, placed, valley, end):
    """The viable candidates (1 each) of every valley, and whether every valley's candidates tile it.

    A valley's candidates sit at its height side by side, so their lives must tile it, but for sections with slack
    (left empty): a candidate is viable when the tiling reaches its start from the valley's start (a pass forward)
    and its end reaches the valley's end (a pass back)."""
    m = sky.shape[0]
    viable = np.zeros(first.shape[0], dtype=np.int64)
    for i in range(first.shape[0]):
        v = valley[first[i]]
        if not placed[i] and v >= 0 and valley[last[i] - 1] == v and sky[first[i]] + size[i] <= capacity:
            viable[i] = 1  # inside one valley, which is flat: a candidate
    reach = np.zeros(m + 1, dtype=np.int64)
    done = np.zeros(m, dtype=np.int64)
    p = 0
    for t in range(m):
        v = valley[t]
        if v == t:
            reach[t] = 1
        while p < first.shape[0] and first[by_first[p]] == t:
            i = by_first[p]
            p += 1
            if v >= 0 and viable[i] and reach[t]:
                if last[i] == end[v]:
                    done[v] = 1
                else:
                    reach[last[i]] = 1
        if v >= 0 and reach[t] and sky[t] + unplaced[t] < capacity:
            if t + 1 == end[v]:
                done[v] = 1
            else:
                reach[t + 1] = 1
    back = np.zeros(m + 1, dtype=np.int64)
    p = first.shape[0] - 1
    for t in range(m - 1, -1, -1):
        v = valley[t]
        if v >= 0 and not done[v]:
            return viable, False
        while p >= 0 and first[by_first[p]] == t:
            i = by_first[p]
            p -= 1
            if viable[i]:
                if reach[t] and (last[i] == end[v] or back[last[i]]):
                    back[t] = 1
                else:
                    viable[i] = 0
        if v >= 0 and sky[t] + unplaced[t] < capacity and (t + 1 == end[v] or back[t + 1]):
            back[t] = 1
    return viable, True


@njit(cache=True)
def _pick(first, last, capacity, sky, unplaced, valley, viable):
    """The valley section to branch at: the fewest viable candidates, those without slack first (they need one);
    ties: the lowest, then the earliest."""
    m = sky.shape[0]
    count = np.zeros(m, dtype=np.int64)
    for i in range(first.shape[0]):
        if viable[i]:
            for t in range(first[i], last[i]):
                count[t] += 1
    pick, pick_slack = -1, 0
    for t in range(m):
        if valley[t] < 0:
            continue
        slack = 1 if sky[t] + unplaced[t] < capacity else 0
        if (
            pick < 0
            or slack < pick_slack
            or (slack == pick_slack and (count[t] < count[pick] or (count[t] == count[pick] and sky[t] < sky[pick])))
        ):
            pick, pick_slack = t, slack
    return pick
