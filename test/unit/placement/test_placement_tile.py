"""The skyline search (`tile.py`) and the default placement's use of it: what it finds is a valid placement under its
capacity; at a capacity with no slack it is complete (every perfect packing cut from a rectangle is found); the
default places such packings at their lower bound, aligned and checked, with the same offsets twice."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lanearena.placement import Buffer, check, lower_bound, place
from lanearena.placement.exact import slack
from lanearena.placement.tile import FAILED, FOUND, Tiling

from .test_placement_search import small_problems, valid


def cut(n: int, seed: int, steps: int, height: int, grain: int = 1) -> list[Buffer]:
    """`n` buffers cut from a rectangle of `steps` x `height` (across time or bytes, at multiples of `grain`
    bytes): every step full, so a perfect packing exists."""
    rng = random.Random(seed)
    pieces = [(0, steps, 0, height)]
    while len(pieces) < n:
        pieces.sort(key=lambda p: ((p[1] - p[0]) * (p[3] - p[2]), p))
        t0, t1, a0, a1 = pieces.pop()
        if (rng.random() < 0.5 or a1 - a0 < 2 * grain) and t1 - t0 >= 2:
            t = rng.randrange(t0 + 1, t1)
            pieces += [(t0, t, a0, a1), (t, t1, a0, a1)]
        elif a1 - a0 >= 2 * grain:
            a = a0 + grain * rng.randrange(1, (a1 - a0) // grain)
            pieces += [(t0, t1, a0, a), (t0, t1, a, a1)]
        else:
            pieces.append((t0, t1, a0, a1))
            break
    rng.shuffle(pieces)
    return [Buffer(f"p{k}", t0, t1, a1 - a0) for k, (t0, t1, a0, a1) in enumerate(pieces)]


def tiling(buffers: list[Buffer]) -> Tiling:
    return Tiling([b.lower for b in buffers], [b.upper for b in buffers], [b.size for b in buffers])


@settings(max_examples=200, deadline=None)
@given(small_problems(8), st.integers(0, 4), st.integers(0, 3))
def test_what_it_finds_is_valid_under_the_capacity(lives, slack, seed):
    bs = [Buffer(f"b{i}", lo, up, size) for i, (lo, up, size) in enumerate(lives)]
    capacity = lower_bound(bs) + slack
    t = tiling(bs)
    if t.run(capacity, 10**6, seed) == FOUND:
        assert valid(lives, t.offsets, capacity)


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 14), st.integers(0, 10**6), st.integers(0, 3))
def test_every_perfect_packing_is_found_at_the_bound(n, seed, order_seed):
    bs = cut(n, seed, steps=12, height=16)
    t = tiling(bs)
    assert slack([b.lower for b in bs], [b.upper for b in bs], [b.size for b in bs], 16) == 0
    assert t.run(16, 10**7, order_seed) == FOUND
    assert check(bs, t.offsets) == [] and max(o + b.size for o, b in zip(t.offsets, bs, strict=True)) == 16


def test_nothing_fits_below_the_most_bytes_live():
    bs = cut(10, 1, steps=12, height=16)
    assert tiling(bs).run(15, 10**6) == FAILED


@pytest.mark.parametrize(("seed", "alignment"), [(0, 1), (1, 256), (2, 4096), (3, 1), (4, 256)])
def test_the_default_places_perfect_packings_at_the_bound(seed, alignment):
    bs = cut(300, seed, steps=600, height=1 << 20, grain=4096)
    first = place(bs, alignment=alignment, work=4_000_000)
    assert check(bs, first.offsets, alignment) == []
    assert all(o % alignment == 0 and o >= 0 for o in first.offsets)
    assert first.height == first.lower_bound == 1 << 20
    assert place(bs, alignment=alignment, work=4_000_000).offsets == first.offsets


def test_a_goal_lifted_by_the_alignment_ends():
    """Two 7-byte buffers live together, aligned to 8: the bound is 14 but the aligned optimum 16 (sizes rounded);
    the greedy's 15 is at it in units, so the skyline search has no capacity to try (it looped, at no work, before)."""
    bs = [Buffer("a", 0, 1, 7), Buffer("b", 0, 1, 7)]
    p = place(bs, alignment=8, work=10_000)
    assert p.offsets == [0, 8] and p.height == 15 and p.lower_bound == 14
