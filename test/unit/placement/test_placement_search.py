"""The exact search and the default placement built on it: against brute force on small problems the complete
search finds every optimum and proves nothing lower fits; backjumping only ever returns valid placements; the
loop run as Python and compiled visits the same nodes as the numpy one it replaced and finds the same offsets;
groups of buffers apart in time are placed apart; `check` catches what it should."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from lanearena.placement import Buffer, check, place
from lanearena.placement.best import groups
from lanearena.placement.search import EXHAUSTED, FOUND, Dive, Run, Search

from .reference_search import ReferenceDive


@st.composite
def small_problems(draw, max_buffers: int = 6):
    n = draw(st.integers(1, max_buffers))
    lives = []
    for _ in range(n):
        lower = draw(st.integers(0, 9))
        lives.append((lower, draw(st.integers(lower + 1, 12)), draw(st.integers(1, 6))))
    return lives


def overlapping(a, b) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def optimum(lives) -> int:
    """The lowest height by brute force: every order, each buffer dropped onto those placed before it."""
    best = None
    for order in itertools.permutations(range(len(lives))):
        offsets = {}
        for i in order:
            offsets[i] = max((offsets[j] + lives[j][2] for j in offsets if overlapping(lives[i], lives[j])), default=0)
        top = max(offsets[i] + lives[i][2] for i in offsets)
        best = top if best is None else min(best, top)
    return best


def valid(lives, offsets, capacity) -> bool:
    return all(o >= 0 and o + s <= capacity for o, (_, _, s) in zip(offsets, lives, strict=True)) and all(
        offsets[i] + lives[i][2] <= offsets[j] or offsets[j] + lives[j][2] <= offsets[i]
        for i, j in itertools.combinations(range(len(lives)), 2)
        if overlapping(lives[i], lives[j])
    )


def searched(lives, capacity, keys, backjump, step=10**6):
    """How a search of `lives` under `capacity` ends, run afresh with `step` nodes, then twice as many, until it
    ends, and the offsets it found."""
    s = Search([lo for lo, _, _ in lives], [up for _, up, _ in lives], [size for _, _, size in lives])
    dive = Dive(s, Run(capacity, s.rank(keys, [0] * s.n), backjump))
    while dive.run(step) is None:
        step *= 2
    return dive.outcome, dive.offsets


@settings(max_examples=150, deadline=None)
@given(small_problems(), st.sampled_from(["TWA", "TAW", "WAT", "ZAW"]), st.sampled_from([1, 3, 10**6]))
def test_complete_search_finds_the_optimum_and_proves_it(lives, keys, step):
    best = optimum(lives)
    status, offsets = searched(lives, best, keys, False, step)  # paused and resumed every `step` nodes
    assert status == FOUND and valid(lives, offsets, best)
    assert searched(lives, best - 1, keys, False, step)[0] == EXHAUSTED


@settings(max_examples=150, deadline=None)
@given(small_problems(8), st.sampled_from(["TWA", "TAW"]), st.integers(0, 3))
def test_backjumping_returns_only_valid_placements(lives, keys, slack):
    capacity = max(sum(s for lo, up, s in lives if lo <= t < up) for t in range(13)) + slack
    status, offsets = searched(lives, capacity, keys, backjump=True)
    assert status in (FOUND, EXHAUSTED)
    if status == FOUND:
        assert valid(lives, offsets, capacity)


@st.composite
def crowded_problems(draw):
    """Up to 14 buffers over 30 steps, sizes in units of 1 to 8: enough for the search to branch, exclude and
    backjump."""
    n = draw(st.integers(1, 14))
    lives = []
    for _ in range(n):
        lower = draw(st.integers(0, 25))
        lives.append((lower, draw(st.integers(lower + 1, 30)), draw(st.integers(1, 8))))
    return lives


@st.composite
def cut_rectangles(draw):
    """A rectangle of steps x units cut across time or across the units, up to 60 pieces, in a drawn order: every
    step is full, so the search at the bound must place every piece exactly (deep exclusion chains, backjumps)."""
    steps, height = draw(st.sampled_from([20, 60, 200])), draw(st.sampled_from([16, 40, 64]))
    pieces = [(0, steps, 0, height)]
    for _ in range(draw(st.integers(1, 59))):
        t0, t1, a0, a1 = pieces.pop(draw(st.integers(0, len(pieces) - 1)))
        if t1 - t0 >= 2 and (a1 - a0 < 2 or draw(st.booleans())):
            t = draw(st.integers(t0 + 1, t1 - 1))
            pieces += [(t0, t, a0, a1), (t, t1, a0, a1)]
        elif a1 - a0 >= 2:
            a = draw(st.integers(a0 + 1, a1 - 1))
            pieces += [(t0, t1, a0, a), (t0, t1, a, a1)]
        else:
            pieces.append((t0, t1, a0, a1))
    return draw(st.permutations([(t0, t1, a1 - a0) for t0, t1, a0, a1 in pieces]))


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(crowded_problems(), cut_rectangles()),
    st.sampled_from(["TWA", "TAW", "FTWA", "ZAW"]),
    st.booleans(),
    st.integers(-1, 3),
)
def test_compiled_loop_visits_the_nodes_of_the_python_one(lives, keys, backjump, slack):
    s = Search([lo for lo, _, _ in lives], [up for _, up, _ in lives], [size for _, _, size in lives])
    capacity = max(s.load) + slack
    rank = s.rank(keys, [i % 3 for i in range(s.n)])
    compiled_failures = [0] * s.n
    compiled = Dive(s, Run(capacity, rank, backjump, compiled_failures))
    # `dive.node` run as Python and compiled, from one source: the same nodes, ending, offsets and failures, whether
    # it ends or runs out of nodes.
    for nodes in (7, 5000):
        assert compiled._run(nodes, compiled=False) == compiled._run(nodes, compiled=True)
    python = ReferenceDive(s, Run(capacity, rank, backjump, [0] * s.n))
    python.advance(5000)
    assert compiled.run(5000) == python.outcome
    if python.outcome is None:  # both out of nodes (the Python loop pauses at its last node, ours past it)
        return
    assert compiled.nodes == python.nodes
    assert compiled_failures == python.failures.tolist()
    if python.outcome == FOUND:
        assert compiled.offsets == python.offsets and valid(lives, compiled.offsets, capacity)
    # A run cut short ends unfinished, and a fresh run with enough nodes ends as before.
    if compiled.nodes > 1:
        assert compiled.run(compiled.nodes - 1) is None
        assert compiled.run(compiled.nodes) == python.outcome


DEEP = [
    (167, 200, 5), (161, 167, 2), (0, 131, 2), (77, 193, 2), (167, 200, 6), (85, 98, 9), (105, 176, 2), (149, 167, 3),
    (47, 131, 3), (106, 149, 3), (142, 167, 5), (131, 193, 1), (38, 47, 5), (105, 149, 5), (13, 113, 1), (105, 172, 2),
    (193, 200, 14), (0, 42, 3), (105, 172, 2), (0, 12, 4), (59, 98, 6), (191, 200, 15), (0, 167, 1), (60, 161, 2),
    (0, 131, 1), (113, 193, 3), (2, 193, 1), (16, 49, 4), (0, 12, 5), (105, 149, 1), (13, 113, 2), (16, 49, 4),
    (47, 126, 2), (131, 193, 3), (42, 106, 3), (0, 60, 2), (131, 193, 2), (0, 2, 4), (49, 59, 15), (149, 172, 6),
    (13, 49, 1), (98, 105, 15), (59, 85, 9), (0, 47, 3), (176, 191, 15), (172, 176, 10), (0, 13, 15), (126, 142, 4),
    (2, 77, 2), (47, 126, 2), (12, 193, 1), (47, 142, 1), (105, 176, 3), (16, 49, 6), (12, 13, 3), (12, 38, 5),
    (13, 16, 14), (2, 193, 1),
]  # fmt: skip
"""A cut rectangle of 58 pieces on which the backjumping search goes more than twice as many decisions deep as there
are buffers: conflict sets must hold that many depths."""


def test_conflicts_deeper_than_twice_the_buffers_are_kept_whole():
    s = Search([lo for lo, _, _ in DEEP], [up for _, up, _ in DEEP], [size for _, _, size in DEEP])
    rank = s.rank("ZAW")
    compiled, python = Dive(s, Run(40, rank, backjump=True)), ReferenceDive(s, Run(40, rank, backjump=True))
    python.advance(10**6)
    assert compiled.run(10**6) == python.outcome == FOUND
    assert compiled.nodes == python.nodes and compiled.offsets == python.offsets


def test_groups_split_where_no_life_crosses():
    bs = [Buffer("a", 0, 2, 1), Buffer("b", 5, 9, 1), Buffer("c", 1, 3, 1), Buffer("d", 3, 5, 1)]
    assert groups(bs) == [[0, 2], [3], [1]]


def test_best_reaches_the_bound_where_the_greedy_orders_do_not():
    bs = [
        Buffer("b0", 4, 6, 5),
        Buffer("b1", 0, 4, 2),
        Buffer("b2", 6, 9, 5),
        Buffer("b3", 5, 8, 3),
        Buffer("b4", 3, 5, 5),
        Buffer("b5", 6, 10, 1),
    ]
    greedy, orders, best = place(bs, "greedy"), place(bs, "portfolio"), place(bs, "best", time_limit=2.0)
    assert (greedy.height, orders.height) == (13, 12)
    assert check(bs, best.offsets) == [] and best.height == best.lower_bound == 10 and best.algorithm == "search"


@settings(max_examples=200, deadline=None)
@given(small_problems(8), st.data())
def test_check_agrees_with_every_pair(lives, data):
    bs = [Buffer(f"b{i}", lo, up, size) for i, (lo, up, size) in enumerate(lives)]
    offsets = [data.draw(st.integers(0, 12)) for _ in bs]
    assert (check(bs, offsets) == []) == valid(lives, offsets, 10**9)


def test_check_catches_misaligned_and_negative_offsets():
    bs = [Buffer("a", 0, 2, 256), Buffer("b", 1, 3, 256)]
    assert check(bs, [0, 256], 256) == []
    assert any("not a multiple of 256" in p for p in check(bs, [0, 300], 256))
    assert any("negative" in p for p in check(bs, [-256, 256], 256))
    assert any("share bytes" in p for p in check(bs, [0, 128]))


def test_capacity_is_searched_for_and_progress_reported():
    bs = [
        Buffer("b0", 4, 6, 5),
        Buffer("b1", 0, 4, 2),
        Buffer("b2", 6, 9, 5),
        Buffer("b3", 5, 8, 3),
        Buffer("b4", 3, 5, 5),
        Buffer("b5", 6, 10, 1),
    ]
    lines = []
    p = place(bs, capacity=10, time_limit=2.0, progress=lines.append)
    assert p.height <= 10 and check(bs, p.offsets) == []
    assert lines and lines[-1].startswith("best=10 bound=10 elapsed=")
