"""The static launch plan against the plain path it replays: the same launches, the same parameter bytes (packed as
the PTX declares them and unpacked again on the numpy runtime), the same results bit for bit, replayed twice; and
its host cost a launch against the plain path's."""

from __future__ import annotations

import numpy as np
import pytest

from lanearena import api
from lanearena.frontend import decoder_step, load
from lanearena.lowering.codegen.placed import placed
from lanearena.lowering.replay.launch_plan import LaunchPlan, pack, unpack
from lanearena.lowering.runtime.device import NumpyDevice
from lanearena.lowering.runtime.execute import launch, prepare, random_feeds, results
from lanearena.model import QBLOCK, Role
from lanearena.options import PlaceOptions

from ..support.bench import script

launch_cost = script("launch_cost")


def lowered(config: str, numerics: str, *settings: str):
    p = placed(api.place(decoder_step(load(config, [f"numerics={numerics}", *settings])), PlaceOptions("greedy")))
    return p.step, p.lowered


@pytest.mark.parametrize("config", ["tiny", "tiny-moe", "tiny-prefill"])
@pytest.mark.parametrize("numerics", ["f32", "int8", "int8x2"])
def test_a_plan_replays_the_plain_path_bit_for_bit(config, numerics):
    """Two buffer sets from the same feeds: the plain path on one, the plan on the other, twice each; every result
    equal bit for bit after each (NaN where NaN), and every launch of the plain path in the plan, in order."""
    step, low = lowered(config, numerics)
    feeds = random_feeds(step, 1)
    plain_dev, plan_dev = NumpyDevice(), NumpyDevice()
    bp = prepare(plain_dev, low, feeds)
    bq = prepare(plan_dev, low, feeds)
    plan = LaunchPlan(plan_dev, low, bq)
    assert len(plan) == len(low.launches)
    for _ in range(2):
        launch(plain_dev, low, bp)
        plan.replay()
        want, got = results(plain_dev, low, bp), results(plan_dev, low, bq)
        for name in want:
            assert want[name].tobytes() == got[name].tobytes(), name


@pytest.mark.parametrize("config", ["tiny", "tiny-moe", "tiny-prefill"])
def test_the_plan_resets_every_counter_with_one_memset(config):
    """Every counter of the placed step (each launch's counters, as the plan of the placement lists them) lies,
    aligned, in the one range the plan zeroes, and no two overlap; that range is the counters' and nothing else's."""
    p = placed(api.place(decoder_step(load(config, ["numerics=int8"])), PlaceOptions("greedy")))
    low = p.lowered
    b = [(k + 1) << 36 for k in range(len(low.buffers))]
    plan = LaunchPlan(launch_cost.NullDevice(), low, b)
    assert len(plan.zeroed) == 1 and p.plan.counters  # split products count their parts' arrivals
    ((start, nbytes),) = plan.zeroed
    assert nbytes == sum(-(-c.bytes // p.plan.align) * p.plan.align for c in p.plan.counters)
    counter_args = {
        int(a)
        for launch in plan.launches
        for a in launch.args
        if isinstance(a, np.uint64) and start <= a < start + nbytes
    }
    assert len(counter_args) == len(p.plan.counters)
    assert all((a - start) % p.plan.align == 0 for a in counter_args)
    fed = {b[f.buffer] for f in low.feeds.values()}
    assert start not in fed and all(buf.zeroed == (b[k] == start) for k, buf in enumerate(low.buffers))


def test_parameters_pack_as_cuda_lays_them_out():
    """A pointer at a multiple of 8 after a 4-byte int (padding between), each value's bytes little-endian, and
    back again to the same values and types."""
    _, low = lowered("tiny", "f32", "lane_fuse=false")  # unfused: its products are gemv's
    b = [(k + 1) << 36 for k in range(len(low.buffers))]
    launch = next(c for c in low.calls(b) if c.kernel == "gemv")  # (out u64, pitch i32, x u64, ...)
    kernel = launch.kernel
    params = pack(kernel, launch.args)
    assert params[:8] == int(launch.args[0]).to_bytes(8, "little")
    assert params[8:12] == int(launch.args[1]).to_bytes(4, "little", signed=True)
    assert params[12:16] == bytes(4)  # x, a pointer, starts at 16
    assert params[16:24] == int(launch.args[2]).to_bytes(8, "little")
    back = unpack(kernel, params)
    assert [type(a) for a in back] == [type(a) for a in launch.args]
    assert all(np.asarray(a).tobytes() == np.asarray(b).tobytes() for a, b in zip(back, launch.args, strict=True))
    with pytest.raises(TypeError, match="gemv takes"):
        pack("gemv", (np.uint64(1), np.int32(-2), np.uint64(0x10), np.float32(np.nan)))


def test_weight_bytes_count_q8_0_words_and_scales():
    """int8 weights (Q8_0: a byte a value and a 4-byte scale a block) against the same step's f32 weights: every
    matrix weight of the f32 step a quarter plus a scale a block, the norms' f32 vectors the same."""
    f32, int8 = lowered("tiny", "f32")[1], lowered("tiny", "int8")[1]
    quantized = [f.length for f in int8.feeds.values() if f.role is Role.WEIGHT and f.elem == "i8"]
    assert quantized
    saved = sum(n * 4 - (n + 4 * -(-n // QBLOCK)) for n in quantized)
    assert f32.weight_bytes() - int8.weight_bytes() == saved


def test_weight_bytes_count_bf16_two_bytes_a_value():
    """bf16 weights against the same step's f32 weights: every matrix two bytes a value, the norms' f32 the same."""
    f32, bf16 = lowered("tiny", "f32")[1], lowered("tiny", "bf16")[1]
    halved = [f.length for f in bf16.feeds.values() if f.role is Role.WEIGHT and f.elem == "bf16"]
    assert halved
    assert f32.weight_bytes() - bf16.weight_bytes() == sum(2 * n for n in halved)


def test_the_plan_costs_the_host_at_most_a_third_of_the_plain_path():
    """Measured on a device whose launches do nothing, in the same run, interleaved: the plan's host time a launch
    against the plain path's (bench/launch_cost.py prints both; the bound is loose, as the machine is shared)."""
    _, low = lowered("tiny", "int8")
    plain_us, plan_us = launch_cost.host_cost(low, rounds=30)
    assert plan_us < plain_us / 3, (plain_us, plan_us)
