"""The placer at scale: the greedy family on generated graphs of thousands of buffers is valid and identical to the
list-scanning greedy; `best` is deterministic under its counted work whatever the clock says, never above the
greedy; a time limit bounds the whole placement; the budget options reach the pass."""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest
from xdsl.utils.arg_spec import parse_pipeline
from xdsl.utils.exceptions import DiagnosticException

from lanearena import api, placement
from lanearena.passes.arena_place import LaneArenaPlace
from lanearena.placement import Buffer, check, place
from lanearena.placement import budget as budget_module
from lanearena.placement.greedy import FITS, greedy

from .test_placement_algorithms import oracle_greedy

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "decode.mlir"


def training(layers: int, seed: int = 0) -> list[Buffer]:
    """A forward and backward pass: each layer's activation lives until its backward step, among temporaries of
    1-3 steps (so many long lives, as in the graphs that made the scanning greedy quadratic)."""
    rng = random.Random(seed)
    out = [Buffer(f"act{k}", k, 2 * layers - k, rng.choice([1024, 4096, 16384])) for k in range(layers)]
    for t in range(2 * layers):
        for _ in range(3):
            out.append(
                Buffer(f"tmp{len(out)}", t, min(t + rng.randint(1, 3), 2 * layers), rng.choice([256, 1024, 65536]))
            )
    return out


@pytest.mark.parametrize("fit", FITS)
def test_greedy_on_a_training_graph_is_the_scanning_greedy(fit):
    buffers = training(300)
    offsets = greedy(buffers, "size", fit, 256)
    assert offsets == oracle_greedy(buffers, "size", fit, 256)
    assert check(buffers, offsets, 256) == []


def test_greedy_places_thousands_of_long_lives_validly():
    buffers = training(4000)
    for order in ("size", "life"):
        assert check(buffers, greedy(buffers, order)) == []


def test_best_is_the_same_on_a_slow_clock(monkeypatch):
    """The default's offsets depend on its counted work, not on how fast the machine is: with a clock that runs a
    thousand times faster (a machine a thousand times slower), the result is the same."""
    buffers = training(60, seed=3) + [Buffer(f"x{k}", k, k + 5, 3000 + 17 * k) for k in range(40)]
    first = place(buffers, work=300_000)
    real = time.perf_counter
    monkeypatch.setattr(budget_module.time, "perf_counter", lambda: 1000 * real())
    again = place(buffers, work=300_000)
    assert again.offsets == first.offsets
    assert again.height <= place(buffers, "greedy").height


def test_no_work_is_the_reference_greedy():
    buffers = training(50)
    assert place(buffers, work=0).offsets == place(buffers, "greedy").offsets


def test_a_time_limit_bounds_the_whole_placement():
    buffers = training(20000)  # 80k buffers: every greedy order together takes far longer than the limit
    start = time.perf_counter()
    p = place(buffers, time_limit=0.5)
    assert time.perf_counter() - start < 8  # the reference greedy always runs; nothing after the limit
    assert check(buffers, p.offsets) == []


def test_bad_budgets_are_refused():
    with pytest.raises(placement.PlacementError, match="time limit"):
        place([Buffer("a", 0, 1, 1)], time_limit=-1)
    with pytest.raises(placement.PlacementError, match="work"):
        place([Buffer("a", 0, 1, 1)], work=-1)


def test_the_pass_takes_work_and_an_integer_time_limit():
    (spec,) = parse_pipeline("lane-arena-place{time_limit=10 work=1000}")
    p = LaneArenaPlace.from_pass_spec(spec)
    assert (p.time_limit, p.work) == (10, 1000)
    module = api.parse_file(str(EXAMPLE))
    p.apply(api.context(), module)
    api.verify(module)
    with pytest.raises(DiagnosticException, match="time_limit must be a positive number of seconds"):
        LaneArenaPlace(time_limit=-1).apply(api.context(), module)


def test_the_portfolio_keeps_long_lives_low():
    """A fifth of the buffers live over half the graph: the reference order leaves holes under them that the
    longest-first order does not, and the default finds it within its work."""
    rng = random.Random(1)
    layers = 1000
    buffers = [Buffer(f"long{k}", k, k + layers, rng.choice([256, 1024, 4096, 16384])) for k in range(layers)]
    buffers += [
        Buffer(f"tmp{k}", k // 2, min(k // 2 + rng.randint(1, 3), 2 * layers), rng.choice([256, 4096, 65536]))
        for k in range(4 * layers)
    ]
    greedy_height = place(buffers, "greedy").height
    best = place(buffers, work=2_000_000)
    assert best.height < greedy_height and check(buffers, best.offsets) == []
