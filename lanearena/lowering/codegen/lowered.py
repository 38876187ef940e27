"""A lowered step as one value: its buffers, the tensors a caller feeds and reads back, and its kernel launches, with
every pointer a (buffer, offset) pair. It is built once from a placed step (`lower.lower`); the runtime, the
weights' upload, the session, the launch plan, the CUDA graph and the profile all read it, and `emit` prints it as a
Python module that builds the same value."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from lanearena.dialects.kernel import KernelOp
from lanearena.lowering.kernels.base import KernelCall
from lanearena.model import Numerics, Role, weight_array_bytes


@dataclass(frozen=True)
class Buffer:
    """A device allocation of the step: `name`, `bytes`, the `role` of what it holds (`Role.COMPUTED` for the
    arena and the counters), whether it starts `zeroed` (the counters) and whether it is `poisoned` (0xFF: NaN in
    every f32) before each run of the step."""

    name: str
    bytes: int
    role: Role
    zeroed: bool = False
    poisoned: bool = False


@dataclass(frozen=True)
class Binding:
    """Where a tensor the caller feeds or reads back lives: buffer `buffer` at byte `offset`, its role, element
    (`f32`, `i32`, or `i8` for a Q8_0 weight, fed as f32 values) and shape."""

    buffer: int
    offset: int
    role: Role
    elem: str
    shape: tuple[int, ...]

    @property
    def length(self) -> int:
        return math.prod(self.shape)


@dataclass(frozen=True)
class Pointer:
    """A kernel's pointer argument: byte `offset` of buffer `buffer` of the step."""

    buffer: int
    offset: int


Argument = Pointer | None | np.int32 | np.float32
"""A kernel argument as a launch holds it: a pointer (None for null), an int or a float, typed as the kernel takes
it."""


@dataclass(frozen=True)
class Launch:
    """One kernel launch: it runs launch op `op` of the step (its index among the step's launch ops, of kind `kind`
    and op class `op_class`), kernel `kernel` on `grid` blocks of `block` threads with `args`."""

    op: int
    kind: str
    op_class: type[KernelOp]
    kernel: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    args: tuple[Argument, ...]

    def args_at(self, b: Sequence[int]) -> tuple:
        """The arguments over buffers at addresses `b`, as the kernel takes them: every pointer an `np.uint64`
        device address (0 for null)."""
        return tuple(
            np.uint64(b[a.buffer] + a.offset) if type(a) is Pointer else _NULL if a is None else a for a in self.args
        )

    def call(self, b: Sequence[int]) -> KernelCall:
        """This launch over buffers at addresses `b`."""
        return KernelCall(self.kernel, self.grid, self.block, self.args_at(b))


_NULL = np.uint64(0)


@dataclass(frozen=True)
class Lowered:
    """Step `step` in `numerics`, lowered: `buffers` (0 the arena, of `arena_bytes`, placed by `algorithm` against
    `lower_bound`; every array aligned to `align`), the tensors fed (`feeds`: inputs, weights, state) and read back
    (`results`: outputs, state) by name, and `launches` in order. A printed module's also carries the PTX of its
    kernels (`ptx`, by module name), which the device it is prepared on loads them from (not part of its equality:
    the same step, whether its PTX travels with it or is built where it runs)."""

    step: str
    numerics: Numerics
    align: int
    arena_bytes: int
    lower_bound: int
    algorithm: str
    buffers: tuple[Buffer, ...]
    feeds: Mapping[str, Binding]
    results: Mapping[str, Binding]
    launches: tuple[Launch, ...]
    ptx: Mapping[str, str] = field(default_factory=dict, compare=False)

    def kernels(self) -> tuple[str, ...]:
        """The kernels the step launches, each once, sorted."""
        return tuple(sorted({launch.kernel for launch in self.launches}))

    def calls(self, b: Sequence[int]) -> list[KernelCall]:
        """Every launch over buffers at addresses `b`, in order."""
        return [launch.call(b) for launch in self.launches]

    def zeroed(self, b: Sequence[int]) -> list[tuple[int, int]]:
        """The zeroed buffers (the counters: each launch that uses one leaves it zero) at addresses `b`, as (address,
        bytes)."""
        return [(b[k], buf.bytes) for k, buf in enumerate(self.buffers) if buf.zeroed and buf.bytes]

    def weight_bytes(self) -> int:
        """The bytes of the weights as the device holds them (f32, bf16, or Q8_0 words and a scale a block),
        unaligned: what a step streams from memory at least once."""
        return sum(weight_array_bytes(f.length, f.elem, align=1) for f in self.feeds.values() if f.role is Role.WEIGHT)
