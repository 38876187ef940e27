"""Lowering a placed step and running it: the step verified and read from its IR once (`placed`), the emitted
module's source, and its results on a device next to the reference run in which no two arrays share bytes (another
layout of the same launches)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.exceptions import DiagnosticException

from lanearena import options
from lanearena.analysis.plan import ArenaPlan
from lanearena.dialects import lane
from lanearena.errors import UserError
from lanearena.limits import oversized
from lanearena.lowering import cuda
from lanearena.lowering.device import NumpyDevice
from lanearena.lowering.emit import emit
from lanearena.lowering.graph import speed
from lanearena.lowering.runtime import load, max_abs_err, prepare, random_feeds, results, unshared
from lanearena.lowering.weights import RandomWeights, WeightSource, kept, put
from lanearena.model import QBLOCK, Step
from lanearena.passes.convert import alloc_of, steps
from lanearena.passes.verify import verified


@dataclass(frozen=True)
class Placed:
    """A placed `lane.step` that `lane-arena-verify` accepts, with the step and arena read from its IR: what the
    lowering takes (make one with `placed`)."""

    op: lane.StepOp
    step: Step
    plan: ArenaPlan
    qblock: int = QBLOCK

    def source(self, embed_ptx: bool = False) -> str:
        """The Python module that runs the step as its IR places it (carrying its kernels' PTX where `embed_ptx`:
        what `-t lane-pycuda` prints)."""
        return emit(self.op, self.step, self.plan, self.qblock, embed_ptx)

    def unshared_source(self) -> str:
        """The module that runs the same launches with every arena array and scratch at bytes of its own: the
        reference a placement must match."""
        return emit(self.op, self.step, unshared(self.plan), self.qblock)


def placed(module: ModuleOp | lane.StepOp, qblock: int = QBLOCK) -> Placed:
    """The one `lane.step` of `module` (or the step `module` is), placed and verified as `lane-arena-verify` does;
    a `UserError` with every problem, located, where it is not one step, not placed, or placed wrongly."""
    if isinstance(module, lane.StepOp):
        op = module
    else:
        found = steps(module)
        if len(found) != 1:
            raise UserError(f"lane-pycuda lowers one lane.step a module, found {len(found)}")
        (op,) = found
    if problems := oversized(op):
        raise UserError("\n".join(problems))
    alloc = alloc_of(op)
    if alloc is None:
        raise UserError(f"lane.step @{op.sym_name.data} is not placed: run lane-arena-place first")
    try:
        options.align(alloc.align.value.data, "arena.alloc's align")
        options.qblock(qblock)
    except options.OptionError as e:
        raise UserError(f"lane.step @{op.sym_name.data}: {e}") from None
    try:
        step, plan = verified(op, qblock)
    except DiagnosticException as e:
        raise UserError(str(e)) from None
    return Placed(op, step, plan, qblock)


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


def run(step: Placed, device, feeds) -> dict[str, np.ndarray]:
    """The placed `step`'s outputs and state on `device` (see `new_device`) from `feeds` (see `random_feeds`)."""
    return load(step.source()).run(device, feeds)


def _bind(device, modules: list, weights: WeightSource, align: int) -> dict[str, int]:
    """One buffer on `device` for each weight and state of emitted `modules`, shared by them all: the weights made
    by `weights` and uploaded one tensor at a time; their addresses by name."""
    return put(device, kept(modules, ("weight", "state")), weights, align)


def _run_bound(device, module, feeds: dict[str, np.ndarray], addrs: dict[str, int]) -> tuple[list[int], dict]:
    """Emitted `module` run once on `device` over the shared buffers `addrs` (its state written anew from `feeds`
    first): its buffers and its results."""
    for name, (_, _, role, _, _) in module.FEEDS.items():
        if role == "state":
            device.upload(addrs[name], np.ascontiguousarray(feeds[name], np.float32).reshape(-1))
    b = prepare(device, feeds, module.BUFFERS, module.FEEDS, module.ALIGN, addrs)
    module.launches(device, b)
    return b, results(device, b, module.RESULTS)


def compare(step: Placed, backend: str = "numpy", seed: int = 0, weights: WeightSource | None = None) -> Comparison:
    """The placed `step` run as placed and as the unshared reference, one after the other on one fresh device of
    `backend`, over the same weights (made by `weights`, by default drawn at random from `seed`), uploaded once one
    tensor at a time, and the same random inputs and state; the weights' and the state's buffers are shared by both
    runs (the state written anew before each)."""
    feeds = random_feeds(step.step, seed, weights=False)
    device = new_device(backend)
    modules = [load(source) for source in (step.source(), step.unshared_source())]
    addrs = _bind(device, modules, weights or RandomWeights(seed), step.plan.align)
    got, reference = (_run_bound(device, m, feeds, addrs)[1] for m in modules)
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
    module = load(step.source())
    dev = cuda.CudaDevice()
    feeds = random_feeds(step.step, seed, weights=False)
    addrs = _bind(dev, [module], weights or RandomWeights(seed), step.plan.align)
    b, _ = _run_bound(dev, module, feeds, addrs)
    timing = speed(dev, module, b, graph)
    got = results(dev, b, module.RESULTS)
    return timing | {"equal_to_plain": all(got[n].tobytes() == placed_results[n].tobytes() for n in placed_results)}
