"""The kernels' CUDA sources: the package's `.cu` files and those a kind of one's own adds (`add_source`), the kernels
each declares and the types its arguments are passed as, read from the source itself so that the numpy runtime and
the launch plan need no compiler; and the names of specialized variants (`specialized`), a kernel compiled with
`-D` defines that make some of its sizes compile-time constants."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
"""The package's kernels: its `.cu` sources and the headers they include (`common.cuh`)."""


@dataclass(frozen=True)
class Source:
    """A CUDA source compiled to one PTX module: its `name` (the `.cu` file's stem: `rows`), its text, and the folder
    its quoted `#include`s are found in (the package's headers are found from any source)."""

    name: str
    text: str
    folder: Path = HERE

    def headers(self) -> dict[str, str]:
        """Every header the source includes with quotes, directly or through another header, by file name: what a
        compile of it reads besides its text."""
        found: dict[str, str] = {}
        todo = [self.text]
        while todo:
            for name in _INCLUDE.findall(todo.pop()):
                if name not in found:
                    path = next((d / name for d in (self.folder, HERE) if (d / name).is_file()), None)
                    if path is None:
                        where = f"neither in {self.folder} nor among the package's headers"
                        raise FileNotFoundError(f'{self.name}.cu includes "{name}", found {where}')
                    found[name] = path.read_text()
                    todo.append(found[name])
        return dict(sorted(found.items()))


_INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
_KERNEL = re.compile(r'extern\s+"C"\s+__global__\s+void\s+(\w+)\s*\(([^)]*)\)', re.S)
_SCALARS: dict[str, type] = {"int": np.int32, "unsigned": np.int32, "unsigned int": np.int32, "float": np.float32}
"""The numpy type a scalar argument is passed as, by its CUDA type (a pointer is passed as `np.uint64`)."""

ADDED: dict[str, Source] = {}
"""The sources of kinds added outside the package (`add_source`), by name."""


def add_source(name: str, text: str, folder: Path = HERE) -> None:
    """Adds CUDA source `name` (a kind's own kernels; its quoted includes found in `folder`, or among the package's
    headers), compiled when a device first loads one of its kernels; drops it where `text` is empty."""
    if text:
        ADDED[name] = Source(name, text, folder)
    else:
        ADDED.pop(name, None)
    _declared.cache_clear()


@functools.cache
def packaged() -> dict[str, Source]:
    """The package's own sources, by name."""
    return {p.stem: Source(p.stem, p.read_text()) for p in sorted(HERE.glob("*.cu"))}


def sources() -> dict[str, Source]:
    """Every source, the package's and the added ones, by name."""
    return packaged() | ADDED


def parameters(source: Source) -> dict[str, list[tuple[str, type]]]:
    """Each kernel `source` declares (`extern "C" __global__ void`), with its parameters' names and the numpy types
    they are passed as: a pointer as `np.uint64`, an int as `np.int32`, a float as `np.float32`."""
    found = {}
    for kernel, params in _KERNEL.findall(_without_comments(source.text)):
        found[kernel] = [_parameter(source, kernel, p) for p in params.split(",") if p.strip()]
    return found


def _without_comments(text: str) -> str:
    return re.sub(r"//[^\n]*|/\*.*?\*/", " ", text, flags=re.S)


def _parameter(source: Source, kernel: str, text: str) -> tuple[str, type]:
    words = text.replace("*", " * ").split()
    name, kind = words[-1], [w for w in words[:-1] if w not in ("const", "__restrict__", "volatile")]
    if "*" in kind:
        return name, np.uint64
    scalar = _SCALARS.get(" ".join(kind))
    if scalar is None:
        raise ValueError(f"{source.name}.cu: {kernel}'s parameter '{text.strip()}' is neither a pointer, int nor float")
    return name, scalar


@functools.cache
def _declared() -> dict[str, tuple[str, tuple[type, ...]]]:
    """Each kernel's source and the numpy types of its arguments."""
    found: dict[str, tuple[str, tuple[type, ...]]] = {}
    for name, source in sources().items():
        for kernel, params in parameters(source).items():
            if kernel in found:
                raise ValueError(f"kernel {kernel} is declared by both {found[kernel][0]}.cu and {name}.cu")
            found[kernel] = (name, tuple(t for _, t in params))
    return found


def kernel_names() -> list[str]:
    """Every kernel the sources declare."""
    return sorted(_declared())


_VARIANT = re.compile(r"^(\w+)(?:\[(\w+=-?\d+(?:,\w+=-?\d+)*)\])?$")

Defines = tuple[tuple[str, int], ...]
"""A variant's `-D` defines, by name in order: each a compile-time constant of the kernel's source."""


def specialized(kernel: str, **defines: int) -> str:
    """The name of `kernel` compiled with `defines` (`attention[HEAD_DIM=128]`), as a launch names it: the same
    kernel, taking the same arguments, with those sizes made compile-time constants; `kernel` itself where there
    are none."""
    if not defines:
        return kernel
    return f"{kernel}[{','.join(f'{k}={int(v)}' for k, v in sorted(defines.items()))}]"


def variant(name: str) -> tuple[str, Defines]:
    """The kernel and the defines that a launch's kernel name (`specialized`'s) stands for."""
    m = _VARIANT.match(name)
    if m is None:
        raise KeyError(f"'{name}' names no kernel (a kernel, or a variant of one: attention[HEAD_DIM=128])")
    pairs = (p.split("=") for p in m.group(2).split(",")) if m.group(2) else ()
    return m.group(1), tuple((k, int(v)) for k, v in pairs)


def declared(name: str) -> bool:
    """Whether a source declares the kernel `name` is (or is a variant of)."""
    return variant(name)[0] in _declared() if _VARIANT.match(name) else False


def source_of(name: str) -> Source:
    """The source that declares kernel `name` (or the kernel it is a variant of); a `KeyError` saying so where none
    does."""
    kernel = variant(name)[0]
    if kernel not in _declared():
        raise KeyError(f"no CUDA source declares kernel {kernel} (a kind's own adds its source with add_source)")
    return sources()[_declared()[kernel][0]]


def signature(name: str) -> tuple[type, ...]:
    """The numpy types the arguments of kernel `name` (or of the kernel it is a variant of) are passed as."""
    source_of(name)
    return _declared()[variant(name)[0]][1]
