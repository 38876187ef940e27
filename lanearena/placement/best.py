"""The default placement: the lowest of the greedy orders for each group of buffers whose lives overlap
(transitively), then, for each group still above the target, a search under the time limit: the exact search of
`search.py` (its capacity lowered by bisection from the greedy height toward the lower bound) or, for groups too
large for it, the local search of `local.py`."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence

import numpy as np

from lanearena.placement.greedy import FITS, ORDERS, greedy
from lanearena.placement.local import improve
from lanearena.placement.problem import Buffer, height
from lanearena.placement.search import FOUND, Dive, Run, Search

SEARCH_MAX = 3000
"""The most buffers in a group that the exact search takes on (each of its nodes costs time linear in them)."""

BACKJUMPING = ("TWA", "TAW")
"""The orders (`Search.rank`) of the backjumping searches that take turns, each resumed where it paused."""

LEARNING = "FTWA"
"""The order of the complete search that takes its turn after them, restarted each turn with twice the nodes and
the buffers of the sections that failed most decided first."""

Progress = Callable[[str], None] | None


def groups(buffers: Sequence[Buffer]) -> list[list[int]]:
    """The indices of `buffers` in groups whose lives overlap transitively, each in input order."""
    out: list[list[int]] = []
    end = None
    for i in sorted(range(len(buffers)), key=lambda i: buffers[i].lower):
        if end is None or buffers[i].lower >= end:
            out.append([])
            end = buffers[i].upper
        out[-1].append(i)
        end = max(end, buffers[i].upper)
    return [sorted(g) for g in out]


def portfolio(buffers: Sequence[Buffer], alignment: int, target: int) -> tuple[list[int], str]:
    """The lowest of every greedy order with both fits (the reference's first), stopping at `target`."""
    best, best_height, name = None, 0, ""
    for order_name in ORDERS:
        for fit_name in FITS:
            offsets = greedy(buffers, order_name, fit_name, alignment)
            if best is None or height(buffers, offsets) < best_height:
                best, best_height, name = offsets, height(buffers, offsets), f"{order_name}/{fit_name}-fit"
            if best_height <= target:
                return best, name
    return best, name


def best(buffers: Sequence[Buffer], alignment: int, bound: int, capacity: int | None, time_limit: float | None,
         progress: Progress = None) -> tuple[list[int], str]:
    """Offsets for `buffers` and the algorithm that placed the highest group: as low as found within `time_limit`
    seconds (no search when None), down to `capacity` when given, else to `bound`."""
    start = time.perf_counter()
    target = bound if capacity is None else max(bound, capacity)
    offsets, names, heights = [0] * len(buffers), [], []
    parts = groups(buffers)
    for part in parts:
        found, name = portfolio([buffers[i] for i in part], alignment, target)
        for i, o in zip(part, found):
            offsets[i] = o
        names.append(name)
        heights.append(height([buffers[i] for i in part], found))
    if time_limit is not None:
        deadline = start + time_limit
        settled: set[int] = set()  # groups at the target, or as low as they can go
        while time.perf_counter() < deadline:
            above = [k for k in range(len(parts)) if heights[k] > target and k not in settled]
            if not above:
                break
            # The highest group first, with its share of the time left; it need not go below a settled one.
            k = max(above, key=lambda k: heights[k])
            goal = max([target] + [heights[j] for j in settled])
            until = time.perf_counter() + (deadline - time.perf_counter()) / len(above)
            part = [buffers[i] for i in parts[k]]
            current = [offsets[i] for i in parts[k]]
            if len(part) <= SEARCH_MAX:
                found = _search(part, current, alignment, goal, capacity is not None, until, start, bound, progress)
                name = "search"
            else:
                found, name = improve(part, current, alignment, goal, until, progress), "local"
            if height(part, found) < heights[k]:
                for i, o in zip(parts[k], found):
                    offsets[i] = o
                names[k], heights[k] = name, height(part, found)
            if time.perf_counter() < until:  # stopped early: at the goal, or proved as low as it goes
                settled.add(k)
    top = max(range(len(parts)), key=lambda k: heights[k], default=None)
    return offsets, names[top] if top is not None else "best"


def _search(buffers: list[Buffer], offsets: list[int], alignment: int, goal: int, exact_goal: bool, deadline: float,
            start: float, bound: int, progress: Progress) -> list[int]:
    """Offsets for one group no higher than `offsets`, down to `goal`: the exact search at the goal (with all the time
    when `exact_goal`, else half of it), then at capacities bisected between the goal and the best height found,
    round after round with twice the time a probe (a search is often quicker under a lower capacity than under a
    higher one, so low capacities are worth trying again)."""
    # Every offset is a multiple of the alignment, so a buffer takes its size rounded up to it; the search counts in
    # the greatest common divisor of those sizes.
    rounded = [-(-b.size // alignment) * alignment for b in buffers]
    unit = math.gcd(*rounded)
    search = Search([b.lower for b in buffers], [b.upper for b in buffers], [r // unit for r in rounded])
    best = [offsets, height(buffers, offsets)]
    possible = max(goal // unit, int(search.load.max()))  # no solution below this capacity (proved)

    def fits(capacity: int, seconds: float) -> bool:
        """Whether a placement under `capacity` units is found in `seconds` (kept when lower than the best)."""
        nonlocal possible
        found, proved = _probe(search, capacity, min(deadline, time.perf_counter() + seconds))
        if proved:
            possible = max(possible, capacity + 1)
        if found is None:
            return False
        placed = [o * unit for o in found]
        if height(buffers, placed) < best[1]:
            best[:] = placed, height(buffers, placed)
        if progress is not None:
            progress(f"best={best[1]} bound={bound} elapsed={time.perf_counter() - start:.1f}s")
        return True

    if fits(possible, (deadline - time.perf_counter()) / (1 if exact_goal else 2)) or exact_goal:
        return best[0]
    budget = (deadline - time.perf_counter()) / 32
    while time.perf_counter() < deadline and possible <= (best[1] - 1) // unit:
        low, high = possible, (best[1] - 1) // unit
        while low <= high and time.perf_counter() < deadline:
            capacity = (low + high) // 2
            if fits(capacity, budget):
                high = (best[1] - 1) // unit
            else:
                low = capacity + 1
        budget *= 2
    return best[0]


def _probe(search: Search, capacity: int, deadline: float) -> tuple[list[int] | None, bool]:
    """Offsets in units under `capacity` units found by `deadline` by the searches of `BACKJUMPING` and `LEARNING`
    taking turns (None if not), and whether the complete search proved that there are none."""
    dives = [Dive(search, Run(capacity, search.rank(keys), deadline, backjump=True)) for keys in BACKJUMPING]
    weights = np.zeros(search.n, dtype=np.int64)
    nodes = 2 * search.n
    while time.perf_counter() < deadline:
        for dive in dives:
            if dive.advance(nodes) == FOUND:
                return dive.offsets, False
        dives = [dive for dive in dives if dive.outcome is None]
        failures = np.zeros(search.n, dtype=np.int64)
        learning = Dive(search, Run(capacity, search.rank(LEARNING, weights), deadline, failures=failures))
        outcome = learning.advance(nodes)
        if outcome is not None:
            return (learning.offsets, False) if outcome == FOUND else (None, True)
        weights = weights // 2 + failures * 1000 // max(1, int(failures.max()))
        nodes *= 2
    return None, False
