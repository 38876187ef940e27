"""`lane-pycuda`'s printer: a `Lowered` step as a Python module that builds the same value (`LOWERED`) and runs it
(`run(device, feeds)`), on any device with the interface of `NumpyDevice` (`alloc`, `fill`, `upload`, `download`,
`launch`): PyCUDA's through `CudaDevice`, or the numpy runtime on the CPU. The module imports the modules that
define the op classes it launches (and register their kernels), so that a kind of one's own runs in a fresh
process too. A module printed for `-t lane-pycuda` carries the PTX of the kernels it launches (`ptx.modules_for`),
so that it runs where only a driver is."""

from __future__ import annotations

import math

import numpy as np

from lanearena.errors import UserError
from lanearena.lowering.codegen.lowered import Argument, Binding, Buffer, Launch, Lowered, Pointer
from lanearena.lowering.kernels import ptx, source, twin_of


def _lit(value: str) -> str:
    """A string as a Python string literal of ASCII only: every quote, newline, NUL and non-ASCII character
    escaped, so the text can never be read as code (nor end a comment's line), and the module's source is ASCII
    whatever the locale's encoding."""
    return ascii(str(value))


def _arg(value: Argument) -> str:
    if value is None:
        return "None"
    if isinstance(value, Pointer):
        return f"P({value.buffer}, {value.offset})"
    if isinstance(value, np.int32):
        return f"i32({int(value)})"
    f = float(value)
    return f"f32({f!r})" if math.isfinite(f) else f"f32({_lit(repr(f))})"  # nan and inf are no literals


def _classes(lowered: Lowered) -> tuple[list[str], dict[type, str]]:
    """The import lines of the op classes `lowered` launches (and of the modules outside lanearena that register
    their kernels' twins), and the name each class has in the module."""
    names: dict[type, str] = {}
    by_module: dict[str, list[str]] = {}
    for launch in lowered.launches:
        cls = launch.op_class
        if cls in names:
            continue
        if not cls.__qualname__.isidentifier():
            raise UserError(f"{cls.name}: its op class {cls.__qualname__} is not defined at the top of a module")
        name = cls.__qualname__ if cls.__qualname__ not in names.values() else f"{cls.__qualname__}_{len(names)}"
        names[cls] = name
        by_module.setdefault(cls.__module__, []).append(
            cls.__qualname__ + ("" if name == cls.__qualname__ else f" as {name}")
        )
    twins = {twin.__module__ for k in lowered.kernels() if (twin := twin_of(k)) is not None}
    outside = sorted(m for m in twins - set(by_module) if m.split(".")[0] != "lanearena")
    lines = [f"from {m} import {', '.join(sorted(c))}" for m, c in sorted(by_module.items())]
    return lines + [f"import {m}  # registers kernels the step launches" for m in outside], names


def _buffer(b: Buffer) -> str:
    return f"Buffer({_lit(b.name)}, {b.bytes}, Role.{b.role.name}, zeroed={b.zeroed}, poisoned={b.poisoned}),"


def _binding(name: str, b: Binding) -> str:
    return f"{_lit(name)}: Binding({b.buffer}, {b.offset}, Role.{b.role.name}, {_lit(b.elem)}, {b.shape}),"


def _launch(launch: Launch, cls: str) -> str:
    args = ", ".join(map(_arg, launch.args))
    return (
        f"Launch({launch.op}, {_lit(launch.kind)}, {cls}, {_lit(launch.kernel)}, {launch.grid}, {launch.block}, "
        f"({args}{',' if len(launch.args) == 1 else ''})),"
    )


def emit(lowered: Lowered, embed_ptx: bool = False) -> str:
    """The Python module that builds `lowered` and runs it, carrying the PTX of the kernels it launches where
    `embed_ptx` (see `embedded`)."""
    imports, classes = _classes(lowered)
    doc = (
        f"Step @{lowered.step} ({lowered.numerics.value}) lowered by lanearena: {len(lowered.launches)} kernel "
        f"launches over one arena of {lowered.arena_bytes} bytes\n(lower bound {lowered.lower_bound}, placed by "
        f"{lowered.algorithm}). Call run(device, feeds) with a NumpyDevice or a CudaDevice."
    )
    indent = " " * 8
    # Every name from the IR reaches the module only as a literal `_lit` makes, never as code.
    lines = [
        _lit(doc),
        "",
        *(["from dataclasses import replace", ""] if embed_ptx else []),
        "from lanearena.lowering.codegen.lowered import Binding, Buffer, Launch, Lowered",
        "from lanearena.lowering.codegen.lowered import Pointer as P",
        "from lanearena.lowering.runtime.execute import f32, i32, run_step",
        "from lanearena.model import Numerics, Role",
        *imports,
        "",
        "LOWERED = Lowered(",
        f"    step={_lit(lowered.step)},",
        f"    numerics=Numerics.{lowered.numerics.name},",
        f"    align={lowered.align},  # of every array, and of a Q8_0 weight's parts",
        f"    arena_bytes={lowered.arena_bytes},",
        f"    lower_bound={lowered.lower_bound},",
        f"    algorithm={_lit(lowered.algorithm)},",
        "    buffers=(",
        *(indent + _buffer(b) for b in lowered.buffers),
        "    ),",
        "    feeds={",
        *(indent + _binding(n, b) for n, b in lowered.feeds.items()),
        "    },",
        "    results={",
        *(indent + _binding(n, b) for n, b in lowered.results.items()),
        "    },",
        "    launches=(",
        *(indent + _launch(launch, classes[launch.op_class]) for launch in lowered.launches),
        "    ),",
        ")",
        "",
        "",
        "def run(dev, feeds):",
        '    """Allocates the buffers on `dev`, uploads `feeds`, runs the step, and returns its outputs and state."""',
        "    return run_step(dev, LOWERED, feeds)",
        "",
    ]
    if embed_ptx:
        lines += embedded(lowered.kernels())
    return "\n".join(lines)


def embedded(kernels: tuple[str, ...]) -> list[str]:
    """The lines that give the module's `LOWERED` the PTX of launch kernels `kernels` (those a CUDA source declares;
    a kind's own without one runs on the numpy runtime only), by module (`Lowered.ptx`: the device it is prepared on
    loads its kernels from there): built here, or where nvcc is not on PATH, a comment saying that a GPU compiles
    them from their sources."""
    declared = [k for k in kernels if source.declared(k)]
    if not declared:
        return []
    if not ptx.can_compile():
        return [
            "",
            "# No PTX: nvcc was not on PATH where this was printed; a CudaDevice compiles the kernels' sources.",
        ]
    modules = ptx.modules_for(declared)
    return [
        "",
        "",
        f"# The PTX of the kernels above (compute_80, PTX ISA {ptx.PTX_ISA[0]}.{ptx.PTX_ISA[1]}), by module: what a",
        "# CudaDevice the step is prepared on loads, so that no compiler nor kernel file is needed to run it on a GPU.",
        "PTX = {",
        *(f"    {_lit(name)}: {_lit(text)}," for name, text in modules.items()),
        "}",
        "LOWERED = replace(LOWERED, ptx=PTX)  # noqa: E402",
        "",
    ]
