"""The kernels' CUDA sources and the PTX made from them: every kernel's arguments read from its source are those of its
compiled PTX entry, every kernel has a twin taking them, every module is compute_80 at an ISA a CUDA 12.0 driver
takes, the cache keeps a module under a hash of everything it follows from (read back, not recompiled; written whole
by processes compiling at once), a variant's defines reach the compiler, and where nvcc is missing the error says what
to install."""

from __future__ import annotations

import inspect
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from lanearena import api
from lanearena.dialects.kinds import KERNEL_OPS
from lanearena.errors import UserError
from lanearena.frontend import decoder_step, load
from lanearena.lowering.codegen.target import lower_module
from lanearena.lowering.kernels import ptx, source, twin_of
from lanearena.lowering.kernels.attention import HD_MAX, attention_kernel
from lanearena.lowering.kernels.base import KERNELS, LAUNCHERS
from lanearena.options import PlaceOptions

from ..support.bench import script

needs_nvcc = pytest.mark.skipif(not ptx.can_compile(), reason="nvcc is not on PATH: no PTX can be made here")

_ENTRY = re.compile(r"\.entry\s+(\w+)\s*\(([^)]*)\)", re.S)
_PTX_TYPES = {"u64": np.uint64, "u32": np.int32, "s32": np.int32, "f32": np.float32}
"""How PyCUDA passes an argument of a PTX parameter's type: the types the sources' signatures must agree with."""


def _entries(text: str) -> dict[str, tuple[type, ...]]:
    """Each `.entry` of a PTX module and its parameters as numpy types, read from the PTX."""
    return {
        name: tuple(_PTX_TYPES[t] for t in re.findall(r"\.param\s+\.(\w+)", params))
        for name, params in _ENTRY.findall(text)
    }


@pytest.fixture(scope="module")
def generic() -> dict[str, str]:
    """Every source's module, compiled (or read from the cache)."""
    if not ptx.can_compile():
        pytest.skip("nvcc is not on PATH")
    return {name: ptx.build(src) for name, src in source.sources().items()}


def test_arguments_read_from_the_sources_are_those_of_their_ptx_entries(generic):
    from_ptx = {k: v for text in generic.values() for k, v in _entries(text).items()}
    assert set(from_ptx) == set(source.kernel_names())
    for kernel, types in from_ptx.items():
        assert source.signature(kernel) == types, kernel


@pytest.mark.parametrize("module", sorted(source.packaged()))
def test_ptx_is_for_compute_80_at_an_isa_cuda_12_0_drivers_take(module, generic):
    """A CUDA 12.0 driver JITs PTX ISA up to 8.0; `.target sm_80` runs on Ampere, Ada, Hopper and later."""
    text = generic[module]
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
    twins = _packaged(KERNELS)
    declared = {k: ps for src in source.packaged().values() for k, ps in source.parameters(src).items()}
    assert set(declared) == set(twins)
    for kernel, params in declared.items():
        assert list(inspect.signature(twins[kernel]).parameters)[3:] == [name for name, _ in params], kernel


def test_every_kind_has_kernels():
    assert set(_packaged(LAUNCHERS)) == set(KERNEL_OPS.values())


def test_a_variant_is_named_by_its_kernel_and_defines_and_runs_its_kernels_twin():
    name = source.specialized("attention", HEAD_DIM=128, B=2)
    assert name == "attention[B=2,HEAD_DIM=128]"
    assert source.variant(name) == ("attention", (("B", 2), ("HEAD_DIM", 128)))
    assert source.specialized("attention") == "attention" and source.variant("attention") == ("attention", ())
    assert source.signature(name) == source.signature("attention")
    assert twin_of(name) is twin_of("attention") is not None
    assert ptx.module_name("kv_store") == "attention" and ptx.module_name(name) == "attention[B=2,HEAD_DIM=128]"
    for bad in ("attention[HEAD_DIM]", "attention[HEAD_DIM=x]", "a b"):
        assert not source.declared(bad)
        with pytest.raises(KeyError):
            source.variant(bad)


