"""The PTX of every shipped config, as `lanearena compile` prints it: every config of `lanearena.frontend.configs` and
examples/configs, in every numerics, fused and not (made small where the shape does not choose a kernel: the
vocabulary and the cache), printed with the PTX modules of exactly the kernels and variants it launches, each of
which assembles with ptxas for every GPU from Ampere to Hopper, as does every source's generic module; and a printed
module runs on a GPU with no compiler and no PTX file, its kernels loaded from the PTX it carries."""

from __future__ import annotations

import ast
import itertools
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from lanearena import api
from lanearena.frontend import decoder_step
from lanearena.frontend.configs import CONFIGS, load
from lanearena.lowering.codegen.target import lower_module
from lanearena.lowering.kernels import ptx, source
from lanearena.options import PlaceOptions

pytestmark = pytest.mark.skipif(not ptx.can_compile(), reason="nvcc is not on PATH: no PTX can be made here")

ROOT = Path(__file__).resolve().parents[3]
SHIPPED = [*CONFIGS, *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "examples" / "configs").glob("*.json"))]
NUMERICS = ("f32", "bf16", "int8", "int8x2")
SMALL = ("vocab=512", "max_len=64")
"""What no kernel is chosen by: a step's kernels and variants follow its layers' kinds and head size."""

_LAUNCH = re.compile(r"^        Launch\(\d+, '[^']*', \w+, '([^']+)'", re.M)


def printed(config: str, numerics: str, fuse: bool = True) -> str:
    """The module `lanearena compile` prints for `config` in `numerics`, fused (as built) or not."""
    keys = [*SMALL, f"numerics={numerics}", f"lane_fuse={str(fuse).lower()}"]
    module = decoder_step(load(str(ROOT / config) if config.endswith(".json") else config, keys))
    api.place(module, PlaceOptions("greedy"))
    return lower_module(module)


def carried(text: str) -> dict[str, str]:
    """The PTX modules a printed module carries, read from its text (not run)."""
    start = text.index("\nPTX = {\n") + len("\nPTX = ")
    return ast.literal_eval(text[start : text.index("\n}\n", start) + 2])


@pytest.fixture(scope="module")
def modules() -> dict[str, str]:
    """Every module any shipped config's printed module carries, fused or not (the fused kernels; the attention's
    variants, which only the unfused attention takes), each checked to be what it launches, by name."""
    found: dict[str, str] = {}
    for config in SHIPPED:
        for numerics, fuse in itertools.product(NUMERICS, (True, False)):
            text = printed(config, numerics, fuse)
            launched, ptx_of = set(_LAUNCH.findall(text)), carried(text)
            assert set(ptx_of) == {ptx.module_name(k) for k in launched}, (config, numerics)
            for kernel in launched:
                assert f".entry {source.variant(kernel)[0]}(" in ptx_of[ptx.module_name(kernel)], (config, kernel)
            found |= ptx_of
    return found


def test_the_shipped_configs_launch_the_attention_variants_of_their_head_sizes(modules):
    """Heads of 32 (the tiny configs), 64 (Llama 3.2 1B, Qwen2.5 0.5B, SmolLM2), 128 and 256 (Qwen3-Next); and the
    generic module, for kv_store."""
    variants = {f"attention[HEAD_DIM={hd}]" for hd in (32, 64, 128, 256)}
    assert {m for m in modules if m.startswith("attention")} == {"attention", *variants}


def test_every_module_assembles_for_every_gpu_from_ampere_to_hopper(modules):
    """The modules the shipped configs carry and every source's generic one, each for sm_80, sm_86, sm_89 and sm_90,
    ptxas two at a time (CI's two cores)."""
    every = modules | {name: ptx.build(src) for name, src in source.packaged().items()}
    jobs = [(name, arch) for name in sorted(every) for arch in ptx.ARCHS]
    with ThreadPoolExecutor(2) as pool:
        problems = [
            f"{name} for {arch}: {problem}"
            for (name, arch), problem in zip(
                jobs, pool.map(lambda j: ptx.assemble(every[j[0]], j[1]), jobs), strict=True
            )
            if problem
        ]
    assert shutil.which("ptxas") and not problems, problems


_FAKE_GPU = """
import sys, types
import numpy as np

loaded, launched = [], []

class Module:
    def __init__(self, text):
        self.text = text
        loaded.append(text)

    def get_function(self, name):
        assert f".entry {name}(" in self.text, name
        return lambda *args, grid, block: launched.append(name)

addresses = iter(range(1 << 20, 1 << 40, 1 << 30))
driver = types.ModuleType("pycuda.driver")
driver.__dict__.update(
    get_driver_version=lambda: 12000, Stream=lambda: None, Error=RuntimeError,
    module_from_buffer=lambda text: Module(text.decode()), mem_alloc=lambda n: next(addresses),
    memset_d8=lambda *a: None, memcpy_htod=lambda *a: None, memcpy_dtoh=lambda out, addr: out.fill(0),
)
gpu = types.SimpleNamespace(name=lambda: "NVIDIA A100", compute_capability=lambda: (8, 0))
primary = types.SimpleNamespace(device=gpu)
package = types.SimpleNamespace(driver=driver, autoprimaryctx=primary)
sys.modules.update({"pycuda": package, "pycuda.driver": driver, "pycuda.autoprimaryctx": primary})

from lanearena.lowering.runtime.cuda import CudaDevice
from lanearena.lowering.runtime.execute import load

step = load(open(sys.argv[1]).read())
feeds = {n: np.zeros(f.shape, np.int32 if f.elem == "i32" else np.float32) for n, f in step.LOWERED.feeds.items()}
step.run(CudaDevice(), feeds)
assert len(launched) == len(step.LOWERED.launches) and set(loaded) <= set(step.PTX.values()), (launched, len(loaded))
print(len(launched), len(loaded))
"""


def test_a_printed_module_runs_on_a_gpu_with_no_compiler_and_no_ptx_file(tmp_path):
    """In a fresh process with no nvcc on its PATH and an empty cache, on PyCUDA faked down to a driver that loads PTX
    text: every launch of the printed tiny step finds its kernel in a module the step carries."""
    module = tmp_path / "tiny.py"
    module.write_text(printed("tiny", "int8"))
    bare = tmp_path / "bin"
    bare.mkdir()
    env = os.environ | {"PATH": str(bare), "LANEARENA_CACHE": str(tmp_path / "cache")}
    done = subprocess.run([sys.executable, "-c", _FAKE_GPU, str(module)], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    launches, loaded = map(int, done.stdout.split())
    assert launches > 10 and loaded == len(carried(module.read_text()))
    assert not (tmp_path / "cache").exists()
