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
from lanearena.lowering.graph import speed
from lanearena.lowering.runtime import load, max_abs_err, prepare, random_feeds, results, unshared
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


def compare(step: Step, plan: ArenaPlan, backend: str = "numpy", seed: int = 0) -> Comparison:
    """`step` run as placed and as the unshared reference, on fresh devices of `backend`, with the same random
    feeds."""
    feeds = random_feeds(step, seed)
    device = new_device(backend)
    placed = run_placed(step, plan, device, feeds)
    reference = run_placed(step, unshared(plan), new_device(backend), feeds)
    found = getattr(device, "found", Comparison.device)
    return Comparison(placed, reference, max_abs_err(placed, reference), found)


def gpu_timing(step: Step, plan: ArenaPlan, placed: dict[str, np.ndarray], graph: bool = True, seed: int = 0) -> dict:
    """The timing fields of `lanearena run --json` for `step` placed by `plan` on a fresh GPU device: the CUDA
    graph's replays (or, `graph` false, the plain path's), see `graph.speed`; and `equal_to_plain`, whether the
    results after them are, bit for bit, `placed` (the plain path's, from the same `seed`)."""
    module = load(emit(placed_ir(step, plan)))
    dev = cuda.CudaDevice()
    b = prepare(dev, random_feeds(step, seed), module.BUFFERS, module.FEEDS, module.ALIGN)
    timing = speed(dev, module, b, graph)
    got = results(dev, b, module.RESULTS)
    return timing | {"equal_to_plain": all(got[n].tobytes() == placed[n].tobytes() for n in placed)}
