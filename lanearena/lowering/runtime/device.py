"""A CPU stand-in for a CUDA device: memory in a virtual address space, and launches that run each kernel's numpy
twin over it."""

from __future__ import annotations

import bisect
from collections.abc import Mapping

import numpy as np

from lanearena.lowering import kernels
from lanearena.lowering.kernels import source
from lanearena.lowering.kernels.base import GRID_LIMITS
from lanearena.model import ALIGN, aligned

ARGUMENT_TYPES = {np.uint64, np.int32, np.float32}
"""The types a kernel's arguments are passed as: a pointer, an int, a float."""


class DeviceError(Exception):
    """An access outside any allocation, a misaligned one, or a launch the kernel cannot take."""


class NumpyDevice:
    """A device whose memory is numpy buffers and whose kernels are the numpy twins of the CUDA kernels.

    The interface every device of the lowering has (a PyCUDA one too):

    - `alloc(nbytes, zero=False) -> int`: a device address. Allocations are `ALIGN`-aligned, never overlap and
      never start at 0. Here memory not asked to be zeroed is poisoned with 0xFF bytes (NaN in every f32), so a
      read of what no one wrote shows.
    - `upload(addr, array)`: copies the bytes of an ndarray to `addr`.
    - `download(addr, dtype, count) -> ndarray`: a copy of `count` values of `dtype` at `addr`.
    - `fill(addr, nbytes, byte)`: sets `nbytes` bytes at `addr` to `byte` (0xFF poisons with NaN).
    - `launch(kernel, grid, block, args)`: runs kernel `kernel` (one a CUDA source declares, or a variant of it) on
      a grid of `grid` blocks of `block` threads, both 3-tuples, with `args` as the kernel takes them: a pointer as
      an `np.uint64` address (0 for null), an int as `np.int32`, a float as `np.float32`.

    Here only, `view(addr, dtype, count)` is a writable numpy view of device memory (what the twins work on).
    Every access is checked: one that runs outside its allocation, or is not aligned to its element, raises
    `DeviceError` naming the address and the allocation. A launch's arguments are checked against the kernel's
    parameters in its CUDA source."""

    BASE = 1 << 32
    """The first allocation's address: far from 0, so a null or small integer taken for a pointer fails."""

    def __init__(self) -> None:
        self._starts: list[int] = []
        self._buffers: list[np.ndarray] = []
        self._next = self.BASE

    def alloc(self, nbytes: int, zero: bool = False) -> int:
        if nbytes < 0:
            raise DeviceError(f"alloc of {nbytes} bytes")
        addr = self._next
        self._starts.append(addr)
        self._buffers.append(np.full(nbytes, 0 if zero else 0xFF, np.uint8))
        # An aligned gap after every allocation keeps a one-past-the-end address inside no allocation.
        self._next = aligned(addr + nbytes + 1, ALIGN)
        return addr

    def _bytes(self, addr: int, nbytes: int) -> np.ndarray:
        """The `nbytes` bytes at `addr`, as a view of the allocation that holds all of them."""
        i = bisect.bisect_right(self._starts, addr) - 1
        if i < 0:
            raise DeviceError(f"address {addr:#x} is in no allocation")
        start, buf = self._starts[i], self._buffers[i]
        if addr + nbytes > start + buf.size:
            raise DeviceError(
                f"{nbytes} bytes at {addr:#x} run outside allocation {start:#x} of {buf.size} bytes "
                f"(up to {start + buf.size:#x})"
            )
        return buf[addr - start : addr - start + nbytes]

    def view(self, addr: int, dtype, count: int) -> np.ndarray:
        addr, dtype = int(addr), np.dtype(dtype)
        if addr % dtype.itemsize:
            raise DeviceError(f"address {addr:#x} is not aligned to {dtype} ({dtype.itemsize} bytes)")
        return self._bytes(addr, int(count) * dtype.itemsize).view(dtype)

    def upload(self, addr: int, array: np.ndarray) -> None:
        raw = np.ascontiguousarray(array).reshape(-1).view(np.uint8)
        self._bytes(int(addr), raw.size)[:] = raw

    def download(self, addr: int, dtype, count: int) -> np.ndarray:
        return self.view(addr, dtype, count).copy()

    def fill(self, addr: int, nbytes: int, byte: int) -> None:
        self._bytes(int(addr), int(nbytes))[:] = byte

    def carry(self, modules: Mapping[str, str]) -> None:
        """PTX a printed step carries: not read here, where each kernel runs as its numpy twin."""

    def launch(self, kernel: str, grid: tuple, block: tuple, args: tuple) -> None:
        twin = kernels.twin_of(kernel)
        if twin is None:
            raise DeviceError(f"no kernel '{kernel}'")
        _check_launch(kernel, grid, block, args)
        with np.errstate(all="ignore"):  # as a GPU computes: an overflow makes an infinity, 0/0 a NaN, and no word
            twin(self, tuple(grid), tuple(block), *args)


def _check_launch(kernel: str, grid: tuple, block: tuple, args: tuple) -> None:
    """Raises `DeviceError` where CUDA would refuse the launch or PyCUDA would pass the arguments otherwise."""
    if len(grid) != 3 or len(block) != 3:
        raise DeviceError(f"{kernel}: grid {grid} and block {block} must both have three dimensions")
    if any(not 1 <= g <= m for g, m in zip(grid, GRID_LIMITS, strict=True)) or any(b < 1 for b in block):
        raise DeviceError(f"{kernel}: grid {grid} or block {block} out of range")
    if np.prod(block) > 1024:
        raise DeviceError(f"{kernel}: block {block} has more than 1024 threads")
    got = tuple(type(a) for a in args)
    if not source.declared(kernel):  # a kind's own kernel without its source: its launcher's KernelCall types it
        if not set(got) <= ARGUMENT_TYPES:
            raise DeviceError(f"{kernel} takes pointers, ints and floats, was given ({_names(got)})")
        return
    want = source.signature(kernel)
    if got != want:
        raise DeviceError(f"{kernel} takes ({_names(want)}), was given ({_names(got)})")


def _names(types: tuple[type, ...]) -> str:
    return ", ".join(t.__name__ for t in types)
