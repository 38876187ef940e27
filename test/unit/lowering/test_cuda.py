"""The PyCUDA device: on the primary context (held on the CPU with fake PyCUDA modules, on a GPU with PyTorch holding
the GPU first), its bandwidth figure, and the CUDA-graph replay equal to the plain path bit for bit (GPU only)."""

from __future__ import annotations

import subprocess
import sys
import types

import pytest
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st

from lanearena import api
from lanearena.frontend import decoder_step, load
from lanearena.lowering.codegen.placed import placed
from lanearena.lowering.kernels import ptx
from lanearena.lowering.runtime import cuda
from lanearena.lowering.runtime.device import NumpyDevice
from lanearena.lowering.runtime.execute import launch, max_abs_err, prepare, random_feeds, results
from lanearena.lowering.runtime.execute import run as run_placed
from lanearena.options import PlaceOptions

from ..support import reference_step
from ..support.kernel_steps import kernel_steps


class _Gpu:
    def name(self) -> str:
        return "NVIDIA H200"

    def compute_capability(self) -> tuple[int, int]:
        return (9, 0)


def _fake_pycuda(monkeypatch) -> list[str]:
    """Fake `pycuda`, `pycuda.driver` and `pycuda.autoprimaryctx` modules in `sys.modules`, and `pycuda.autoinit`
    made unimportable; the names of the modules imported, as they are."""
    imported: list[str] = []

    def module(name: str, **attrs) -> types.ModuleType:
        m = types.ModuleType(name)
        m.__dict__.update(attrs)
        imported.append(name)
        return m

    driver = module("pycuda.driver", get_driver_version=lambda: 13000, Stream=lambda: "stream")
    primary = module("pycuda.autoprimaryctx", device=_Gpu())
    package = module("pycuda", driver=driver, autoprimaryctx=primary)
    monkeypatch.setitem(sys.modules, "pycuda", package)
    monkeypatch.setitem(sys.modules, "pycuda.driver", driver)
    monkeypatch.setitem(sys.modules, "pycuda.autoprimaryctx", primary)
    monkeypatch.setitem(sys.modules, "pycuda.autoinit", None)  # importing it raises ImportError
    return imported


def test_the_device_works_on_the_primary_context_not_a_context_of_its_own(monkeypatch):
    """`CudaDevice` takes the device from `pycuda.autoprimaryctx` (which retains the primary context PyTorch and
    CuPy use) and never imports `pycuda.autoinit` (which would make a context of its own)."""
    _fake_pycuda(monkeypatch)
    dev = cuda.CudaDevice()
    assert dev.found == "NVIDIA H200 (sm_90), CUDA driver 13.0"
    assert dev.stream == "stream"
    assert sys.modules["pycuda.autoinit"] is None


class _Module:
    def __init__(self, text: bytes):
        self.text = text

    def get_function(self, name: str) -> tuple[str, bytes]:
        return name, self.text


def test_a_device_loads_the_ptx_a_printed_step_carries_and_no_other_device_does(monkeypatch, tmp_path):
    """The PTX a step carries (`Lowered.ptx`, handed over by `prepare`) is what its device loads its kernels from;
    a device that was not handed it builds the kernel from its source. Nothing is shared across the process."""
    _fake_pycuda(monkeypatch)
    carried = {"argmax": ".entry argmax(\n) // carried"}
    given, other = cuda.CudaDevice(), cuda.CudaDevice()
    for dev in (given, other):
        dev.driver.module_from_buffer = _Module
    monkeypatch.setattr(cuda.ptx, "build", lambda src, defines=(): f"built {src.name}")
    given.carry(carried)
    assert given._function("argmax") == ("argmax", carried["argmax"].encode())
    assert other._function("argmax") == ("argmax", b"built argmax")


@pytest.mark.skipif(not ptx.can_compile(), reason="nvcc is not on PATH")
def test_a_printed_module_hands_its_ptx_to_the_device_it_runs_on(tmp_path):
    p = placed(api.place(decoder_step(load("tiny")), PlaceOptions("greedy")))
    namespace: dict = {}
    exec(compile(p.source(embed_ptx=True), "printed", "exec"), namespace)
    lowered = namespace["LOWERED"]
    assert lowered == p.lowered and set(lowered.ptx) == {ptx.module_name(k) for k in p.lowered.kernels()}

    class Carrying(NumpyDevice):
        def carry(self, modules) -> None:
            self.carried = dict(modules)

    dev = Carrying()
    namespace["run"](dev, random_feeds(p.step, 1))
    assert dev.carried == lowered.ptx


class _Keys:
    MEMORY_CLOCK_RATE, GLOBAL_MEMORY_BUS_WIDTH = "clock", "bus"


def test_bandwidth_by_name_else_from_the_attributes():
    assert cuda.bandwidth("NVIDIA H200", {}, _Keys) == (4.8e12, "NVIDIA's figure for the H200")
    # A GPU not in the table with an A100's attributes (deviceQuery: 1593 MHz, 5120 bits): NVIDIA's 2039 GB/s
    peak, source = cuda.bandwidth("NVIDIA Next", {"clock": 1_593_000, "bus": 5120}, _Keys)
    assert peak == pytest.approx(2.039e12, rel=1e-3) and source.startswith("device attributes: 1593 MHz x 5120 bits")
    with pytest.raises(RuntimeError, match="neither known by name"):
        cuda.bandwidth("Some GPU", {}, _Keys)


