"""A local search below the greedy placements, for groups too large for the exact search: iterated greedy. The
buffer that sets the height is moved earlier in the order (it is placed before those that pushed it up), and now
and then two buffers swap; each order is placed first fit, and the lowest placement is kept, until the target
height or the end of the budget."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from lanearena.placement.budget import GREEDY_COST, Budget
from lanearena.placement.greedy import place_in_order
from lanearena.placement.problem import Buffer, height


def _first_fit_in(buffers: Sequence[Buffer], order: list[int], alignment: int, stop: int) -> tuple[list[int], int]:
    """First-fit offsets in `order`, and the first position whose buffer ends above `stop` (len(order) if none)."""
    offsets, placed = place_in_order(buffers, order, "first", alignment, stop)
    if placed < len(order) or max(o + b.size for o, b in zip(offsets, buffers)) > stop:
        return offsets, placed - 1
    return offsets, len(order)


def improve(
    buffers: Sequence[Buffer],
    offsets: list[int],
    alignment: int,
    target: int,
    budget: Budget,
    progress: Callable[[str], None] | None = None,
    seed: int = 0,
) -> list[int]:
    """A placement no higher than `offsets`, as low as found with `budget`; stops once at most `target`."""
    rng = random.Random(seed)
    best, best_height = list(offsets), height(buffers, offsets)
    # Start from the order the placement itself implies: lowest offsets first, then larger.
    order = sorted(range(len(buffers)), key=lambda i: (offsets[i], -buffers[i].size))
    tries = 0
    while best_height > target and not budget.done():
        tries += 1
        found, over = _first_fit_in(buffers, order, alignment, best_height - 1)
        budget.spend(GREEDY_COST * min(over + 1, len(order)))
        if over == len(order):
            best, best_height = list(found), height(buffers, found)
            if progress is not None:
                progress(f"search: best={best_height} target={target} tries={tries}")
            continue
        # The buffer that could not fit under the best height goes earlier, before a random one of those placed.
        i = order.pop(over)
        order.insert(rng.randrange(over + 1) if over else 0, i)
        if rng.random() < 0.2 and len(order) > 1:
            a, b = rng.randrange(len(order)), rng.randrange(len(order))
            order[a], order[b] = order[b], order[a]
    return best
