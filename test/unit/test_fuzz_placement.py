"""Every placement algorithm through the real passes, on random plain steps and on steps built to fragment an
arena, each turned into IR (`frontend.from_model`): the placed step passes `lane-arena-verify`, its arena is at
least the bytes live at any launch and at most the sum of what it places; and an offset corrupted in the IR (two
live arrays made to overlap, or one misaligned) fails `lane-arena-verify`."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from xdsl.dialects.builtin import IntAttr

from lanearena import api, placement
from lanearena.analysis.lifetimes import problem
from lanearena.dialects import arena
from lanearena.errors import UserError
from lanearena.frontend.from_model import module_of
from lanearena.model import Step
from lanearena.passes.convert import plan_of, steps

from .strategies import fragmenting_steps
from .strategies import steps as random_steps

TIME_LIMIT = 0.05
"""Seconds of search each algorithm gets a step."""

FUZZ = settings(deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow,
                                                                         HealthCheck.data_too_large])


def _placed(step: Step, algorithm: str):
    """`step` as IR, placed by `algorithm` and verified by `lane-arena-verify` (a UserError if it fails)."""
    module = module_of(step)
    api.place(module, algorithm, time_limit=TIME_LIMIT)
    api.verify(module)
    return module


def _check_every_algorithm(step: Step) -> None:
    items = problem(step).items
    total = sum(it.bytes for it in items)
    live = max((sum(it.bytes for it in items if it.first <= i <= it.last) for i in range(len(step.launches))),
               default=0)
    for algorithm in placement.ALGORITHMS:
        plan = plan_of(steps(_placed(step, algorithm))[0])
        assert live <= plan.lower_bound <= plan.bytes <= total, algorithm
        assert len(plan.arrays) + len(plan.scratch) == len(items), algorithm


@settings(FUZZ, max_examples=200)
@given(random_steps())
def test_every_algorithm_places_random_steps_safely(step):
    _check_every_algorithm(step)


@settings(FUZZ, max_examples=100)
@given(fragmenting_steps())
def test_every_algorithm_places_fragmenting_steps_safely(step):
    _check_every_algorithm(step)


def _regions(module) -> list:
    """The placed step's arena arrays and scratch, each with its live launches."""
    ops = steps(module)[0].body.block.ops
    return [op for op in ops if isinstance(op, (arena.ArrayOp, arena.ScratchOp))]


def _live(op) -> tuple[int, int]:
    return (op.first.data, op.last.data) if isinstance(op, arena.ArrayOp) else (op.launch.data, op.launch.data)


def _reparsed(module):
    """`module` printed and parsed again: the corrupted placement as a file would hold it."""
    return api.parse(str(module), "corrupted.mlir")


@settings(FUZZ, max_examples=200)
@given(st.one_of(random_steps(), fragmenting_steps()), st.sampled_from(placement.ALGORITHMS), st.data())
def test_a_corrupted_offset_fails_verify(step, algorithm, data):
    module = _placed(step, algorithm)
    regions = _regions(module)
    pairs = [(a, b) for a in regions for b in regions
             if a is not b and _live(a)[0] <= _live(b)[1] and _live(b)[0] <= _live(a)[1]]
    if pairs and data.draw(st.booleans(), "overlap"):
        a, b = data.draw(st.sampled_from(pairs), "pair")
        b.properties["offset"] = IntAttr(a.offset.data)
        expected = "overlaps"
    elif regions:
        a = data.draw(st.sampled_from(regions), "array")
        a.properties["offset"] = IntAttr(a.offset.data + data.draw(st.integers(1, 255), "shift"))
        expected = "is not a multiple of 256"
    else:
        return
    with pytest.raises(UserError, match=expected):
        api.verify(_reparsed(module))
