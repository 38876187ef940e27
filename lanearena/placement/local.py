"""A local search below the greedy placements, for groups too large for the exact search: iterated greedy. The
buffer that sets the height is moved earlier in the order (it is placed before those that pushed it up), and now
and then two buffers swap; each order is placed first fit, and the lowest placement is kept, until the target
height, the end of the budget or the end of its patience (`budget.PATIENCE`)."""

from __future__ import annotations

import random
from collections.abc import Sequence

from lanearena.placement.budget import GREEDY_COST, Budget, Patience, Progress
from lanearena.placement.greedy import Placer
from lanearena.placement.problem import Buffer, height


def improve(
    buffers: Sequence[Buffer],
    offsets: list[int],
    alignment: int,
    target: int,
    budget: Budget,
    patience: Patience,
    progress: Progress = None,
    seed: int = 0,
) -> list[int]:
    """A placement no higher than `offsets`, as low as found with `budget`; stops once at most `target`, when the
    budget cannot pay for a whole placement of the group, or at the end of `patience`."""
    rng = random.Random(seed)
    best, best_height = list(offsets), height(buffers, offsets)
    placer = Placer(buffers, alignment)
    # Start from the order the placement itself implies: lowest offsets first, then larger.
    order = sorted(range(len(buffers)), key=lambda i: (offsets[i], -buffers[i].size))
    tries = 0
    whole = GREEDY_COST * len(buffers)  # the work of a whole placement
    while best_height > target and not patience.done() and not budget.done():
        if budget.left is not None and budget.left < whole:  # a try that places them all could not be paid for
            break
        tries += 1
        found, placed = placer.run(order, "first", best_height - 1)
        # A try costs its placements and a pass over the order.
        budget.spend(GREEDY_COST * placed + len(order))
        top = found[order[placed - 1]] + buffers[order[placed - 1]].size
        over = placed - 1 if top > best_height - 1 else len(order)
        patience.spend(GREEDY_COST * placed + len(order), over == len(order))
        if over == len(order):
            best, best_height = found, height(buffers, found)
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
