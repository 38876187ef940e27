"""The default's search for one group above its goal: the skyline search of `tile.py` where the arena is all but
full, then the exact search of `search.py`, its capacity lowered by bisection from the greedy height toward the
goal."""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from functools import partial
from typing import TYPE_CHECKING

from lanearena.placement.budget import Budget, Pace, Progress, node_cost
from lanearena.placement.problem import Buffer, height
from lanearena.placement.search import FOUND, Dive, Run, Search

if TYPE_CHECKING:
    from lanearena.placement.tile import Tiling

BACKJUMPING = ("TWA", "TAW")
"""The orders (`Search.rank`) of the backjumping searches that take turns, each resumed where it paused."""

LEARNING = "FTWA"
"""The order of the complete search that takes its turn after them, restarted each turn with twice the nodes and
the buffers of the sections that failed most decided first."""


def search(
    buffers: list[Buffer],
    offsets: list[int],
    alignment: int,
    goal: int,
    exact_goal: bool,
    budget: Budget,
    whole: Budget,
    bound: int,
    progress: Progress,
) -> list[int]:
    """Offsets for one group no higher than `offsets`, down to `goal`: the exact search at the goal (with all the
    work when `exact_goal`, else half of it), then at capacities bisected between the goal and the best height
    found, round after round with twice the work a probe (a search is often quicker under a lower capacity than
    under a higher one, so low capacities are worth trying again)."""
    # Every offset is a multiple of the alignment, so a buffer takes its size rounded up to it; the search counts in
    # the greatest common divisor of those sizes.
    rounded = [-(-b.size // alignment) * alignment for b in buffers]
    unit = math.gcd(*rounded)
    search = Search([b.lower for b in buffers], [b.upper for b in buffers], [r // unit for r in rounded])
    best, best_height = offsets, height(buffers, offsets)
    possible = max(goal // unit, max(search.load))  # no solution below this capacity (proved)

    def fits(capacity: int, work: Budget) -> bool:
        """Whether a placement under `capacity` units is found with `work` (kept when lower than the best)."""
        nonlocal possible, best, best_height
        found, proved = _probe(search, capacity, work)
        if proved:
            possible = max(possible, capacity + 1)
        if found is None:
            return False
        placed = [o * unit for o in found]
        if (top := height(buffers, placed)) < best_height:
            best, best_height = placed, top
        if progress is not None:
            progress(f"best={best_height} bound={bound} elapsed={whole.elapsed():.1f}s")
        return True

    # Where the arena is all but full, the skyline search first, taking turns over the buffers stacked by life (each
    # stack placed whole, in input order) and one by one. Stacked, a search does not try every order of buffers that
    # are interchangeable in a stack, where one by one it thrashes (perfect-450-0: none at 1.000x in 400k nodes one
    # by one, one in 5k nodes stacked); but stacks can rule out every perfect packing (perfect-450-17 and -20: none
    # stacked in 400k nodes, one in 40k one by one).
    lowers, uppers = [b.lower for b in buffers], [b.upper for b in buffers]
    if slack(lowers, uppers, rounded, possible * unit) <= TILING_SLACK:
        from lanearena.placement.tile import Tiling

        stacks: dict[tuple[int, int], list[int]] = {}
        for i, life in enumerate(zip(lowers, uppers, strict=True)):
            stacks.setdefault(life, []).append(i)
        layouts = [list(stacks.values()), [[i] for i in range(len(buffers))]]
        tilings = [
            Tiling(
                [lowers[k[0]] for k in layout],
                [uppers[k[0]] for k in layout],
                [sum(rounded[i] for i in k) // unit for k in layout],
            )
            for layout in layouts
        ]
        for which, found in _tile(tilings, possible, (best_height - 1) // unit, budget.part(2)):
            placed = [0] * len(buffers)
            for members, base in zip(layouts[which], found, strict=True):
                at = base * unit
                for i in members:
                    placed[i], at = at, at + rounded[i]
            if (top := height(buffers, placed)) < best_height:
                best, best_height = placed, top
            if progress is not None:
                progress(f"best={best_height} bound={bound} elapsed={whole.elapsed():.1f}s (tiling)")
    if best_height <= goal:
        return best
    if fits(possible, budget.part(1 if exact_goal else 2)) or exact_goal:
        return best
    # A probe's share of what is left, halved each round: an eighth at first (a 32nd left probes too short to find
    # anything where the goal is far: perfect packings of 450 buffers 1.43-1.48x, now 1.21-1.27x; J 1.10x, now 1.06x).
    parts = 8
    while not budget.done() and possible <= (best_height - 1) // unit:
        low, high = possible, (best_height - 1) // unit
        while low <= high and not budget.done():
            capacity = (low + high) // 2
            if fits(capacity, budget.part(parts)):
                high = (best_height - 1) // unit
            else:
                low = capacity + 1
        parts = max(parts // 2, 1)
    return best


def slack(lowers: Sequence[int], uppers: Sequence[int], sizes: Sequence[int], capacity: int) -> float:
    """The share of `capacity` over the steps from the first life's start to the last one's end that no buffer
    takes."""
    area = sum(s * (up - lo) for lo, up, s in zip(lowers, uppers, sizes, strict=True))
    return 1 - area / (capacity * (max(uppers) - min(lowers)))


TILING_SLACK = 0.01
"""The most slack (the share of the arena under the goal left empty at every step) at which the skyline search
runs: with more it is a weak heuristic (it fails MiniMalloc's A-K at their capacities)."""

TILING_LEVELS = (0, 10)
"""The capacities the skyline search tries in turn, in thousandths above the goal: a placement a little above the
goal is kept while the goal is sought (buffer by buffer, perfect-450-0 had none at 1.000x in 400k nodes and one at
1.010x in 320k)."""


def _tile(tilings: list[Tiling], goal: int, top: int, budget: Budget) -> Iterator[tuple[int, list[int]]]:
    """Placements in units found by the skyline searches `tilings` within `budget` (which one and its offsets), each
    under a lower capacity than the one before, from `top` toward `goal`: short runs, each with its own order of
    candidates (the search's time to a solution is heavy tailed), at each of `TILING_LEVELS` below the last found in
    turn, each search in turn."""
    from lanearena.placement.tile import tiled

    # None below the goal, where a run fails at once at no work (and so would forever): the best found can be at the
    # goal already, where sizes rounded up to the alignment lift the goal above the bound.
    levels = sorted(c for c in {min(goal + goal * k // 1000, top) for k in TILING_LEVELS} if c >= goal)
    paces = [Pace(budget, node_cost(len(t.size), int((t.last - t.first).sum()))) for t in tilings]
    restart = 0
    while levels and not budget.done():
        for capacity, which in [(c, w) for c in levels for w in range(len(tilings))]:
            tiling = tilings[which]
            outcome = paces[which].run(tiling, partial(tiling.run, capacity, seed=restart), 4 * len(tiling.size) + 200)
            if tiled(outcome):
                levels = [c for c in levels if c < capacity]
                yield which, tiling.offsets
                break
            if budget.done():
                return
        restart += 1


def _probe(search: Search, capacity: int, budget: Budget) -> tuple[list[int] | None, bool]:
    """Offsets in units under `capacity` units found within `budget` by the searches of `BACKJUMPING` and
    `LEARNING` taking turns, each turn afresh with twice the nodes (None if none found), and whether the complete
    search proved that there are none."""
    dives = [Dive(search, Run(capacity, search.rank(keys), backjump=True)) for keys in BACKJUMPING]
    weights = [0] * search.n
    pace = Pace(budget, node_cost(search.n, len(search.flat)))
    nodes = 2 * search.n

    def run(dive: Dive, nodes: int) -> str | None:
        return pace.run(dive, dive.run, nodes)

    while not budget.done():
        for dive in dives:
            if run(dive, nodes) == FOUND:
                return dive.offsets, False
        dives = [dive for dive in dives if dive.outcome is None]
        failures = [0] * search.n
        learning = Dive(search, Run(capacity, search.rank(LEARNING, weights), failures=failures))
        outcome = run(learning, nodes)
        if outcome is not None:
            return (learning.offsets, False) if outcome == FOUND else (None, True)
        most = max(1, max(failures))
        weights = [w // 2 + f * 1000 // most for w, f in zip(weights, failures, strict=True)]
        nodes *= 2
    return None, False
