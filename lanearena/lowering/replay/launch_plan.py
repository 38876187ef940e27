"""A step's launches as a static plan. After `prepare` every address of every launch is fixed, so a `Lowered` step's
launches over one set of buffers are resolved once, each kernel's parameters packed once into the bytes the kernel
takes, and replayed with one call a launch and no Python work besides: no argument packing, no lookups, no numpy
scalars made.

The plain `execute.launch(dev, lowered, b)` stays the reference path (and the numpy runtime's); a plan replays
exactly what it launches. A device launches a packed parameter buffer through its `launcher(kernel)` where it has one
(PyCUDA's launch of a buffer, see `cuda.CudaDevice`); any other device (the numpy runtime) gets its parameters back
unpacked as the kernel's CUDA source declares them and launched through `launch`, so the CPU runs the very bytes the
GPU is given."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from lanearena.lowering.codegen.lowered import Lowered
from lanearena.lowering.kernels import source

Launcher = Callable[[tuple, tuple, bytes, int, object], None]
"""A device's launch of one kernel from packed parameters: `(grid, block, params, shared_bytes, stream)`."""


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
    """The parameter buffer of a launch of `kernel` with `args` (each of the type its PTX parameter takes, as a
    `Launch` resolves them): bit for bit what the kernel reads."""
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
    unpacked (each parameter buffer unpacked once: a replayed plan gives the same buffers again)."""
    own = getattr(dev, "launcher", None)
    if own is not None:
        return own(kernel)
    unpacked: dict[bytes, tuple] = {}

    def launch(grid: tuple, block: tuple, params: bytes, shared: int, stream: object) -> None:
        args = unpacked.get(params)
        if args is None:
            args = unpacked[params] = unpack(kernel, params)
        dev.launch(kernel, grid, block, args)

    return launch


class LaunchPlan:
    """The launches of `lowered` over buffers `b` on `dev`, resolved and packed once: `replay()` launches them all,
    in order, as `execute.launch(dev, lowered, b)` does. `zeroed` are the counters' buffers (address, bytes; one at
    most, see `lower.layout`), which each launch that uses a counter leaves zero and which a CUDA graph resets
    before its launches."""

    def __init__(self, dev, lowered: Lowered, b: list[int]):
        self.launches = lowered.calls(b)
        self.zeroed = lowered.zeroed(b)
        self.calls = [(launcher(dev, c.kernel), c.grid, c.block, pack(c.kernel, c.args)) for c in self.launches]

    def __len__(self) -> int:
        return len(self.calls)

    def replay(self, stream: object = None) -> None:
        """Every launch, in order (on `stream`, a device's stream, where the device has streams)."""
        for launch, grid, block, params in self.calls:
            launch(grid, block, params, 0, stream)
