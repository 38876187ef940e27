"""A step replayed as a CUDA graph, and the timing of a step however it is launched.

PyCUDA owns the memory, the modules and the launches: a `LaunchPlan` replayed on the device's stream while the stream
captures is the graph's content, and the counters are reset by one memset node at its start (they share one
allocation) (each launch leaves its
counter zero, so a graph replayed after a failed launch starts right too). PyCUDA 2026.1 has no stream capture nor
graphs (its wrapper has no cuStreamBeginCapture, cuGraph* call), so those few calls come from NVIDIA's driver
bindings (`cuda-python`: `cuda.bindings.driver`, or `cuda.cuda` before 12.6), on PyCUDA's stream and its current
context (the primary context, see `cuda.CudaDevice`)."""

from __future__ import annotations

import functools
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

from lanearena.lowering.codegen.lowered import Lowered
from lanearena.lowering.replay.launch_plan import LaunchPlan
from lanearena.lowering.runtime.execute import launch


def driver_bindings():
    """NVIDIA's CUDA driver bindings (`cuda-python`), or a `RuntimeError` saying how to get them."""
    try:
        from cuda.bindings import driver
    except ImportError:
        try:
            from cuda import cuda as driver  # cuda-python before 12.6
        except ImportError:
            raise RuntimeError(
                "CUDA graphs need NVIDIA's cuda-python driver bindings (pip install '.[gpu]'); "
                "or run the plain path (--no-graph)"
            ) from None
    return driver


def _check(driver, call: str, result: tuple):
    """The values a driver binding's `call` returned after its status, or a `RuntimeError` naming the status."""
    status, *values = result
    if status != driver.CUresult.CUDA_SUCCESS:
        _, name = driver.cuGetErrorName(status)
        raise RuntimeError(f"{call} failed: {name.decode() if isinstance(name, bytes) else name}")
    return values[0] if len(values) == 1 else values


class CudaGraph:
    """`plan`'s launches on `dev` (a `CudaDevice`), captured once as a CUDA graph on the device's stream; `replay()`
    launches the graph (one driver call for the whole step)."""

    def __init__(self, dev, plan: LaunchPlan):
        self._driver = driver = driver_bindings()
        self._stream = driver.CUstream(dev.stream.handle)
        mode = driver.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_THREAD_LOCAL
        _check(driver, "cuStreamBeginCapture", driver.cuStreamBeginCapture(self._stream, mode))
        try:
            for addr, nbytes in plan.zeroed:
                dev.driver.memset_d8_async(addr, 0, nbytes, dev.stream)
            plan.replay(dev.stream)
        except BaseException:
            driver.cuStreamEndCapture(self._stream)  # the capture is ended before what failed is told
            raise
        graph = _check(driver, "cuStreamEndCapture", driver.cuStreamEndCapture(self._stream))
        try:
            self._exec = _check(driver, "cuGraphInstantiate", driver.cuGraphInstantiate(graph, 0))
        finally:
            driver.cuGraphDestroy(graph)
        self.launches = len(plan)

    def replay(self) -> None:
        _check(self._driver, "cuGraphLaunch", self._driver.cuGraphLaunch(self._exec, self._stream))

    def __del__(self) -> None:
        exec_ = getattr(self, "_exec", None)
        if exec_ is not None:
            self._driver.cuGraphExecDestroy(exec_)


@dataclass(frozen=True)
class Timing:
    """A step's time: `step_ms` the median of the replays' wall time, launch to finish (what a caller waits a step);
    `host_us_per_launch` the median of the time the host takes to hand a step's launches over, a launch."""

    step_ms: float
    host_us_per_launch: float
    launches: int
    replays: int


def time_step(
    step: Callable[[], None], synchronize: Callable[[], None], launches: int, replays: int = 100, warm: int = 10
) -> Timing:
    """`step` (which hands `launches` launches over) timed over `replays` replays after `warm` unmeasured ones,
    `synchronize` waiting for the device after each."""
    for _ in range(warm):
        step()
    synchronize()
    walls, hosts = [], []
    for _ in range(replays):
        t0 = time.perf_counter()
        step()
        t1 = time.perf_counter()
        synchronize()
        t2 = time.perf_counter()
        hosts.append(t1 - t0)
        walls.append(t2 - t0)
    return Timing(statistics.median(walls) * 1e3, statistics.median(hosts) * 1e6 / max(launches, 1), launches, replays)


def speed(dev, lowered: Lowered, b: list[int], graph: bool, replays: int = 100) -> dict:
    """The timing fields of `lanearena run --json` for `lowered` over buffers `b` on `dev` (a `CudaDevice`):
    replayed as a CUDA graph, or (`graph` false) launched on the plain path."""
    plan = LaunchPlan(dev, lowered, b)
    step = CudaGraph(dev, plan).replay if graph else functools.partial(launch, dev, lowered, b)
    timing = time_step(step, dev.synchronize, len(plan), replays)
    peak, source = dev.bandwidth()
    weights = lowered.weight_bytes()
    return {
        "path": "graph" if graph else "plain",
        "step_ms": round(timing.step_ms, 4),
        "host_us_per_launch": round(timing.host_us_per_launch, 3),
        "launches": timing.launches,
        "weight_bytes": weights,
        "bandwidth_bound_ms": round(weights / peak * 1e3, 4),
        "bandwidth": f"{peak / 1e12:.2f} TB/s ({source})",
    }


def replayer(dev, lowered: Lowered, b: list[int], graph: bool = True) -> Callable[[], None]:
    """How `dev` runs `lowered` over its prepared buffers `b` again and again, the device deciding: where it has a
    stream (a GPU), the step's launch plan captured once as a CUDA graph (`graph`; else the plan replayed on the
    stream); on any other device (the numpy runtime) the plan replayed, its packed parameters unpacked and launched,
    so the CPU runs the very bytes the GPU is given."""
    plan = LaunchPlan(dev, lowered, b)
    stream = getattr(dev, "stream", None)
    if stream is None:
        return plan.replay
    if graph:
        return CudaGraph(dev, plan).replay
    return functools.partial(plan.replay, stream)
