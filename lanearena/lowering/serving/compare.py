"""A placed step checked and timed as `lanearena run` does: run as placed and as the unshared reference over the
same weights (uploaded once, one tensor at a time) and inputs, and on the GPU timed replayed as a CUDA graph."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lanearena.lowering.codegen.lowered import Lowered
from lanearena.lowering.codegen.placed import Placed
from lanearena.lowering.replay.graph import speed
from lanearena.lowering.runtime import cuda
from lanearena.lowering.runtime.backend import new_device
from lanearena.lowering.runtime.execute import launch, max_abs_err, prepare, random_feeds, results
from lanearena.lowering.serving.weights import KEPT, RandomWeights, WeightSource, kept, put
from lanearena.model import Role


@dataclass
class Comparison:
    """A placed run against the reference run: their results and the largest difference."""

    placed: dict[str, np.ndarray]
    reference: dict[str, np.ndarray]
    max_abs_err: float
    device: str = "numpy runtime on the CPU"
    """What ran the placed step: the GPU and driver found, or the numpy runtime."""


def _bind(device, steps: list[Lowered], weights: WeightSource, align: int) -> dict[str, int]:
    """One buffer on `device` for each weight and state of `steps`, shared by them all: the weights made by
    `weights` and uploaded one tensor at a time; their addresses by name."""
    return put(device, kept(steps, KEPT), weights, align)


def _run_bound(device, lowered: Lowered, feeds: dict[str, np.ndarray], addrs: dict[str, int]) -> tuple[list[int], dict]:
    """`lowered` run once on `device` over the shared buffers `addrs` (its state written anew from `feeds` first):
    its buffers and its results."""
    for name, f in lowered.feeds.items():
        if f.role is Role.STATE:
            device.upload(addrs[name], np.ascontiguousarray(feeds[name], np.float32).reshape(-1))
    b = prepare(device, lowered, feeds, addrs)
    launch(device, lowered, b)
    return b, results(device, lowered, b)


def compare(step: Placed, backend: str = "numpy", seed: int = 0, weights: WeightSource | None = None) -> Comparison:
    """The placed `step` run as placed and as the unshared reference, one after the other on one fresh device of
    `backend`, over the same weights (made by `weights`, by default drawn at random from `seed`), uploaded once one
    tensor at a time, and the same random inputs and state; the weights' and the state's buffers are shared by both
    runs (the state written anew before each)."""
    feeds = random_feeds(step.step, seed, weights=False)
    device = new_device(backend)
    both = [step.lowered, step.unshared]
    addrs = _bind(device, both, weights or RandomWeights(seed), step.plan.align)
    got, reference = (_run_bound(device, lowered, feeds, addrs)[1] for lowered in both)
    found = getattr(device, "found", Comparison.device)
    return Comparison(got, reference, max_abs_err(got, reference), found)


def gpu_timing(
    step: Placed,
    placed_results: dict[str, np.ndarray],
    graph: bool = True,
    seed: int = 0,
    weights: WeightSource | None = None,
) -> dict:
    """The timing fields of `lanearena run --json` for the placed `step` on a fresh GPU device: the CUDA graph's
    replays (or, `graph` false, the plain path's), see `graph.speed`; and `equal_to_plain`, whether the results
    after them are, bit for bit, `placed_results` (the plain path's, from the same `seed` and `weights` as
    `compare`'s)."""
    dev = cuda.CudaDevice()
    feeds = random_feeds(step.step, seed, weights=False)
    addrs = _bind(dev, [step.lowered], weights or RandomWeights(seed), step.plan.align)
    b, _ = _run_bound(dev, step.lowered, feeds, addrs)
    timing = speed(dev, step.lowered, b, graph)
    got = results(dev, step.lowered, b)
    return timing | {"equal_to_plain": all(got[n].tobytes() == placed_results[n].tobytes() for n in placed_results)}
