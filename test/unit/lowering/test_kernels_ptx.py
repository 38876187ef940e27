"""The kernels' CUDA sources against their PTX and their numpy twins: every `.cu` compiles, every committed `.ptx`
is what nvcc makes of it today (compute_80 at PTX ISA 8.0) and assembles for sm_80, sm_86, sm_89 and sm_90, and
every kernel has a twin taking the same arguments."""

from __future__ import annotations

import inspect
import re
import shutil
import subprocess

import pytest

from lanearena.dialects.kinds import KERNEL_OPS
from lanearena.lowering.kernels import ptx
from lanearena.lowering.kernels.base import KERNELS, LAUNCHERS

NVCC, PTXAS = shutil.which("nvcc"), shutil.which("ptxas")
_KERNEL = re.compile(r'extern "C" __global__ void (\w+)\(([^)]*)\)')


def cuda_params() -> dict[str, list[str]]:
    """Each kernel's parameter names, from the CUDA sources."""
    found = {}
    for cu in ptx.sources():
        for name, params in _KERNEL.findall(cu.read_text()):
            found[name] = [re.findall(r"\w+", p)[-1] for p in params.split(",")]
    return found


def _release(text: str) -> str | None:
    m = re.search(r"Cuda compilation tools, release ([\d.]+)", text)
    return m and m.group(1)


@pytest.fixture(scope="module")
def regenerated(tmp_path_factory) -> dict[str, str]:
    """Every source compiled afresh, by module."""
    if NVCC is None:
        pytest.skip("nvcc is not on PATH: the committed PTX cannot be checked against the sources")
    return {p.stem: p.read_text() for p in ptx.regenerate(tmp_path_factory.mktemp("ptx"))}


def test_every_source_has_its_ptx_committed():
    assert {cu.stem for cu in ptx.sources()} == set(ptx.modules())


def test_every_source_compiles_to_a_module(regenerated):
    assert set(regenerated) == set(ptx.modules())


@pytest.mark.parametrize("module", sorted(ptx.modules()))
def test_committed_ptx_is_up_to_date(module, regenerated):
    """Each module made by this nvcc's release is what it makes of the source today; one made by another release
    (whose output differs in more than its header) is skipped, naming both releases."""
    here = _release(subprocess.run([NVCC, "--version"], capture_output=True, text=True).stdout)
    text = ptx.modules()[module]
    if _release(text) != here:
        pytest.skip(f"{module}.ptx was made by CUDA {_release(text)}, nvcc here is {here}: not compared")
    assert ptx.body(text) == ptx.body(regenerated[module]), (
        f"{module}.ptx is stale: run python -m lanearena.lowering.kernels.ptx"
    )


@pytest.mark.skipif(PTXAS is None, reason="ptxas is not on PATH")
@pytest.mark.parametrize("arch", ["sm_80", "sm_86", "sm_89", "sm_90"])
@pytest.mark.parametrize("module", sorted(ptx.modules()))
def test_ptx_assembles_for_every_gpu_from_ampere(module, arch, tmp_path):
    src = tmp_path / f"{module}.ptx"
    src.write_text(ptx.modules()[module])
    done = subprocess.run(
        [PTXAS, f"-arch={arch}", str(src), "-o", str(tmp_path / "out.cubin")], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("module", sorted(ptx.modules()))
def test_ptx_is_for_compute_80_at_an_isa_cuda_12_0_drivers_take(module):
    """A CUDA 12.0 driver JITs PTX ISA up to 8.0; `.target sm_80` runs on Ampere, Ada, Hopper and later."""
    text = ptx.modules()[module]
    assert ptx.isa(text) <= (8, 0)
    assert re.search(r"^\.target sm_80$", text, re.M)


def test_a_later_isa_line_is_lowered_and_an_earlier_one_kept():
    text = "//\n.version 9.0\n.target sm_80\n"
    assert ptx.isa(ptx.with_isa(text, (8, 0))) == (8, 0)
    assert ptx.with_isa(text.replace("9.0", "7.8"), (8, 0)) == text.replace("9.0", "7.8")


def _packaged(registry: dict) -> dict:
    """The entries of `registry` that the package's own kernel modules made (a test's kind adds its own)."""
    return {k: v for k, v in registry.items() if v.__module__.startswith("lanearena.")}


def test_every_kernel_has_a_twin_with_its_parameters():
    params = cuda_params()
    twins = _packaged(KERNELS)
    assert set(params) == set(ptx.kernel_names()) == set(twins)
    for kernel, names in params.items():
        assert list(inspect.signature(twins[kernel]).parameters)[3:] == names, kernel
        assert len(ptx.signature(kernel)) == len(names), kernel


def test_every_kind_has_kernels():
    assert set(_packaged(LAUNCHERS)) == set(KERNEL_OPS.values())


def test_ptx_source_holds_the_kernel():
    for kernel in ptx.kernel_names():
        assert f".entry {kernel}(" in ptx.ptx_source(kernel)
