"""The work a placement may do: counted, so that the result does not depend on the machine's speed or load, with
an optional deadline as an extra bound."""

from __future__ import annotations

import time

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
