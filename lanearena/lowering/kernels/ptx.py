"""The kernels' PTX, made from their CUDA sources when a device first needs it: one module a source (`rows` for
rows.cu) or a variant of one (`attention[HEAD_DIM=128]`: the source compiled with those `-D` defines), compiled by
nvcc, cached on disk, and embedded in the modules `-t lane-pycuda` prints (`modules_for`), whose `Lowered` carries it
to the device that runs it (`Lowered.ptx`, `ptx_source`'s `carried`) so that a printed module runs where only a
driver is.

The PTX is for `compute_80` (Ampere and every GPU since) at PTX ISA `PTX_ISA`, the ISA of CUDA 12.0, so that any
CUDA 12 or later driver JITs it for the GPU it finds. nvcc 13 writes its own ISA (9.0) on every module; the line is
lowered to `PTX_ISA`, and ptxas (where it is) must then assemble the module, which it refuses for any instruction
that the lower ISA lacks.

The cache (`cache_dir`) keeps a module under a hash of everything its text follows from: the source, the headers it
includes, the defines, the flags and the compiler's identity; each file is written whole under a temporary name and
renamed, so that processes compiling at once (pytest-xdist's workers, several runs) never read half a file.

`python -m lanearena.lowering.kernels.ptx [VARIANT ...]` compiles every source (and the variants named, such as
`attention[HEAD_DIM=128]`) into the cache and assembles each module with ptxas for every GPU from `ARCHS`."""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from lanearena.errors import UserError
from lanearena.lowering.kernels import source
from lanearena.lowering.kernels.source import Defines, Source

ARCH = "sm_80"
"""The oldest GPU the PTX is for: Ampere."""

ARCHS = ("sm_80", "sm_86", "sm_89", "sm_90")
"""The GPUs every module is checked to assemble for: Ampere (A100, RTX 30), Ada (L40, RTX 40), Hopper (H100, H200)."""

PTX_ISA = (8, 0)
"""The PTX ISA the modules declare: CUDA 12.0's."""

NVCC_FLAGS = ("-ptx", f"-arch=compute_{ARCH[3:]}", "-O3", "-std=c++17")

CACHE_FORMAT = 1
"""Part of every cache key: raised when what a cached file holds changes meaning."""

_VERSION = re.compile(r"^\.version (\d+)\.(\d+)$", re.M)


def module_name(kernel: str) -> str:
    """The PTX module that defines launch kernel `kernel` (a kernel or a variant, see `source.specialized`): its
    source's name with the variant's defines, `attention[HEAD_DIM=128]`."""
    return source.specialized(source.source_of(kernel).name, **dict(source.variant(kernel)[1]))


def cache_dir() -> Path:
    """Where compiled modules are kept: `$LANEARENA_CACHE`, else `$XDG_CACHE_HOME/lanearena`, else
    `~/.cache/lanearena`."""
    if os.environ.get("LANEARENA_CACHE"):
        return Path(os.environ["LANEARENA_CACHE"])
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "lanearena"


@functools.cache
def _nvcc_identity(nvcc: str) -> str:
    """What nvcc at `nvcc` says it is (its release and build), part of every cache key."""
    return subprocess.run([nvcc, "--version"], capture_output=True, text=True, check=True).stdout.strip()


def can_compile() -> bool:
    """Whether modules can be compiled here (nvcc is on PATH)."""
    return shutil.which("nvcc") is not None


def compiler() -> str:
    """The path of nvcc, the compiler the modules are made with; a `UserError` saying what to install where it is not
    on PATH."""
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        raise UserError(
            "compiling the kernels' CUDA sources to PTX needs nvcc on PATH (NVIDIA's CUDA toolkit 12.0 or later; no "
            "GPU needed); a module printed by `lanearena compile` carries its PTX and needs none"
        )
    return nvcc


def key(src: Source, defines: Defines, nvcc: str) -> str:
    """The hash a compiled module is cached under: of the source, its headers, the defines, the flags, the PTX ISA
    and the compiler's identity."""
    given = [CACHE_FORMAT, src.text, src.headers(), defines, NVCC_FLAGS, PTX_ISA, _nvcc_identity(nvcc)]
    return hashlib.sha256(json.dumps(given).encode()).hexdigest()[:32]


def build(src: Source, defines: Defines = ()) -> str:
    """The PTX module of `src` compiled with `defines`: from the cache, else compiled (and a line on stderr saying
    so, with the time it took) and cached."""
    nvcc = compiler()
    label = source.specialized(src.name, **dict(defines))
    path = cache_dir() / "ptx" / f"{src.name}-{key(src, defines, nvcc)}.ptx"
    if path.is_file():
        return path.read_text()
    started = time.perf_counter()
    text = compile_ptx(src, defines, nvcc)
    _write_whole(path, text)
    print(
        f"lanearena: compiled {label} to PTX with nvcc in {time.perf_counter() - started:.2f} s (cached in "
        f"{path.parent})",
        file=sys.stderr,
    )
    return text


