"""The placement's two ways, Python for small problems and compiled for large ones, give the same results on drawn
problems: the greedy family's offsets (every order, both fits, any level of the compiled tree's unions, with a
stop), the orders, the bound, the groups and the check; on problems with many buffers live at once too, where the
compiled tree's unions matter."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lanearena.placement import Buffer, check, compiled, lower_bound, place, tree
from lanearena.placement.best import groups
from lanearena.placement.greedy import FITS, ORDERS, _scan, order, scan_work
from lanearena.placement.problem import columns, height, step_ranks

from .test_placement_algorithms import buffer_sets, crowded, oracle_greedy, reference_greedy

problems = st.one_of(buffer_sets(60), crowded())


def compiled_offsets(buffers, indices, fit, alignment, stop=None, level=None):
    loop = compiled.GreedyLoop(*columns(buffers), alignment)
    if level is not None:
        loop.level = level
    units, placed = loop.run(indices, fit == "best", stop)
    return [u * alignment for u in units], placed


def python_offsets(buffers, indices, fit, alignment, stop=None):
    lowers, uppers, sizes = columns(buffers)
    first, last = step_ranks(lowers, uppers)
    units = [-(-s // alignment) for s in sizes]
    found, placed = _scan(first, last, units, sizes, indices, fit, alignment, stop)
    return [u * alignment for u in found], placed


@settings(max_examples=300, deadline=None)
@given(
    problems,
    st.sampled_from(ORDERS),
    st.sampled_from(FITS),
    st.sampled_from([1, 8, 256]),
    st.integers(0, 12),
    st.booleans(),
)
def test_python_and_compiled_greedy_place_alike(buffers, order_name, fit, alignment, level, stopped):
    if not buffers:
        return
    indices = order(buffers, order_name)
    python, placed = python_offsets(buffers, indices, fit, alignment)
    assert python == oracle_greedy(buffers, order_name, fit, alignment)
    assert compiled_offsets(buffers, indices, fit, alignment, level=level) == (python, placed)
    if stopped:  # cut at the height of the first half of the order: both stop at the same buffer
        stop = max(python[i] + buffers[i].size for i in indices[: len(indices) // 2 + 1]) - 1
        assert compiled_offsets(buffers, indices, fit, alignment, stop, level) == python_offsets(
            buffers, indices, fit, alignment, stop
        )


@settings(max_examples=200, deadline=None)
@given(problems, st.sampled_from(ORDERS))
def test_python_and_numpy_orders_agree(buffers, name):
    if buffers:
        assert compiled.order(*columns(buffers), name) == order(buffers, name)


@settings(max_examples=200, deadline=None)
@given(problems, st.data())
def test_python_and_compiled_bound_and_check_agree(buffers, data):
    if not buffers:
        return
    assert compiled.lower_bound(*columns(buffers)) == lower_bound(buffers)
    assert compiled.groups(*columns(buffers)[:2]) == groups(buffers)
    offsets = place(buffers, "greedy").offsets
    if data.draw(st.booleans()):  # a wrong placement as often as a right one
        i = data.draw(st.integers(0, len(buffers) - 1))
        offsets[i] = data.draw(st.integers(0, height(buffers, offsets)))
    assert compiled.valid(*columns(buffers), offsets, 1) == (check(buffers, offsets) == [])


@settings(max_examples=100, deadline=None)
@given(crowded(200), st.sampled_from([1, 256]))
def test_crowded_placements_are_valid_and_the_reference(buffers, alignment):
    p = place(buffers, "greedy", alignment=alignment)
    assert p.offsets == reference_greedy(buffers, alignment)
    assert check(buffers, p.offsets, alignment) == []
    assert all(o % alignment == 0 and o >= 0 for o in p.offsets)
    assert p.height == height(buffers, p.offsets) >= p.lower_bound


def test_a_decoder_step_is_placed_without_the_compiled_loop():
    """A decoder step's size (a residual a layer, short-lived activations) costs the Python scan far less than its
    bound, so neither numpy nor numba is needed for it."""
    rng = random.Random(0)
    buffers = []
    for layer in range(28):
        t = 16 * layer
        buffers.append(Buffer(f"x{layer}", t, t + 16, 4096))
        for k in range(30):
            life = rng.randint(1, 3)
            buffers.append(Buffer(f"a{layer}.{k}", t + k // 2, t + k // 2 + life, 256 * rng.randint(1, 64)))
    first, last = step_ranks(*columns(buffers)[:2])
    assert scan_work(first, last) < 50_000


def test_the_tree_level_follows_the_lives():
    """Short lives keep unions from the leaves up; long lives from higher up (fewer unions to file in)."""
    import numpy as np

    short = tree.level(np.zeros(100, dtype=np.int64), np.full(100, 4, dtype=np.int64))
    long = tree.level(np.zeros(100, dtype=np.int64), np.full(100, 4096, dtype=np.int64))
    assert short == 0 and long == 9


def ways(monkeypatch, compiled: bool) -> None:
    """Every choice between Python and compiled made one way: the greedy, the search, the bound and the check."""
    import sys

    from lanearena.placement import problem, search

    greedy = sys.modules["lanearena.placement.greedy"]  # the package's `greedy` is the function
    monkeypatch.setattr(greedy, "SCAN_WORK", -1 if compiled else 10**18)
    monkeypatch.setattr(search, "PYTHON_WORK", 0 if compiled else 10**18)
    for module in (greedy, problem):
        monkeypatch.setattr(module, "COMPILED_FROM", 0 if compiled else 10**18)


@settings(max_examples=60, deadline=None)
@given(st.one_of(buffer_sets(30), crowded(40)), st.sampled_from(["best", "portfolio", "greedy", "best-fit"]))
def test_every_algorithm_places_alike_both_ways(buffers, algorithm):
    """`place` end to end, everything in Python against everything compiled: the same offsets, by the same
    algorithm (the default's work is counted the same both ways)."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        ways(monkeypatch, compiled=False)
        python = place(buffers, algorithm, alignment=8, work=20_000)
        ways(monkeypatch, compiled=True)
        compiled_ = place(buffers, algorithm, alignment=8, work=20_000)
    assert python == compiled_
