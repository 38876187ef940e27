"""Placement algorithms over plain data, with no IR: buffers live over half-open step ranges, each given an offset
so that no two live at once share a byte, as low as can be found.

- `greedy`: the reference's `place()`: largest first (ties: earlier start, then input order), each at the lowest
  offset clear of every placed buffer live beside it.
- `best-fit`: the same order, each in the tightest gap that holds it.
- `portfolio`: every greedy order with both fits, the lowest result.
- `best` (the default): the portfolio, then a search for lower placements until the lower bound or the time limit;
  never above `greedy`."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from lanearena.placement.greedy import ORDERS, best_fit, first_fit, greedy
from lanearena.placement.problem import Buffer, Placement, PlacementError, check, height, lower_bound
from lanearena.placement.search import improve

ALGORITHMS = ("best", "greedy", "best-fit", "portfolio")

__all__ = ["ALGORITHMS", "Buffer", "Placement", "PlacementError", "check", "lower_bound", "place"]


def _portfolio(buffers: Sequence[Buffer], alignment: int, bound: int) -> tuple[list[int], str]:
    """The lowest of every greedy order with both fits (the reference's first), stopping at the bound."""
    best, name = None, ""
    for order_name, order in ORDERS.items():
        for fit_name, fit in (("first", first_fit), ("best", best_fit)):
            offsets = greedy(buffers, order, fit, alignment)
            if best is None or height(buffers, offsets) < height(buffers, best):
                best, name = offsets, f"{order_name}/{fit_name}-fit"
            if height(buffers, best) <= bound:
                return best, name
    return best, name


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
    `best` (default 5 s); with `capacity`, `best` searches until the height is at most it, and a `PlacementError`
    says when it is not reached in time."""
    if algorithm not in ALGORITHMS:
        raise PlacementError(f"unknown algorithm '{algorithm}' (one of {', '.join(ALGORITHMS)})")
    if alignment <= 0:
        raise PlacementError(f"alignment must be positive, not {alignment}")
    bound = lower_bound(buffers)
    if algorithm == "greedy":
        offsets, name = greedy(buffers, alignment=alignment), "greedy"
    elif algorithm == "best-fit":
        offsets, name = greedy(buffers, fit=best_fit, alignment=alignment), "best-fit"
    else:
        target = max(bound, capacity or 0) if algorithm == "best" else bound
        offsets, name = _portfolio(buffers, alignment, target)
        if algorithm == "best" and height(buffers, offsets) > target:
            deadline = time.perf_counter() + (5.0 if time_limit is None else time_limit)
            found = improve(buffers, offsets, alignment, target, deadline, progress)
            if height(buffers, found) < height(buffers, offsets):
                offsets, name = found, "search"
    top = height(buffers, offsets)
    if capacity is not None and top > capacity:
        raise PlacementError(f"no placement within {capacity} bytes found (best {top}, lower bound {bound})")
    return Placement(offsets, top, bound, name)
