"""The pass's analysis and greedy placement against a literal port of the reference `place()`, and the placement
properties every algorithm must keep, over random steps."""

from __future__ import annotations

import dataclasses

from hypothesis import given, settings
from hypothesis import strategies as st

from lanearena import model, placement
from lanearena.analysis.arena import plan
from lanearena.analysis.arena_problem import problem
from lanearena.analysis.check import check
from lanearena.analysis.plan import PlacedScratch
from lanearena.model import Form, Launch, Numerics, Role, Scratch, Step, Tensor, Touch, Whole, Write
from lanearena.options import PlaceOptions

from ..support import seed_reference
from ..support.strategies import steps


def _as_reference(p) -> dict:
    out = {("array", a.tensor, a.form.value): (a.offset, a.bytes, a.first, a.last) for a in p.arrays}
    out.update({("scratch", s.launch, s.tag): (s.offset, s.bytes, s.launch, s.launch) for s in p.scratch})
    return out


@settings(max_examples=300, deadline=None)
@given(steps())
def test_greedy_is_the_reference(step):
    expected, top = seed_reference.place(step)
    got = plan(step, PlaceOptions("greedy"))
    assert _as_reference(got) == expected
    assert got.bytes == top


@settings(max_examples=150, deadline=None)
@given(steps(), st.sampled_from(placement.ALGORITHMS))
def test_every_algorithm_places_safely(step, algorithm):
    p = plan(step, PlaceOptions(algorithm, time_limit=0.5))
    assert check(step, p) == []
    total = sum(it.bytes for it in problem(step).items)
    assert p.lower_bound <= p.bytes <= total
    assert p.bytes <= plan(step, PlaceOptions("greedy")).bytes


@settings(max_examples=150, deadline=None)
@given(steps(), st.data())
def test_a_corrupted_offset_is_caught(step, data):
    p = plan(step, PlaceOptions("greedy"))
    regions = [("array", i, a.first, a.last) for i, a in enumerate(p.arrays)]
    regions += [("scratch", i, s.launch, s.launch) for i, s in enumerate(p.scratch)]
    pairs = [(a, b) for a in regions for b in regions if a != b and a[2] <= b[3] and b[2] <= a[3]]
    if not pairs:
        return
    (ka, ia, _, _), (kb, ib, _, _) = data.draw(st.sampled_from(pairs))
    target = p.arrays[ib] if kb == "array" else p.scratch[ib]
    source = p.arrays[ia] if ka == "array" else p.scratch[ia]
    moved = dataclasses.replace(target, offset=source.offset)
    if kb == "array":
        p.arrays[ib] = moved
    else:
        p.scratch[ib] = moved
    assert any("overlaps" in m for m in check(step, p))


@settings(max_examples=100, deadline=None)
@given(steps(), st.integers(1, 255))
def test_a_misaligned_offset_is_caught(step, shift):
    p = plan(step, PlaceOptions("greedy"))
    if not p.arrays:
        return
    p.arrays[0] = dataclasses.replace(p.arrays[0], offset=p.arrays[0].offset + shift)
    assert any("not a multiple" in m for m in check(step, p))


def test_counters_never_take_arena_bytes():
    t = {"x": Tensor("x", (64,), "f32", Role.INPUT), "y": Tensor("y", (64,), "f32", Role.COMPUTED)}
    launch = Launch(
        "k",
        ("x",),
        ("y",),
        reads=(Touch("x", Form.PLAIN),),
        writes=(Write("y", Form.PLAIN, Whole()),),
        scratch=(Scratch("c", "i32", 4096, counter=True), Scratch("s", "f32", 100)),
    )
    step = Step("s", Numerics.F32, t, [launch], frozenset({"y"}))
    p = plan(step, PlaceOptions("greedy"))
    assert p.bytes == 256 and [c.tag for c in p.counters] == ["c"] and [s.tag for s in p.scratch] == ["s"]
    assert check(step, p) == []
    p.scratch.append(PlacedScratch(0, "c", 256, 4096))
    assert any("counter must keep a zeroed buffer" in m for m in check(step, p))


@settings(max_examples=100, deadline=None)
@given(steps(), st.integers(0, 10**6), st.integers(0, 4096), st.booleans())
def test_the_ports_own_helpers_are_the_packages(step, offset, length, two):
    """The port restates the seed's constants and helpers (and writes `quant_in_place` and the io from the seed's
    comments); the package's must be the same."""
    assert (seed_reference.ALIGN, seed_reference.QBLOCK) == (model.ALIGN, model.QBLOCK)
    assert seed_reference.quant_in_place(offset) == model.quant_in_place(offset)
    for form in Form:
        assert seed_reference.array_bytes(length, form is Form.QUANT, two) == model.array_bytes(length, form, two)
    assert seed_reference.quant_parts(offset, length, two) == model.quant_parts(offset, length, two)
    assert seed_reference.io(step) == step.io()
