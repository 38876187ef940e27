"""The default placement: for each group of buffers whose lives overlap (transitively), the reference greedy and
then as many other greedy orders as the work allows, the lowest kept; then, for each group still above the target,
a search with its share of the work: the exact search of `search.py` (its capacity lowered by bisection from the
greedy height toward the lower bound) or, for groups too large for it, the local search of `local.py`.

The work is counted, not timed (`Budget`), so the result does not depend on the machine's speed or load; a
deadline, when given, is an extra bound."""

from __future__ import annotations

from collections.abc import Sequence

from lanearena.placement.budget import GREEDY_COST, PATIENCE, Budget, Patience, Progress
from lanearena.placement.greedy import FITS, ORDERS, place_in_order
from lanearena.placement.problem import COMPILED_FROM, Buffer, columns, height

SEARCH_MAX = 3000
"""The most buffers in a group that the exact search takes on (each of its nodes costs time linear in them)."""


def groups(buffers: Sequence[Buffer]) -> list[list[int]]:
    """The indices of `buffers` in groups whose lives overlap transitively, each in input order."""
    lowers, uppers, _ = columns(buffers)
    if len(lowers) >= COMPILED_FROM:
        from lanearena.placement import compiled

        return compiled.groups(lowers, uppers)
    out: list[list[int]] = []
    part: list[int] = []
    reach = 0
    for i in sorted(range(len(lowers)), key=lowers.__getitem__):
        # A group starts where a buffer starts at or after every earlier (by start) buffer has ended.
        if part and lowers[i] >= reach:
            out.append(sorted(part))
            part = []
        part.append(i)
        reach = max(reach, uppers[i]) if len(part) > 1 else uppers[i]
    if part:
        out.append(sorted(part))
    return out


def portfolio(
    buffers: Sequence[Buffer],
    alignment: int,
    target: int,
    budget: Budget | None = None,
    progress: Progress = None,
    patience: Patience | None = None,
) -> tuple[list[int], str]:
    """The lowest of the greedy orders with both fits (the reference's first, always run; then every order first
    fit, then best fit, while the budget and the `patience` last), stopping at `target`."""
    best: list[int] | None = None
    best_height, name = 0, ""
    whole = GREEDY_COST * len(buffers)
    for fit_name in FITS:
        for order_name in ORDERS:
            if best is not None and (
                (budget is not None and (budget.done() or (budget.left is not None and budget.left < whole)))
                or (patience is not None and patience.done())
            ):
                return best, name
            offsets, _ = place_in_order(buffers, order_name, fit_name, alignment)
            if budget is not None:
                budget.spend(whole)
            top = height(buffers, offsets)
            if patience is not None and best is not None:
                patience.spend(whole, top < best_height)
            if best is None or top < best_height:
                best, best_height, name = offsets, top, f"{order_name}/{fit_name}-fit"
            if progress is not None and len(buffers) > 10000:
                progress(f"greedy {order_name}/{fit_name}-fit: height={top} best={best_height}")
            if best_height <= target:
                return best, name
    assert best is not None  # the first order always runs (`best` is None then), and FITS and ORDERS are not empty
    return best, name


def best(
    buffers: Sequence[Buffer],
    alignment: int,
    bound: int,
    capacity: int | None,
    budget: Budget,
    progress: Progress = None,
    search: bool = True,
) -> tuple[list[int], str]:
    """Offsets for `buffers` and the algorithm that placed the highest group: as low as found within `budget` (no
    search without `search`), down to `capacity` when given, else to `bound`."""
    target = bound if capacity is None else max(bound, capacity)
    offsets, names, heights = [0] * len(buffers), [], []
    parts = groups(buffers)
    # The portfolio's orders past the reference's take at most a quarter of the work.
    orders_budget = budget.part(4)
    # A group too large for the exact search has a patience for its other orders and its local search together.
    patiences = [
        Patience(PATIENCE * GREEDY_COST * len(part)) if search and len(part) > SEARCH_MAX else None for part in parts
    ]
    for part, patience in zip(parts, patiences, strict=True):
        group = [buffers[i] for i in part]
        found, name = portfolio(group, alignment, target, orders_budget, progress, patience)
        for i, o in zip(part, found, strict=True):
            offsets[i] = o
        names.append(name)
        heights.append(height(group, found))
    settled: set[int] = set()  # groups at the target, or as low as they can go
    while search and not budget.done():
        above = [k for k in range(len(parts)) if heights[k] > target and k not in settled]
        if not above:
            break
        # The highest group first, with its share of the work left; it need not go below a settled one.
        k = max(above, key=lambda k: heights[k])
        goal = max([target] + [heights[j] for j in settled])
        share = budget.part(len(above))
        group = [buffers[i] for i in parts[k]]
        current = [offsets[i] for i in parts[k]]
        if len(group) <= SEARCH_MAX:
            from lanearena.placement.exact import search as _search

            found = _search(group, current, alignment, goal, capacity is not None, share, budget, bound, progress)
            name = "search"
        else:
            from lanearena.placement.local import improve

            patience = patiences[k]
            assert patience is not None  # made for every group too large for the exact search
            found, name = improve(group, current, alignment, goal, share, patience, progress), "local"
        top = height(group, found)
        if top < heights[k]:
            for i, o in zip(parts[k], found, strict=True):
                offsets[i] = o
            names[k], heights[k] = name, top
        if not share.done():  # stopped early: at the goal, or proved as low as it goes
            settled.add(k)
    highest = max(range(len(parts)), key=lambda k: heights[k], default=None)
    return offsets, names[highest] if highest is not None else "best"
