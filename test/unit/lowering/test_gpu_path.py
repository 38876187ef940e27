"""The GPU path's own Python (graph capture and replay, the timing fields of `lanearena run --backend cuda`, the
profile, bench/gpu_check.py's GPU branch) run on the CPU against a simulated driver: the numpy runtime as the
device, PyCUDA's surface around it (a stream, events, async memsets, a launcher of packed parameters), and NVIDIA's
driver bindings' capture calls, where launches on a capturing stream are recorded into the graph and run only when
it is launched. What a real GPU adds (the kernels, the driver's rules) the GPU-only tests and bench/gpu_check.sh
check."""

from __future__ import annotations

import json
import sys
import time
import types

import pytest

from lanearena import api
from lanearena.cli import main as cli_main
from lanearena.frontend import decoder_step, load
from lanearena.lowering.codegen.placed import placed
from lanearena.lowering.replay.launch_plan import unpack
from lanearena.lowering.runtime import cuda
from lanearena.lowering.runtime.device import NumpyDevice
from lanearena.options import PlaceOptions

from ..support.bench import script


class _Stream:
    def __init__(self) -> None:
        self.handle = self
        self.capturing: list | None = None

    def run_or_capture(self, work) -> None:
        if self.capturing is None:
            work()
        else:
            self.capturing.append(work)


class _Event:
    def record(self, stream=None) -> None:
        self.at = time.perf_counter()

    def synchronize(self) -> None:
        pass

    def time_since(self, earlier: _Event) -> float:
        return (self.at - earlier.at) * 1e3


class SimulatedCuda(NumpyDevice, cuda.CudaDevice):
    """The numpy runtime with `CudaDevice`'s surface."""

    found = "a simulated GPU"

    def __init__(self) -> None:
        NumpyDevice.__init__(self)
        self.stream = _Stream()
        self.driver = types.SimpleNamespace(Event=_Event, memset_d8_async=self._memset_async)

    launch = NumpyDevice.launch  # (not CudaDevice's)

    def _memset_async(self, addr: int, byte: int, nbytes: int, stream: _Stream) -> None:
        stream.run_or_capture(lambda: self.fill(addr, nbytes, byte))

    def launcher(self, kernel: str):
        def launch(grid, block, params, shared, stream) -> None:
            work = lambda: self.launch(kernel, grid, block, unpack(kernel, params))  # noqa: E731
            (stream or _Stream()).run_or_capture(work)

        return launch

    def synchronize(self) -> None:
        pass

    def bandwidth(self) -> tuple[float, str]:
        return 1e12, "simulated"


def _driver_bindings() -> types.ModuleType:
    """cuda.bindings.driver's capture and graph calls, over `_Stream`."""
    ok = (0,)

    def begin(stream: _Stream, mode) -> tuple:
        assert stream.capturing is None, "already capturing"
        stream.capturing = []
        return ok

    def end(stream: _Stream) -> tuple:
        graph, stream.capturing = stream.capturing, None
        return (0, graph)

    def launch(graph: list, stream: _Stream) -> tuple:
        for work in graph:
            work()
        return ok

    driver = types.ModuleType("cuda.bindings.driver")
    driver.__dict__.update(
        CUresult=types.SimpleNamespace(CUDA_SUCCESS=0),
        CUstream=lambda handle: handle,
        CUstreamCaptureMode=types.SimpleNamespace(CU_STREAM_CAPTURE_MODE_THREAD_LOCAL=1),
        cuStreamBeginCapture=begin,
        cuStreamEndCapture=end,
        cuGraphInstantiate=lambda graph, flags: (0, list(graph)),
        cuGraphDestroy=lambda graph: ok,
        cuGraphExecDestroy=lambda graph: ok,
        cuGraphLaunch=launch,
        cuGetErrorName=lambda status: (0, b"CUDA_ERROR_SIMULATED"),
    )
    return driver


@pytest.fixture
def simulated_gpu(monkeypatch):
    driver = _driver_bindings()
    bindings = types.ModuleType("cuda.bindings")
    bindings.driver = driver  # type: ignore[attr-defined]
    package = types.ModuleType("cuda")
    package.bindings = bindings  # type: ignore[attr-defined]
    for name, module in (("cuda", package), ("cuda.bindings", bindings), ("cuda.bindings.driver", driver)):
        monkeypatch.setitem(sys.modules, name, module)
    monkeypatch.setattr(cuda, "available", lambda: None)
    monkeypatch.setattr(cuda, "CudaDevice", SimulatedCuda)


def test_the_gpu_check_on_a_simulated_gpu(simulated_gpu, tmp_path):
    """Plain path, plan and graph equal bit for bit; the tiny config against the numpy runtime; a profile and its
    chart for the others."""
    gpu_check = script("gpu_check")
    args = ["tiny-prefill", "--numerics", "int8", "--max-len", "0", "--runs", "2", "--against-numpy", "tiny"]
    assert gpu_check.main([*args, "--out", str(tmp_path)]) == 0
    rows = json.loads((tmp_path / "gpu_check.json").read_text())
    got = [(r["config"], r["numerics"], r["equal"], r["vs_numpy"]) for r in rows]
    numerics = ("f32", "bf16", "int8", "int8x2")
    sampled = [("tiny-prefill sampled", "int8", True, None), ("tiny sampled", "f32", True, 0.0)]
    assert got == [("tiny", n, True, 0.0) for n in numerics] + [("tiny-prefill", "int8", True, None), *sampled]
    last = rows[len(numerics)]
    assert last["graph_ms"] > 0 and last["bound_ms"] == last["weight_bytes"] / 1e12 * 1e3
    assert last["profile"][0].startswith("tiny-prefill int8: bandwidth 1.00 TB/s (simulated)")
    assert (tmp_path / "profile-tiny-prefill-int8.png").stat().st_size > 0


