"""A decoder step built, placed, lowered and run on the numpy runtime over an arena poisoned with NaN, against the
reference run in which no two arrays share bytes; and proof that the comparison sees a bad placement."""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import numpy as np
import pytest

from lanearena import api
from lanearena.analysis.check import check
from lanearena.frontend import StepBuilder, decoder_step, load
from lanearena.lowering.codegen.lower import lower
from lanearena.lowering.codegen.placed import Placed, placed
from lanearena.lowering.runtime import cuda
from lanearena.lowering.runtime.device import NumpyDevice
from lanearena.lowering.runtime.execute import load as load_module
from lanearena.lowering.runtime.execute import max_abs_err, random_feeds, run, run_step
from lanearena.lowering.serving.compare import compare
from lanearena.model import Form
from lanearena.options import PlaceOptions

from .test_reference_step import held_to_the_reference


def placed_config(config: str, algorithm: str = "greedy", **settings) -> Placed:
    module = decoder_step(load(config, [f"{k}={v}" for k, v in settings.items()]))
    api.place(module, PlaceOptions(algorithm, time_limit=1.0))
    return placed(module)


@pytest.mark.parametrize("numerics", ["f32", "bf16", "int8", "int8x2"])
@pytest.mark.parametrize("config", ["tiny", "tiny-moe", "tiny-prefill"])
@pytest.mark.parametrize("algorithm", ["greedy", "best"])
def test_placed_step_matches_the_unshared_reference(config, numerics, algorithm):
    p = placed_config(config, algorithm, numerics=numerics)
    step, plan = p.step, p.plan
    assert plan.bytes < sum(a.bytes for a in plan.arrays) + sum(s.bytes for s in plan.scratch)  # bytes are shared
    result = compare(p, "numpy", seed=1)
    assert {"token", "logits"} <= set(result.placed)
    for name, value in result.placed.items():
        assert not np.isnan(value).any(), name
    # The same float operations in the same order over other addresses: equal to the last bit.
    assert result.max_abs_err == 0.0
    # And what the step means, computed apart from the lowering.
    held_to_the_reference(p, random_feeds(step, 1))


def test_overlapping_two_live_arrays_corrupts_the_result():
    """The MLP's hidden rows laid over the residual they are added back to: the verifier flags it, and the run
    differs from the reference, so the comparison is a real test of the placement (unfused: the MLP's hidden rows
    are an array of the step there)."""
    p = placed_config("tiny", lane_fuse="false")
    step, plan = p.step, p.plan
    xa = plan.array("l0.xa", Form.PLAIN)
    m = plan.array("l0.m", Form.PLAIN)
    assert xa.first <= m.last and m.first <= xa.last  # both live while the MLP runs
    bad = dataclasses.replace(
        plan, arrays=[dataclasses.replace(a, offset=xa.offset) if a is m else a for a in plan.arrays]
    )
    assert any("overlaps" in p for p in check(step, bad))
    feeds = random_feeds(step)
    run_bad = run_step(NumpyDevice(), lower(p.op, step, bad), feeds)  # as the unverified lowering lays it out
    assert max_abs_err(run_bad, run_step(NumpyDevice(), p.unshared, feeds)) > 1e-3


class ZeroingDevice(NumpyDevice):
    """A device whose fresh memory is zeros (as a GPU's may be anything): what poisons the arena is the module."""

    def alloc(self, nbytes: int, zero: bool = False) -> int:
        return super().alloc(nbytes, zero=True)


@pytest.mark.filterwarnings("ignore:invalid value encountered in cast")
@pytest.mark.parametrize("device", [NumpyDevice, ZeroingDevice])
def test_poison_shows_an_array_read_before_written(device):
    """The arena starts as NaN, whatever the device's fresh memory holds: with the embedding's gather left out of
    the emitted module, the residual it should have written is read as NaN, and the logits are NaN, not stale
    values."""
    p = placed_config("tiny")
    step = p.step
    source = p.source()
    gather = next(line for line in source.splitlines() if "GatherOp, 'gather'," in line)
    out = load_module(source.replace(gather, "")).run(device(), random_feeds(step))
    assert np.isnan(out["logits"]).all()


def test_the_target_and_the_command_emit_runnable_modules(tmp_path):
    p = placed_config("tiny")
    step, plan = p.step, p.plan
    src = tmp_path / "step.mlir"
    src.write_text(str(p.op.parent_op()))
    out = tmp_path / "step.py"
    done = subprocess.run(
        [sys.executable, "-m", "lanearena.cli", "compile", str(src), "-o", str(out)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    viaopt = subprocess.run(["xdsl-opt", str(src), "-t", "lane-pycuda"], capture_output=True, text=True)
    assert viaopt.returncode == 0, viaopt.stderr
    assert viaopt.stdout == out.read_text()
    feeds = random_feeds(step, 3)
    got = load_module(out.read_text()).run(NumpyDevice(), feeds)
    assert max_abs_err(got, held_to_the_reference(p, feeds)) == 0.0
    assert f"arena_bytes={plan.bytes}," in out.read_text()


def test_run_reports_the_figures():
    done = subprocess.run(
        [sys.executable, "-m", "lanearena.cli", "run", "--json", "--backend", "numpy"], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    import json

    report = json.loads(done.stdout)
    assert report["backend"] == "numpy" and report["max_abs_err"] == 0.0
    assert report["lower_bound_bytes"] <= report["arena_bytes"] < report["no_reuse_bytes"]


def test_gpu_matches_numpy():
    why = cuda.available()
    if why is not None:
        pytest.skip(f"GPU check skipped: {why}")
    p = placed_config("tiny")
    feeds = random_feeds(p.step)
    gpu = run(p, cuda.CudaDevice(), feeds)
    cpu = run(p, NumpyDevice(), feeds)
    assert max_abs_err(gpu, cpu) < 1e-3


def test_random_ids_lie_inside_the_table_of_a_fused_gather():
    """random_feeds draws token ids inside the table of every launch that gathers them, the fused gather_norm's as
    the gather's (an id past its table gathers zeros, which no test meant)."""
    b = StepBuilder("fused", "f32")
    x, out = b.tensor("x", (5, 32)), b.tensor("out", (5, 32))
    b.launch("gather_norm", [b.weight("table", (8, 32)), b.input("ids", (5,), "i32"), b.weight("g", (32,))], [x, out])
    b.output(out)
    ((step, _),) = api.placed_steps(b.module())
    for seed in range(20):
        assert random_feeds(step, seed)["ids"].max() < 8


def test_a_nan_in_one_run_only_is_an_infinite_difference():
    """The comparison of two runs counts NaN where the other run has a number as no agreement at all, and NaN
    where both have it as agreement."""
    nan = float("nan")
    assert max_abs_err({"y": np.array([1.0, nan])}, {"y": np.array([1.0, 2.0])}) == float("inf")
    assert max_abs_err({"y": np.array([1.0, 2.0])}, {"y": np.array([nan, 2.0])}) == float("inf")
    assert max_abs_err({"y": np.array([1.5, nan])}, {"y": np.array([1.0, nan])}) == 0.5
