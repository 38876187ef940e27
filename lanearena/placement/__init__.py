"""Placement algorithms over plain data, with no IR: buffers live over half-open step ranges, each given an offset
so that no two live at once share a byte, as low as can be found.

- `greedy`: the reference's `place()`: largest first (ties: earlier start, then input order), each at the lowest
  offset clear of every placed buffer live beside it.
- `best-fit`: the same order, each in the tightest gap that holds it.
- `portfolio`: every greedy order with both fits, the lowest result, for each group of buffers whose lives overlap.
- `best` (the default): the portfolio, then for each group above the lower bound an exact search in the spirit of
  MiniMalloc (a local search for groups too large for it) until the bound or the time limit; never above `greedy`.

Modules: `problem` (the data, the bound, the checker), `greedy`, `search` (the exact search), `local` (iterated
greedy), `best` (the default's schedule), `csvio` (MiniMalloc's CSV)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from lanearena.placement.best import best
from lanearena.placement.greedy import greedy
from lanearena.placement.problem import Buffer, Placement, PlacementError, check, height, lower_bound

ALGORITHMS = ("best", "greedy", "best-fit", "portfolio")

DEFAULT_TIME_LIMIT = 5.0
"""Seconds of search for `best` when no time limit is given."""

__all__ = ["ALGORITHMS", "Buffer", "Placement", "PlacementError", "check", "lower_bound", "place"]


def place(
    buffers: Sequence[Buffer],
    algorithm: str = "best",
    *,
    alignment: int = 1,
    time_limit: float | None = None,
    capacity: int | None = None,
    progress: Callable[[str], None] | None = None,
) -> Placement:
    """Offsets for `buffers` by `algorithm`, every one a multiple of `alignment`. `time_limit` bounds the search of
    `best` (default `DEFAULT_TIME_LIMIT`); with `capacity`, `best` searches until the height is at most it, and a
    `PlacementError` says when it is not reached in time. `progress` is given a line now and then."""
    if algorithm not in ALGORITHMS:
        raise PlacementError(f"unknown algorithm '{algorithm}' (one of {', '.join(ALGORITHMS)})")
    if alignment <= 0:
        raise PlacementError(f"alignment must be positive, not {alignment}")
    bound = lower_bound(buffers)
    if capacity is not None and capacity < bound:
        raise PlacementError(f"no placement within {capacity} bytes: {bound} bytes live at once")
    if algorithm == "greedy":
        offsets, name = greedy(buffers, alignment=alignment), "greedy"
    elif algorithm == "best-fit":
        offsets, name = greedy(buffers, fit="best", alignment=alignment), "best-fit"
    else:
        limit = None if algorithm == "portfolio" else DEFAULT_TIME_LIMIT if time_limit is None else time_limit
        offsets, name = best(buffers, alignment, bound, capacity, limit, progress)
    top = height(buffers, offsets)
    if capacity is not None and top > capacity:
        raise PlacementError(f"no placement within {capacity} bytes found (best {top}, lower bound {bound})")
    return Placement(offsets, top, bound, name)
