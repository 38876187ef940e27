"""A step's arena: its placement problem solved by one of the placement algorithms, as an `ArenaPlan`."""

from __future__ import annotations

from lanearena import placement
from lanearena.analysis.arena_problem import problem
from lanearena.analysis.plan import ArenaPlan, PlacedArray, PlacedScratch
from lanearena.model import Step
from lanearena.options import DEFAULT_PLACING, PlaceOptions


def plan(step: Step, options: PlaceOptions = DEFAULT_PLACING) -> ArenaPlan:
    """Where every array and scratch of `step` that may live in the arena is placed as `options` say, with its
    counters and the arrays kept outside."""
    o = options
    p = problem(step, o.align, o.qblock)
    buffers = [placement.Buffer(it.label, it.first, it.last + 1, it.bytes) for it in p.items]
    result = placement.place(
        buffers, o.algorithm, alignment=o.align, time_limit=o.time_limit, work=o.work, progress=o.progress
    )
    out = ArenaPlan(
        result.height,
        o.align,
        counters=p.counters,
        own=p.own,
        lower_bound=result.lower_bound,
        algorithm=result.algorithm,
    )
    for it, offset in zip(p.items, result.offsets, strict=True):
        if it.tensor is not None:
            assert it.form is not None  # an array's item has both its tensor and its form
            out.arrays.append(PlacedArray(it.tensor, it.form, offset, it.bytes, it.first, it.last))
        else:
            assert it.launch is not None and it.tag is not None  # an item without a tensor is a launch's scratch
            out.scratch.append(PlacedScratch(it.launch, it.tag, offset, it.bytes))
    return out