def test_attention_runs_the_variant_of_a_head_of_whole_warps_and_the_generic_kernel_else():
    assert [attention_kernel(hd) for hd in (32, 64, 128, 256)] == [
        f"attention[HEAD_DIM={hd}]" for hd in (32, 64, 128, 256)
    ]
    assert attention_kernel(16) == attention_kernel(80) == "attention"


def _shared_bytes(text: str, kernel: str) -> int:
    """The bytes of the `.shared` arrays kernel `kernel`'s entry declares (nvcc names them after the kernel)."""
    return sum(int(n) for n in re.findall(rf"\.shared \.align \d+ \.b8 _ZZ{len(kernel)}{kernel}E\w+\[(\d+)\]", text))


@needs_nvcc
def test_a_variants_defines_reach_the_compiler():
    """The variant for heads of 64 holds a block's per-warp sums for 64 values where the generic kernel holds HD_MAX:
    8 warps x (64 + 2) f32 against 8 x (HD_MAX + 2), as attention.cu declares them (wm, wl, wacc)."""
    generic, variant = (ptx.ptx_source(k) for k in ("attention", attention_kernel(64)))
    assert _shared_bytes(generic, "attention") == 8 * (HD_MAX + 2) * 4
    assert _shared_bytes(variant, "attention") == 8 * (64 + 2) * 4
    assert ptx.assemble(variant, "sm_90") is None


def _counting_nvcc(tmp_path: Path) -> Path:
    """A folder holding an `nvcc` that logs each compile to `calls` and runs the real one."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    nvcc = bin_dir / "nvcc"
    nvcc.write_text(
        f'#!/bin/sh\n[ "$1" = --version ] || echo compile >> {tmp_path / "calls"}\nexec {ptx.compiler()} "$@"\n'
    )
    nvcc.chmod(0o755)
    return bin_dir


@needs_nvcc
def test_a_module_is_compiled_once_then_read_from_the_cache(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("LANEARENA_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("PATH", f"{_counting_nvcc(tmp_path)}{os.pathsep}{os.environ['PATH']}")
    rows = source.packaged()["rows"]
    first = ptx.build(rows)
    (cached,) = (tmp_path / "cache" / "ptx").iterdir()
    assert cached.read_text() == first and cached.name.startswith("rows-")
    cached.write_text(first + "// read back\n")  # what a second build returns comes from the file, not nvcc
    assert ptx.build(rows) == first + "// read back\n"
    assert (tmp_path / "calls").read_text().count("compile") == 1
    said = capsys.readouterr().err  # the compile says so on stderr, with its time; the cache hit says nothing
    assert said.count("lanearena: compiled rows to PTX with nvcc in ") == 1 and said.count("\n") == 1


def test_the_cache_key_follows_the_source_its_headers_the_defines_and_the_compiler(tmp_path, monkeypatch):
    monkeypatch.setattr(ptx, "_nvcc_identity", lambda nvcc: f"release of {nvcc}")
    (tmp_path / "mine.cuh").write_text("#define N 1\n")
    src = source.Source("mine", '#include "mine.cuh"\n#include "common.cuh"\n', tmp_path)
    assert set(src.headers()) == {"mine.cuh", "common.cuh"}
    base = ptx.key(src, (), "nvcc")
    assert ptx.key(src, (), "nvcc") == base
    assert ptx.key(source.Source("mine", src.text + "\n", tmp_path), (), "nvcc") != base
    assert ptx.key(src, (("N", 2),), "nvcc") != base
    assert ptx.key(src, (), "/other/nvcc") != base
    (tmp_path / "mine.cuh").write_text("#define N 2\n")
    assert ptx.key(src, (), "nvcc") != base


@needs_nvcc
def test_processes_compiling_one_module_at_once_each_get_it_whole(tmp_path):
    """Four processes on a cold cache: each gets the same module, and the cache holds it once with no partial file."""
    script = "from lanearena.lowering.kernels import ptx, source\nprint(len(ptx.build(source.packaged()['argmax'])))"
    env = os.environ | {"LANEARENA_CACHE": str(tmp_path)}
    runs = [
        subprocess.Popen([sys.executable, "-c", script], env=env, stdout=subprocess.PIPE, text=True) for _ in range(4)
    ]
    lengths = {run.communicate()[0] for run in runs}
    assert all(run.returncode == 0 for run in runs)
    (cached,) = (tmp_path / "ptx").iterdir()
    assert lengths == {f"{len(cached.read_text())}\n"}


def test_without_nvcc_compiling_is_a_user_error_saying_what_to_install(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("LANEARENA_CACHE", str(tmp_path / "cache"))
    assert not ptx.can_compile()
    with pytest.raises(UserError, match=r"needs nvcc on PATH \(NVIDIA's CUDA toolkit"):
        ptx.ptx_source("rms_norm")


def test_the_cache_is_where_the_environment_says(monkeypatch):
    monkeypatch.setenv("LANEARENA_CACHE", "/somewhere")
    assert ptx.cache_dir() == Path("/somewhere")
    monkeypatch.delenv("LANEARENA_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", "/xdg")
    assert ptx.cache_dir() == Path("/xdg/lanearena")
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert ptx.cache_dir() == Path.home() / ".cache" / "lanearena"


@needs_nvcc
def test_a_source_that_does_not_compile_is_a_user_error_with_nvccs_message(tmp_path, monkeypatch):
    monkeypatch.setenv("LANEARENA_CACHE", str(tmp_path))
    broken = source.Source("broken", 'extern "C" __global__ void broken(int n) { undeclared(n); }\n')
    with pytest.raises(UserError, match=r"nvcc does not compile broken:\n.*undeclared"):
        ptx.build(broken)


def test_carried_modules_are_used_as_given_without_a_compiler(tmp_path, monkeypatch):
    """What a printed step carries is what a device loads, by module for the package's kernels and by entry for a
    kind's own whose source this process lacks; nothing is compiled. What it does not carry is built from source."""
    monkeypatch.setenv("PATH", str(tmp_path))
    carried = {"attention[HEAD_DIM=64]": "given attention", "theirs": ".entry their_kernel(\n)"}
    assert ptx.ptx_source("attention[HEAD_DIM=64]", carried) == "given attention"
    assert ptx.ptx_source("their_kernel", carried) == ".entry their_kernel(\n)"
    with pytest.raises(KeyError, match="no CUDA source nor PTX module defines kernel nobodys"):
        ptx.ptx_source("nobodys", carried)
    with pytest.raises(KeyError, match="defines kernel their_kernel"):
        ptx.ptx_source("their_kernel")  # carried by one step, not by every step of the process