def _gpu_or_skip() -> None:
    why = cuda.available()
    if why is not None:
        pytest.skip(f"needs a GPU: {why}")


@pytest.mark.parametrize("config", ["tiny", "tiny-moe", "tiny-prefill"])
def test_graph_replay_equals_the_plain_path_bit_for_bit(config):
    """GPU only. Two buffer sets from the same feeds on one device: the plain path on one, the CUDA graph on the
    other, twice each; the results equal bit for bit after each."""
    _gpu_or_skip()
    from lanearena.lowering.replay.graph import CudaGraph
    from lanearena.lowering.replay.launch_plan import LaunchPlan

    p = placed(api.place(decoder_step(load(config)), PlaceOptions("greedy")))
    lowered = p.lowered
    feeds = random_feeds(p.step, 2)
    dev = cuda.CudaDevice()
    plain = prepare(dev, lowered, feeds)
    graphed = prepare(dev, lowered, feeds)
    graph = CudaGraph(dev, LaunchPlan(dev, lowered, graphed))
    for _ in range(2):
        launch(dev, lowered, plain)
        graph.replay()
        dev.synchronize()
        want, got = results(dev, lowered, plain), results(dev, lowered, graphed)
        assert all(want[n].tobytes() == got[n].tobytes() for n in want)


@pytest.mark.parametrize("config", ["tiny", "tiny-prefill"])
def test_sampled_generation_on_the_gpu_draws_the_numpy_runtimes_tokens(config):
    """GPU only. The same seed, the same tokens: a session whose step draws its token on the device (`lane.sample`,
    top-k and top-p) generates on the GPU what it generates on the numpy runtime, greedy likewise."""
    _gpu_or_skip()
    import dataclasses

    from lanearena import decoding
    from lanearena.lowering.serving.session import Session
    from lanearena.lowering.serving.weights import RandomWeights

    for sampling in (decoding.Sampling(), decoding.Sampling(0.8, 20, 0.9, seed=7)):
        drawn = {"temperature": sampling.temperature, "top_k": sampling.top_k, "top_p": sampling.top_p}
        c = dataclasses.replace(load(config), **drawn)
        tokens = [
            decoding.generate(Session(c, RandomWeights(3), backend).next, [1, 2, 3, 4, 5], 24, sampling)[0]
            for backend in ("cuda", "numpy")
        ]
        assert tokens[0] == tokens[1], (sampling, tokens)


_AFTER_TORCH = """
import torch
held = torch.ones(1 << 20, device="cuda")  # PyTorch holds the GPU first (its primary context)
from lanearena.lowering.serving.compare import compare
from lanearena.lowering.codegen.placed import placed
from lanearena import api
from lanearena.frontend import decoder_step, load
p = placed(api.place(decoder_step(load("tiny")), PlaceOptions("greedy")))
gpu, cpu = compare(p, "cuda"), compare(p, "numpy")
from lanearena.lowering.runtime.execute import max_abs_err
assert max_abs_err(gpu.placed, cpu.placed) < 1e-3, max_abs_err(gpu.placed, cpu.placed)
assert float(held.sum()) == 1 << 20  # and PyTorch's memory is still its own
print("ok")
"""


def test_a_step_runs_where_pytorch_holds_the_gpu():
    """GPU and PyTorch only. In a fresh process PyTorch allocates first; then a step runs on the GPU and equals
    the numpy runtime (with a context of its own, PyCUDA's cached functions failed there: invalid resource
    handle)."""
    _gpu_or_skip()
    pytest.importorskip("torch", reason="needs PyTorch with CUDA")
    done = subprocess.run([sys.executable, "-c", _AFTER_TORCH], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.strip().endswith("ok"), done.stderr[-2000:]


@pytest.mark.skipif(cuda.available() is not None, reason=f"needs a GPU: {cuda.available()}")
@settings(deadline=None, max_examples=40, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(kernel_steps(), st.integers(0, 2**16))
def test_drawn_kernel_steps_on_the_gpu_equal_the_numpy_runtime(drawn, seed):
    """GPU only. Steps of every kernel kind over views on and off block boundaries, odd sizes, all numerics (the
    suite's drawn steps): the PTX kernels compute what their numpy twins compute, to 1e-4 of the largest value
    (a router's near tie, where either run may pick either expert, is no test)."""
    api.place(drawn.module, PlaceOptions("greedy"))
    p = placed(drawn.module)  # verified
    feeds = random_feeds(p.step, seed)
    if reference_step.run(p.step, feeds).ambiguous(p.step.numerics):
        reject()
    cpu = run_placed(p, NumpyDevice(), feeds)
    gpu = run_placed(p, cuda.CudaDevice(), feeds)
    largest = max((float(abs(v).max(initial=0)) for v in cpu.values()), default=0.0)
    assert max_abs_err(gpu, cpu) <= 1e-4 * max(1.0, largest)
