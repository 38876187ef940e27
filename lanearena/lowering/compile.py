"""Lowering a placed step and running it: the emitted module's source, and its results on a device next to the
reference run in which no two arrays share bytes."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lanearena.analysis.plan import ArenaPlan
from lanearena.lowering.device import NumpyDevice
from lanearena.lowering.emit import emit
from lanearena.lowering.runtime import load, max_abs_err, random_feeds, unshared
from lanearena.model import Step


def new_device(backend: str = "auto"):
    """A device for `backend` ('numpy', 'cuda', or 'auto': CUDA where PyCUDA and a GPU are, else numpy), and the
    backend's name."""
    from lanearena.lowering import cuda

    if backend == "numpy":
        return NumpyDevice(), "numpy"
    why = cuda.available()
    if why is None:
        return cuda.CudaDevice(), "cuda"
    if backend == "cuda":
        raise RuntimeError(f"backend cuda: {why}")
    return NumpyDevice(), "numpy"


@dataclass
class Comparison:
    """A placed run against the reference run: their results and the largest difference."""

    placed: dict[str, np.ndarray]
    reference: dict[str, np.ndarray]
    max_abs_err: float


def run_placed(step: Step, plan: ArenaPlan, device, feeds) -> dict[str, np.ndarray]:
    """`step`'s results on `device` when run as `plan` places it."""
    return load(emit(step, plan)).run(device, feeds)


def compare(step: Step, plan: ArenaPlan, backend: str = "numpy", seed: int = 0) -> Comparison:
    """`step` run as placed and as the unshared reference, on fresh devices of `backend`, with the same random
    feeds."""
    feeds = random_feeds(step, seed)
    placed = run_placed(step, plan, new_device(backend)[0], feeds)
    reference = run_placed(step, unshared(plan), new_device(backend)[0], feeds)
    return Comparison(placed, reference, max_abs_err(placed, reference))