@needs_nvcc
def test_the_benchs_kernels_are_built_as_the_packages():
    """bench/gpu_kernels.py's modules, gemv.cu's and bench/kernels/gemv_vec.cu's, come from the package's build (no
    PTX file kept; the build checks each with ptxas for sm_80)."""
    modules = script("gpu_kernels").ptx_modules()
    assert modules["package"] == ptx.build(source.packaged()["gemv"])
    assert re.search(r"\.entry gemv_c\d+\(", modules["variant"]) and ptx.isa(modules["variant"]) <= ptx.PTX_ISA


def test_a_cache_that_cannot_be_written_is_a_user_error_naming_it(tmp_path, monkeypatch):
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    monkeypatch.setenv("LANEARENA_CACHE", str(blocked))
    monkeypatch.setattr(ptx, "_nvcc_identity", lambda nvcc: "an nvcc")
    monkeypatch.setattr(ptx, "compiler", lambda: "nvcc")
    monkeypatch.setattr(ptx, "compile_ptx", lambda src, defines, nvcc: ".version 8.0\n")
    with pytest.raises(UserError, match=f"cannot write the PTX cache {blocked}/ptx: .*set LANEARENA_CACHE"):
        ptx.build(source.packaged()["rows"])


def test_a_module_printed_where_nvcc_is_not_says_so_and_carries_no_ptx(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    module = decoder_step(load("tiny", ["lane_fuse=false"]))  # its attention a launch of its own, specialized
    api.place(module, PlaceOptions("greedy"))
    text = lower_module(module)
    assert "# No PTX: nvcc was not on PATH where this was printed" in text and "PTX = {" not in text
    assert "AttentionOp, 'attention[HEAD_DIM=32]'," in text  # the tiny config's heads of 32: the variant
