"""Placement algorithms over plain data, with no IR: buffers live over half-open step ranges, each given an offset
so that no two live at once share a byte, as low as can be found.

- `greedy`: the reference's `place()`: largest first (ties: earlier start, then input order), each at the lowest
  offset clear of every placed buffer live beside it.
- `best-fit`: the same order, each in the tightest gap that holds it.
- `portfolio`: every greedy order with both fits, the lowest result, for each group of buffers whose lives overlap.
- `best` (the default): the portfolio, then for each group above the lower bound a skyline search where the arena
  is all but full, and an exact search in the spirit of MiniMalloc (a local search for groups too large for it)
  until the bound, the end of its work, or (for a group too large for the exact search) two greedy placements'
  work without a lower one; never above `greedy`, and the same offsets on a busy machine as on an idle one (the
  work is counted, not timed).

Importing this package loads neither numpy nor numba: a small problem (a decoder step) is placed, bounded and checked
in Python; a large one loads the compiled side (`compiled`) when it is met. Both give the same offsets, and the
searches the same nodes.

Modules: `problem` (the data, the bound, the checker, in exact integers), `greedy` (the greedy family: the orders and
the Python loop) and `tree` (its compiled loop, at any concurrency), `budget` (counted work), `search` (the exact
search) and `dive` (its loop, one source run in Python or compiled), `exact` (the default's search of one group),
`tile` (the skyline search for near-full arenas, compiled), `local` (iterated greedy), `best` (the default's
schedule), `compiled` (the numpy and numba side), `csvio` (MiniMalloc's CSV)."""

from __future__ import annotations

import time
from collections.abc import Sequence

from lanearena.placement.best import best
from lanearena.placement.budget import Budget, Progress
from lanearena.placement.greedy import greedy
from lanearena.placement.problem import Buffer, Placement, PlacementError, check, height, lower_bound, refuse_oversized

ALGORITHMS = ("best", "greedy", "best-fit", "portfolio")

DEFAULT_WORK = 8_000_000
"""The work `best` does when given neither `work` nor `time_limit`: a greedy placement of one buffer counts 16, a
search node the buffers of its group (about 4 s of this machine's time)."""

__all__ = [
    "ALGORITHMS",
    "DEFAULT_WORK",
    "Buffer",
    "Placement",
    "PlacementError",
    "check",
    "height",
    "lower_bound",
    "place",
]


def place(
    buffers: Sequence[Buffer],
    algorithm: str = "best",
    *,
    alignment: int = 1,
    time_limit: float | None = None,
    work: int | None = None,
    capacity: int | None = None,
    progress: Progress = None,
    timings: dict[str, float] | None = None,
) -> Placement:
    """Offsets for `buffers` by `algorithm`, every one a multiple of `alignment`, checked (`check`). `best` does
    `work` (counted, so the offsets do not depend on the machine; `DEFAULT_WORK` when neither it nor `time_limit`
    is given); `time_limit` (seconds) bounds the whole of `best` and `portfolio` besides. With `capacity`, `best`
    searches until the height is at most it, and a `PlacementError` says when it is not reached. `progress` is given
    a line now and then; `timings`, when given, the seconds spent placing (`place`) and checking (`check`)."""
    start = time.perf_counter()
    if algorithm not in ALGORITHMS:
        raise PlacementError(f"unknown algorithm '{algorithm}' (one of {', '.join(ALGORITHMS)})")
    if alignment <= 0:
        raise PlacementError(f"alignment must be positive, not {alignment}")
    if time_limit is not None and not time_limit >= 0:
        raise PlacementError(f"time limit must be a number of seconds >= 0, not {time_limit}")
    if work is not None and work < 0:
        raise PlacementError(f"work must be >= 0, not {work}")
    refuse_oversized(buffers, alignment)
    bound = lower_bound(buffers)
    if capacity is not None and capacity < bound:
        raise PlacementError(f"no placement within {capacity} bytes: {bound} bytes live at once")
    if algorithm in ("greedy", "best-fit"):
        fit = "first" if algorithm == "greedy" else "best"
        offsets, name = greedy(buffers, "size", fit, alignment), algorithm
    else:
        if work is None and time_limit is None and algorithm == "best":
            work = DEFAULT_WORK
        budget = Budget(None if algorithm == "portfolio" else work, None if time_limit is None else start + time_limit)
        offsets, name = best(buffers, alignment, bound, capacity, budget, progress, search=algorithm == "best")
    checking = time.perf_counter()
    problems = check(buffers, offsets, alignment)
    if timings is not None:
        timings.update(place=checking - start, check=time.perf_counter() - checking)
    if problems:  # a bug, never the input's fault: say so rather than return a wrong placement
        raise AssertionError(f"placement by {name} is invalid: {problems[0]}")
    top = height(buffers, offsets)
    if capacity is not None and top > capacity:
        raise PlacementError(f"no placement within {capacity} bytes found (best {top}, lower bound {bound})")
    return Placement(offsets, top, bound, name)
