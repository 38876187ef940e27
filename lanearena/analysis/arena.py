"""A step's arena: its placement problem solved by one of the placement algorithms, as an `ArenaPlan`."""

from __future__ import annotations

from collections.abc import Callable

from lanearena import placement
from lanearena.analysis.lifetimes import problem
from lanearena.analysis.plan import ArenaPlan, PlacedArray, PlacedScratch
from lanearena.model import ALIGN, QBLOCK, Step


def plan(
    step: Step,
    algorithm: str = "best",
    align: int = ALIGN,
    qblock: int = QBLOCK,
    time_limit: float | None = None,
    progress: Callable[[str], None] | None = None,
    work: int | None = None,
) -> ArenaPlan:
    """Where every array and scratch of `step` that may live in the arena is placed by `algorithm`, with its
    counters and the arrays kept outside; `time_limit` and `work` bound the search as in `placement.place`."""
    p = problem(step, align, qblock)
    buffers = [placement.Buffer(it.label, it.first, it.last + 1, it.bytes) for it in p.items]
    result = placement.place(buffers, algorithm, alignment=align, time_limit=time_limit, work=work, progress=progress)
    out = ArenaPlan(
        result.height, align, counters=p.counters, own=p.own, lower_bound=result.lower_bound, algorithm=result.algorithm
    )
    for it, offset in zip(p.items, result.offsets, strict=True):
        if it.tensor is not None:
            assert it.form is not None  # an array's item has both its tensor and its form
            out.arrays.append(PlacedArray(it.tensor, it.form, offset, it.bytes, it.first, it.last))
        else:
            assert it.launch is not None and it.tag is not None  # an item without a tensor is a launch's scratch
            out.scratch.append(PlacedScratch(it.launch, it.tag, offset, it.bytes))
    return out
