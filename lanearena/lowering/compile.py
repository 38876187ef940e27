"""Lowering a placed step and running it: the emitted module's source, and its results on a device next to the
reference run in which no two arrays share bytes."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lanearena.analysis.plan import ArenaPlan
from lanearena.dialects import lane
from lanearena.frontend.from_model import module_of
from lanearena.lowering import cuda
from lanearena.lowering.device import NumpyDevice
from lanearena.lowering.emit import emit
from lanearena.lowering.runtime import load, max_abs_err, prepare, random_feeds, results, unshared
from lanearena.lowering.weights import RandomWeights, WeightSource, kept, put
from lanearena.model import Step
from lanearena.passes.convert import place_step, steps


def resolve_backend(backend: str = "auto") -> str:
    """The backend `backend` names: 'numpy', 'cuda', or for 'auto' CUDA where PyCUDA and a GPU are, else numpy.
    Asking for 'cuda' where it cannot run is a `RuntimeError` saying why."""
    if backend == "numpy":
        return "numpy"
    why = cuda.available()
    if why is None:
        return "cuda"
    if backend == "cuda":
        raise RuntimeError(f"backend cuda: {why}")
    return "numpy"


def new_device(backend: str = "auto"):
    """A fresh device of `backend` (see `resolve_backend`)."""
    return cuda.CudaDevice() if resolve_backend(backend) == "cuda" else NumpyDevice()


@dataclass
class Comparison:
    """A placed run against the reference run: their results and the largest difference."""

    placed: dict[str, np.ndarray]
    reference: dict[str, np.ndarray]
    max_abs_err: float
    device: str = "numpy runtime on the CPU"
    """What ran the placed step: the GPU and driver found, or the numpy runtime."""


def placed_ir(step: Step, plan: ArenaPlan) -> lane.StepOp:
    """`step` as a `lane.step` rewritten onto the arena `plan` places it on."""
    (op,) = steps(module_of(step))
    place_step(op, step, plan)
    return op


def run_placed(step: Step, plan: ArenaPlan, device, feeds) -> dict[str, np.ndarray]:
    """`step`'s results on `device` when run as `plan` places it."""
    return load(emit(placed_ir(step, plan))).run(device, feeds)


def compare(
    step: Step, plan: ArenaPlan, backend: str = "numpy", seed: int = 0, weights: WeightSource | None = None
) -> Comparison:
    """`step` run as placed and as the unshared reference, one after the other on one fresh device of `backend`,
    over the same weights (made by `weights`, by default drawn at random from `seed`), uploaded once one tensor at a
    time, and the same random inputs and state; the weights' and the state's buffers are shared by both runs (the
    state written anew before each)."""
    feeds = random_feeds(step, seed, weights=False)
    device = new_device(backend)
    modules = [load(emit(placed_ir(step, p))) for p in (plan, unshared(plan))]
    shared = kept(modules, ("weight", "state"))
    addrs = put(device, shared, weights or RandomWeights(seed), plan.align)
    runs = []
    for m in modules:
        for name, (role, _, _, _) in shared.items():
            if role == "state":
                device.upload(addrs[name], np.ascontiguousarray(feeds[name], np.float32).reshape(-1))
        b = prepare(device, feeds, m.BUFFERS, m.FEEDS, m.ALIGN, addrs)
        m.launches(device, b)
        runs.append(results(device, b, m.RESULTS))
    placed, reference = runs
    found = getattr(device, "found", Comparison.device)
    return Comparison(placed, reference, max_abs_err(placed, reference), found)
