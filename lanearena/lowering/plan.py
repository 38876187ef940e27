"""A step's launches as a static plan. After `prepare` every address of every launch is fixed, so the launches an
emitted module makes over one set of buffers are recorded once (by running its `launches` on a device that only
records), each kernel's parameters packed once into the bytes the kernel takes, and replayed with one call a launch
and no Python work besides: no argument packing, no lookups, no numpy scalars made.

The plain `launches(dev, b)` stays the readable reference path (and the numpy runtime's); a plan replays exactly
what it launched. A device launches a packed parameter buffer through its `launcher(kernel)` where it has one
(PyCUDA's launch of a buffer, see `cuda.CudaDevice`); any other device (the numpy runtime) gets its parameters back
unpacked as the kernel's CUDA source declares them and launched through `launch`, so the CPU runs the very bytes the
GPU is given."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

import numpy as np

from lanearena.lowering.kernels import source
from lanearena.lowering.kernels.base import KernelCall

Launcher = Callable[[tuple, tuple, bytes, int, object], None]
"""A device's launch of one kernel from packed parameters: `(grid, block, params, shared_bytes, stream)`."""


class Recorder:
    """A device that only records the launches made on it, in order."""

    def __init__(self) -> None:
        self.launches: list[KernelCall] = []

    def launch(self, kernel: str, grid: tuple, block: tuple, args: tuple) -> None:
        self.launches.append(KernelCall(kernel, _dims(grid), _dims(block), tuple(args)))


def _dims(dims: tuple) -> tuple[int, int, int]:
    x, y, z = map(int, dims)
    return x, y, z


def record(module: ModuleType, b: list[int]) -> list[KernelCall]:
    """The launches emitted `module`'s step makes over buffers `b`."""
    recorder = Recorder()
    module.launches(recorder, b)
    return recorder.launches


def _offsets(kernel: str) -> tuple[tuple[np.dtype, int], ...]:
    """Each parameter of `kernel` as its little-endian type and byte offset in the parameter buffer: every parameter
    at a multiple of its own size, as CUDA lays out a kernel's parameters."""
    out, at = [], 0
    for t in source.signature(kernel):
        dtype = np.dtype(t).newbyteorder("<")
        at += -at % dtype.itemsize
        out.append((dtype, at))
        at += dtype.itemsize
    return tuple(out)


def pack(kernel: str, args: tuple) -> bytes:
    """The parameter buffer of a launch of `kernel` with `args` (each of the type its PTX parameter takes, as the
    emitted modules pass them): bit for bit what the kernel reads."""
    params = _offsets(kernel)
    types = tuple(type(a) for a in args)
    want = source.signature(kernel)
    if types != want:
        raise TypeError(f"{kernel} takes {len(params)} parameters of ({_names(want)}), was given ({_names(types)})")
    size = params[-1][1] + params[-1][0].itemsize if params else 0
    buffer = bytearray(size)
    for (dtype, at), a in zip(params, args, strict=True):
        buffer[at : at + dtype.itemsize] = np.asarray(a, dtype).tobytes()
    return bytes(buffer)


def unpack(kernel: str, params: bytes) -> tuple:
    """The arguments `pack` packed into `params` for `kernel`."""
    return tuple(
        t(np.frombuffer(params, dtype, 1, at)[0])
        for (dtype, at), t in zip(_offsets(kernel), source.signature(kernel), strict=True)
    )


def _names(types: tuple[type, ...]) -> str:
    return ", ".join(t.__name__ for t in types)


def launcher(dev, kernel: str) -> Launcher:
    """How `dev` launches `kernel` from packed parameters: its own `launcher`, or `launch` of the parameters
    unpacked."""
    own = getattr(dev, "launcher", None)
    if own is not None:
        return own(kernel)

    def launch(grid: tuple, block: tuple, params: bytes, shared: int, stream: object) -> None:
        dev.launch(kernel, grid, block, unpack(kernel, params))

    return launch


class LaunchPlan:
    """The launches of emitted `module`'s step over buffers `b` on `dev`, recorded and packed once: `replay()`
    launches them all, in order, as `module.launches(dev, b)` does. `zeroed` are the counters' buffers (address,
    bytes), which each launch that uses one leaves zero and which a CUDA graph resets before its launches."""

    def __init__(self, dev, module: ModuleType, b: list[int]):
        self.launches = record(module, b)
        self.zeroed = [(b[k], nbytes) for k, (_, nbytes, zero, _) in enumerate(module.BUFFERS) if zero and nbytes]
        self.calls = [(launcher(dev, c.kernel), c.grid, c.block, pack(c.kernel, c.args)) for c in self.launches]

    def __len__(self) -> int:
        return len(self.calls)

    def replay(self, stream: object = None) -> None:
        """Every launch, in order (on `stream`, a device's stream, where the device has streams)."""
        for launch, grid, block, params in self.calls:
            launch(grid, block, params, 0, stream)