def compile_ptx(src: Source, defines: Defines, nvcc: str) -> str:
    """`src` compiled by `nvcc` with `NVCC_FLAGS` and `defines`, at PTX ISA `PTX_ISA`; a `UserError` with nvcc's or
    ptxas's message where it does not compile or assemble."""
    label = source.specialized(src.name, **dict(defines))
    with tempfile.TemporaryDirectory(prefix="lanearena-ptx-") as work:
        cu, out = Path(work) / f"{src.name}.cu", Path(work) / f"{src.name}.ptx"
        cu.write_text(src.text)
        flags = [*NVCC_FLAGS, f"-I{src.folder}", f"-I{source.HERE}", *(f"-D{k}={v}" for k, v in defines)]
        done = subprocess.run([nvcc, *flags, "-o", str(out), str(cu)], capture_output=True, text=True)
        if done.returncode != 0:
            raise UserError(f"nvcc does not compile {label}:\n{done.stderr.strip()}")
        text = with_isa(out.read_text(), PTX_ISA)
    problem = assemble(text, ARCH)
    if problem:
        raise UserError(f"{label}'s PTX does not assemble at PTX ISA {PTX_ISA[0]}.{PTX_ISA[1]}:\n{problem}")
    return text


def _write_whole(path: Path, text: str) -> None:
    """Writes `path` under a temporary name beside it and renames it into place: a reader sees no file or all."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(temporary, path)
    except OSError as e:
        raise UserError(f"cannot write the PTX cache {path.parent}: {e} (set LANEARENA_CACHE to a folder)") from e


def isa(text: str) -> tuple[int, int]:
    """The PTX ISA a module declares (its `.version` line)."""
    m = _VERSION.search(text)
    if m is None:
        raise ValueError("no .version line in the PTX")
    return int(m.group(1)), int(m.group(2))


def with_isa(text: str, version: tuple[int, int]) -> str:
    """`text` declaring PTX ISA `version` where it declared a later one."""
    if isa(text) <= version:
        return text
    return _VERSION.sub(f".version {version[0]}.{version[1]}", text, count=1)


def assemble(text: str, arch: str) -> str | None:
    """ptxas's complaint about PTX module `text` for GPU `arch` (`sm_86`), or None where it assembles (or where
    ptxas is not on PATH to ask)."""
    ptxas = shutil.which("ptxas")
    if ptxas is None:
        return None
    with tempfile.TemporaryDirectory(prefix="lanearena-ptxas-") as work:
        ptx = Path(work) / "module.ptx"
        ptx.write_text(text)
        done = subprocess.run(
            [ptxas, f"-arch={arch}", str(ptx), "-o", str(Path(work) / "module.cubin")], capture_output=True, text=True
        )
    return done.stderr or "ptxas failed" if done.returncode else None


def ptx_source(kernel: str, carried: Mapping[str, str] = {}) -> str:
    """The PTX module that defines launch kernel `kernel` (load it once, then take each of its kernels by the name
    `source.variant` gives): one of the `carried` modules (a printed step's, `Lowered.ptx`, by module name) where one
    is, else its source's, built (see `build`). A `KeyError` where neither defines it (a kind's own without its
    source: it runs on the numpy runtime only), a `UserError` where it must be compiled and cannot."""
    base, defines = source.variant(kernel)
    if source.declared(kernel):
        return carried.get(module_name(kernel)) or build(source.source_of(kernel), defines)
    for name, text in carried.items():  # a kind's own whose source this process was not given
        if source.variant(name)[1] == defines and re.search(rf"\.entry\s+{base}\s*\(", text):
            return text
    raise KeyError(
        f"no CUDA source nor PTX module defines kernel {kernel} (a kind's own adds its source with add_source)"
    )


def modules_for(kernels: Iterable[str]) -> dict[str, str]:
    """The PTX modules that define launch kernels `kernels` (kernels or variants), each once, by module name: what a
    printed module carries. Compiled where not cached, two at a time."""
    wanted = {module_name(k): k for k in kernels}
    with ThreadPoolExecutor(2) as pool:
        texts = pool.map(ptx_source, [wanted[name] for name in sorted(wanted)])
        return dict(zip(sorted(wanted), texts, strict=True))


def _check(label: str, text: str) -> list[str]:
    """ptxas's complaints about module `text` for every GPU of `ARCHS`."""
    return [f"{label} for {arch}: {problem}" for arch in ARCHS if (problem := assemble(text, arch))]


def main(argv: list[str]) -> int:
    """Compiles every source and the variants `argv` names into the cache, and assembles each for every GPU of
    `ARCHS`: 0 where all assemble."""
    started = time.perf_counter()
    wanted: dict[str, tuple[Source, Defines]] = {name: (src, ()) for name, src in source.sources().items()}
    try:
        for kernel in argv:
            wanted[module_name(kernel)] = (source.source_of(kernel), source.variant(kernel)[1])
        with ThreadPoolExecutor(2) as pool:
            built = dict(zip(wanted, pool.map(lambda w: build(*w), wanted.values()), strict=True))
    except (KeyError, UserError) as e:
        print(f"lanearena: {e}", file=sys.stderr)
        return 2
    compiled = time.perf_counter() - started
    with ThreadPoolExecutor(2) as pool:
        problems = [p for found in pool.map(_check, built, built.values()) for p in found]
    for name, text in built.items():
        print(f"{name}: {len(text)} bytes")
    print("\n".join(problems) or f"all {len(built)} modules assemble for {', '.join(ARCHS)}", file=sys.stderr)
    print(
        f"{compiled:.1f} s to compile, {time.perf_counter() - started - compiled:.1f} s to assemble; cached in "
        f"{cache_dir() / 'ptx'}",
        file=sys.stderr,
    )
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