def test_a_graph_resets_its_counters_before_its_launches(simulated_gpu):
    """A counter left non-zero (as by a launch that failed half way) is zero again when the graph runs; the graph
    resets all of the step's counters with one memset node."""
    from lanearena import api
    from lanearena.frontend import decoder_step, load
    from lanearena.lowering.codegen.placed import placed
    from lanearena.lowering.replay.graph import CudaGraph
    from lanearena.lowering.replay.launch_plan import LaunchPlan
    from lanearena.lowering.runtime.execute import launch, prepare, random_feeds, results

    p = placed(api.place(decoder_step(load("tiny")), PlaceOptions("greedy")))
    lowered = p.lowered
    feeds = random_feeds(p.step, 3)
    dev = SimulatedCuda()
    want_b = prepare(dev, lowered, feeds)
    b = prepare(dev, lowered, feeds)
    launch_plan = LaunchPlan(dev, lowered, b)
    memsets = []
    memset = dev.driver.memset_d8_async
    dev.driver.memset_d8_async = lambda *args: (memsets.append(args), memset(*args))
    graph = CudaGraph(dev, launch_plan)
    assert len(p.plan.counters) > 1 and len(memsets) == 1  # the step's counters, in one node
    for addr, nbytes in launch_plan.zeroed:
        dev.fill(addr, nbytes, 1)
    graph.replay()
    launch(dev, lowered, want_b)
    want, got = results(dev, lowered, want_b), results(dev, lowered, b)
    assert all(want[n].tobytes() == got[n].tobytes() for n in want)


def test_run_reports_the_graphs_timing(simulated_gpu, capsys):
    for flags, path in (([], "graph"), (["--no-graph"], "plain")):
        assert cli_main(["run", "tiny", "--backend", "cuda", "--json", *flags]) == 0
        report = json.loads(capsys.readouterr().out)
        assert report["backend"] == "cuda" and report["device"] == "a simulated GPU" and report["path"] == path
        assert report["launches"] == 13 and report["step_ms"] > 0 and report["host_us_per_launch"] > 0
        assert report["equal_to_plain"] is True
        assert report["bandwidth_bound_ms"] == round(report["weight_bytes"] / 1e12 * 1e3, 4)


def test_a_graph_that_cannot_be_made_is_told_and_the_rest_still_measured(simulated_gpu, capsys):
    """The driver refuses the capture: the check names the driver's error, still times the plain path and the
    plan, and fails."""
    sys.modules["cuda.bindings.driver"].cuStreamBeginCapture = lambda stream, mode: (999,)
    gpu_check = script("gpu_check")
    assert gpu_check.main(["tiny", "--numerics", "f32", "--max-len", "0", "--runs", "1", "--against-numpy"]) == 1
    out = capsys.readouterr().out
    assert "graph error RuntimeError: cuStreamBeginCapture failed: CUDA_ERROR_SIMULATED" in out
    assert "| tiny f32 | 13 | yes | - |" in out


def test_generation_captures_each_steps_graph_once_and_replays_it(simulated_gpu, capsys):
    """A prompt of one prefill chunk and two rows, then 4 tokens: two graphs captured (the prefill step's and the
    decode step's), one graph launch a run (1 chunk + 2 rows + 3 tokens), the numpy runtime's tokens; without graphs
    (--no-graph) nothing captured and the same tokens. The bound is the decode step's weights at the simulated
    1 TB/s."""
    driver = sys.modules["cuda.bindings.driver"]
    captures, replays = [], []
    begin, launch = driver.cuStreamBeginCapture, driver.cuGraphLaunch
    driver.cuStreamBeginCapture = lambda stream, mode: (captures.append(stream), begin(stream, mode))[1]
    driver.cuGraphLaunch = lambda graph, stream: (replays.append(graph), launch(graph, stream))[1]
    args = ["run", "tiny", "--prompt-ids", "1,2,3,4,5,6,7,8,9,10", "--generate", "4", "--json", "--quiet"]
    reports = {}
    for backend, flags in (("numpy", []), ("cuda", []), ("plan", ["--no-graph"])):
        assert cli_main([*args, *flags, "--backend", "numpy" if backend == "numpy" else "cuda"]) == 0
        reports[backend] = json.loads(capsys.readouterr().out)
        if backend == "cuda":
            assert len(captures) == 2 and len(replays) == 1 + 2 + 3
    assert len(captures) == 2 and len(replays) == 6  # --no-graph captured nothing
    assert reports["cuda"]["tokens"] == reports["plan"]["tokens"] == reports["numpy"]["tokens"]
    gpu = reports["cuda"]
    step = placed(api.place(decoder_step(load("tiny")), PlaceOptions("greedy")))
    bound_ms = step.lowered.weight_bytes() / 1e12 * 1e3
    assert gpu["bound_ms"] == round(bound_ms, 4)
    assert gpu["bound_share"] == pytest.approx(bound_ms / gpu["decode_ms"], rel=1e-3)
    assert gpu["bandwidth"] == "1.00 TB/s (simulated)"
