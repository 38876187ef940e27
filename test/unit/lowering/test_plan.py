"""The static launch plan against the plain path it records: the same launches, the same parameter bytes (packed as
the PTX declares them and unpacked again on the numpy runtime), the same results bit for bit, replayed twice; and
its host cost a launch against the plain path's."""

from __future__ import annotations

import numpy as np
import pytest

from lanearena import api
from lanearena.frontend import decoder_step, load
from lanearena.lowering.compile import placed
from lanearena.lowering.device import NumpyDevice
from lanearena.lowering.graph import weight_bytes
from lanearena.lowering.plan import LaunchPlan, pack, record, unpack
from lanearena.lowering.runtime import load as load_module
from lanearena.lowering.runtime import prepare, random_feeds, results
from lanearena.model import QBLOCK
from lanearena.options import PlaceOptions

from ..support.bench import script

launch_cost = script("launch_cost")


def emitted(config: str, numerics: str, *settings: str):
    p = placed(api.place(decoder_step(load(config, [f"numerics={numerics}", *settings])), PlaceOptions("greedy")))
    return p.step, load_module(p.source())


@pytest.mark.parametrize("config", ["tiny", "tiny-moe", "tiny-prefill"])
@pytest.mark.parametrize("numerics", ["f32", "int8", "int8x2"])
def test_a_plan_replays_the_plain_path_bit_for_bit(config, numerics):
    """Two buffer sets from the same feeds: the plain path on one, the plan on the other, twice each; every result
    equal bit for bit after each (NaN where NaN), and every launch of the plain path in the plan, in order."""
    step, module = emitted(config, numerics)
    feeds = random_feeds(step, 1)
    plain_dev, plan_dev = NumpyDevice(), NumpyDevice()
    bp = prepare(plain_dev, feeds, module.BUFFERS, module.FEEDS, module.ALIGN)
    bq = prepare(plan_dev, feeds, module.BUFFERS, module.FEEDS, module.ALIGN)
    plan = LaunchPlan(plan_dev, module, bq)
    assert len(plan) == module.KERNEL_LAUNCHES
    for _ in range(2):
        module.launches(plain_dev, bp)
        plan.replay()
        want, got = results(plain_dev, bp, module.RESULTS), results(plan_dev, bq, module.RESULTS)
        for name in want:
            assert want[name].tobytes() == got[name].tobytes(), name


def test_the_plan_resets_exactly_the_counters():
    _, module = emitted("tiny", "int8")
    b = [(k + 1) << 36 for k in range(len(module.BUFFERS))]
    plan = LaunchPlan(launch_cost.NullDevice(), module, b)
    counters = [(b[k], nbytes) for k, (_, nbytes, zero, _) in enumerate(module.BUFFERS) if zero]
    assert plan.zeroed == counters and counters  # split products count their parts' arrivals


def test_parameters_pack_as_cuda_lays_them_out():
    """A pointer at a multiple of 8 after a 4-byte int (padding between), each value's bytes little-endian, and
    back again to the same values and types."""
    _, module = emitted("tiny", "f32", "lane_fuse=false")  # unfused: its products are gemv's
    b = [(k + 1) << 36 for k in range(len(module.BUFFERS))]
    launch = next(c for c in record(module, b) if c.kernel == "gemv")  # (out u64, pitch i32, x u64, ...)
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
    f32, int8 = emitted("tiny", "f32")[1], emitted("tiny", "int8")[1]
    quantized = [np.prod(shape) for _, _, role, elem, shape in int8.FEEDS.values() if role == "weight" and elem == "i8"]
    assert quantized
    saved = sum(int(n) * 4 - (int(n) + 4 * -(-int(n) // QBLOCK)) for n in quantized)
    assert weight_bytes(f32) - weight_bytes(int8) == saved


def test_weight_bytes_count_bf16_two_bytes_a_value():
    """bf16 weights against the same step's f32 weights: every matrix two bytes a value, the norms' f32 the same."""
    f32, bf16 = emitted("tiny", "f32")[1], emitted("tiny", "bf16")[1]
    halved = [np.prod(shape) for _, _, role, elem, shape in bf16.FEEDS.values() if role == "weight" and elem == "bf16"]
    assert halved
    assert weight_bytes(f32) - weight_bytes(bf16) == sum(2 * int(n) for n in halved)


def test_the_plan_costs_the_host_at_most_a_third_of_the_plain_path():
    """Measured on a device whose launches do nothing, in the same run, interleaved: the plan's host time a launch
    against the plain path's (bench/launch_cost.py prints both; the bound is loose, as the machine is shared)."""
    _, module = emitted("tiny", "int8")
    plain_us, plan_us = launch_cost.host_cost(module, rounds=30)
    assert plan_us < plain_us / 3, (plain_us, plan_us)
