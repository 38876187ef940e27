"""The work a placement may do: counted, so that the result does not depend on the machine's speed or load, with
an optional deadline as an extra bound."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Protocol, TypeVar

T = TypeVar("T")

Progress = Callable[[str], None] | None
"""Where a placement reports how it goes (a line at a time), or None."""

GREEDY_COST = 16
"""Work a greedy placement of one buffer counts: about 8 microseconds of this machine's time, as are 16 units of
any work."""


def node_cost(buffers: int, members: int) -> int:
    """Work a node of the exact search counts in a group of `buffers` with `members` (buffers live at a section,
    summed over the sections): its passes run over the buffers and the sections of their lives."""
    return buffers // 32 + members // 512 + 1


class Budget:
    """The work left (None: no bound) and the deadline (`time.perf_counter()`, None: none); a part of another
    budget spends from it too, and ends with it."""

    def __init__(self, work: int | None, deadline: float | None, parent: Budget | None = None):
        self.left = work
        self.deadline = deadline
        self.parent = parent
        self.start: float = time.perf_counter() if parent is None else parent.start

    def spend(self, work: int) -> None:
        if self.left is not None:
            self.left -= work
        if self.parent is not None:
            self.parent.spend(work)

    def part(self, parts: int) -> Budget:
        """One of `parts` equal shares of the work and the time left."""
        parts = max(parts, 1)
        work = None if self.left is None else max(self.left, 0) // parts
        now = time.perf_counter()
        deadline = None if self.deadline is None else now + max(self.deadline - now, 0) / parts
        return Budget(work, deadline, self)

    def done(self) -> bool:
        """Whether the work is spent or the deadline passed, here or in the budget this is part of."""
        if self.left is not None and self.left <= 0:
            return True
        if self.deadline is not None and time.perf_counter() >= self.deadline:
            return True
        return self.parent is not None and self.parent.done()

    def elapsed(self) -> float:
        """Seconds since the whole budget was made."""
        return time.perf_counter() - self.start


PATIENCE = 2
"""How many whole greedy placements' work the default may spend on a group too large for the exact search without
finding a lower placement (each lower one gives as much again): on a graph where its other orders and its local
search find nothing, it costs a few times the greedy's own time, not the whole budget (65 s against 16 s for the
greedy on 100k buffers with 3,300 live at once, before)."""


class Patience:
    """Work that may be spent without finding a lower placement, given back whole by each lower one found."""

    def __init__(self, work: int):
        self.work = self.left = work

    def spend(self, work: int, lower: bool) -> None:
        """Counts `work` that found a lower placement or not."""
        self.left = self.work if lower else self.left - work

    def done(self) -> bool:
        return self.left <= 0


class Searcher(Protocol):
    nodes: int
    """The nodes its last run searched."""


class Pace:
    """Runs of a compiled search inside a budget: each run's nodes capped by the work left (at `cost` a node) and by
    the deadline (at the pace of the runs before), and spent."""

    def __init__(self, budget: Budget, cost: int):
        self.budget, self.cost = budget, cost
        self.nodes, self.seconds = 0, 0.0

    def run(self, searcher: Searcher, go: Callable[[int], T], nodes: int) -> T:
        """What `go` (a run of `searcher` with at most the nodes it is given) returns, given `nodes`, fewer where the
        work or the time left is shorter."""
        budget = self.budget
        if budget.left is not None:
            nodes = min(nodes, budget.left // self.cost)
        if budget.deadline is not None and self.seconds > 0:
            nodes = min(nodes, int((budget.deadline - time.perf_counter()) * self.nodes / self.seconds))
        start = time.perf_counter()
        outcome = go(max(nodes, 1))
        self.nodes, self.seconds = self.nodes + searcher.nodes, self.seconds + time.perf_counter() - start
        budget.spend(searcher.nodes * self.cost)
        return outcome
