"""Every placement algorithm through the real passes, on random plain steps and on steps built to fragment an
arena, each turned into IR (`support.from_model`): the placed step passes `lane-arena-verify`, its arena is at
least the bytes live at any launch and at most the sum of what it places; and an offset corrupted in the IR (two
live arrays made to overlap, or one misaligned) fails `lane-arena-verify`."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from xdsl.dialects.builtin import IntegerAttr

from lanearena import api, placement
from lanearena.analysis.arena_problem import problem
from lanearena.dialects import arena, lane
from lanearena.errors import UserError
from lanearena.model import Step
from lanearena.options import PlaceOptions
from lanearena.passes.convert import plan_of, steps

from ..support.from_model import module_of
from ..support.strategies import fragmenting_steps
from ..support.strategies import steps as random_steps

TIME_LIMIT = 0.05
"""Seconds of search each algorithm gets a step."""

FUZZ = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _placed(step: Step, algorithm: str):
    """`step` as IR, placed by `algorithm` and verified by `lane-arena-verify` (a UserError if it fails)."""
    module = module_of(step)
    api.place(module, PlaceOptions(algorithm, time_limit=TIME_LIMIT))
    api.verify(module)
    return module


def _check_every_algorithm(step: Step) -> None:
    items = problem(step).items
    total = sum(it.bytes for it in items)
    live = max(
        (sum(it.bytes for it in items if it.first <= i <= it.last) for i in range(len(step.launches))), default=0
    )
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


def _regions(module) -> list[tuple]:
    """The placed step's arena arrays and scratch: (op, property holding the offset, offset, first, last), the
    lives as the placement's analysis derives them."""
    step_op = steps(module)[0]
    plan = plan_of(step_op)
    ops = {}
    for op in step_op.body.block.ops:
        if isinstance(op, arena.TensorOp):
            ops.update({(op.tensor_name, form): (op, form.value) for form in op.offsets})
    launch = 0
    for op in step_op.body.block.ops:
        if isinstance(op, lane.LaunchOp):
            ops.update(
                {
                    (launch, b.owner.tag.data): (b.owner, "offset")
                    for b in op.buffers
                    if isinstance(b.owner, arena.ScratchOp)
                }
            )
            launch += 1
    out = [(*ops[(a.tensor, a.form)], a.offset, a.first, a.last) for a in plan.arrays]
    out += [(*ops[(s.launch, s.tag)], s.offset, s.launch, s.launch) for s in plan.scratch]
    return out


def _reparsed(module):
    """`module` printed and parsed again: the corrupted placement as a file would hold it."""
    return api.parse(str(module), "corrupted.mlir")


@settings(FUZZ, max_examples=200)
@given(st.one_of(random_steps(), fragmenting_steps()), st.sampled_from(placement.ALGORITHMS), st.data())
def test_a_corrupted_offset_fails_verify(step, algorithm, data):
    module = _placed(step, algorithm)
    regions = _regions(module)
    pairs = [(a, b) for a in regions for b in regions if a is not b and a[3] <= b[4] and b[3] <= a[4]]
    if pairs and data.draw(st.booleans(), "overlap"):
        a, b = data.draw(st.sampled_from(pairs), "pair")
        b[0].properties[b[1]] = IntegerAttr(a[2], 64)
        expected = "overlaps"
    elif regions:
        a = data.draw(st.sampled_from(regions), "array")
        a[0].properties[a[1]] = IntegerAttr(a[2] + data.draw(st.integers(1, 255), "shift"), 64)
        expected = "is not a multiple of 256"
    else:
        return
    with pytest.raises(UserError, match=expected):
        api.verify(_reparsed(module))
