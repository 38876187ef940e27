"""What the kernels' numpy twins share: operands read from a device as the kernels address them, the dot products
the kernels compute (block by block, integer where both sides are int8), and arrival counters.

A twin runs its grid a block at a time (or a wave of blocks that touch disjoint bytes, such as a tile's blocks of
every row), reading device memory when the block runs and writing what it computes before the next one reads: so,
as on the GPU, bytes that two live arrays share corrupt the result."""

from __future__ import annotations

import contextvars
import functools
from collections.abc import Callable
from typing import TypeVar

import numpy as np

from lanearena.lowering.kernels.base import THREADS, kernel
from lanearena.lowering.runtime.quant import Quantized, from_bf16
from lanearena.model import QBLOCK

F32 = np.float32
I32 = np.int32
I8 = np.int8


def require(ok: bool, message: str) -> None:
    """Asserts what a kernel takes for granted, even under `python -O`."""
    if not ok:
        raise AssertionError(message)


def check_block(kernel: str, block: tuple) -> None:
    require(block == THREADS, f"{kernel} runs blocks of {THREADS} threads, was launched with {block}")


def activation(dev, ptrs: tuple, rows: range, k: int, k0: int, k1: int) -> np.ndarray | Quantized:
    """Values [k0, k1) of rows `rows` (rows of `k`) of the activation at `ptrs` (x, or words, low words and scales):
    f32 values, or their quantized blocks (k and k0 then whole blocks), a row a row."""
    x, hi, lo, s = (int(p) for p in ptrs)
    first, n = rows.start * k, len(rows) * k

    def read(addr: int, dtype, per: int = 1) -> np.ndarray:
        v = dev.download(addr + first // per * np.dtype(dtype).itemsize, dtype, n // per).reshape(len(rows), -1)
        return v[:, k0 // per : k1 // per]

    if x:
        return read(x, F32)
    _words_aligned(hi + first, lo + first if lo else 0)
    return Quantized(read(hi, I8), read(lo, I8) if lo else None, read(s, F32, QBLOCK))


class Staged:
    """An activation a prologue made before the product reads it (fused_products.cu's `staged_row`): f32 rows, or
    their quantized blocks ([rows, k] words, [rows, k / QBLOCK] scales)."""

    def __init__(self, rows: np.ndarray | Quantized):
        self.rows = rows

    def part(self, k0: int, k1: int) -> np.ndarray | Quantized:
        """Values [k0, k1) of every row (whole blocks where quantized), as `activation` reads them."""
        if isinstance(self.rows, np.ndarray):
            return self.rows[:, k0:k1]
        hi, lo, scales = self.rows
        return Quantized(hi[:, k0:k1], lo[:, k0:k1] if lo is not None else None, scales[:, k0 // QBLOCK : k1 // QBLOCK])


def _words_aligned(*addrs: int) -> None:
    """int8 words are read four at a time (`__dp4a`): their rows must start 4-byte aligned."""
    require(all(a % 4 == 0 for a in addrs), f"int8 words at {', '.join(f'{a:#x}' for a in addrs)} not 4-aligned")


_WEIGHTS = contextvars.ContextVar("weights", default="f32")
"""The element of the weight matrices the running twin reads where they are not Q8_0: f32, or bf16 in the twin of a
kernel's `_bf16` instantiation (`weighted`)."""

T = TypeVar("T", bound=Callable[..., None])


def weighted(twin: T) -> T:
    """Makes the decorated function the numpy twin of the CUDA kernel of its name, a template over its weights'
    element (common.cuh's `Wrow<W>`), and of that kernel's bf16 instantiation `<name>_bf16`: the same twin, reading
    its weights (`weight`) as bf16."""

    @functools.wraps(twin)
    def over_bf16(*args) -> None:
        token = _WEIGHTS.set("bf16")
        try:
            twin(*args)
        finally:
            _WEIGHTS.reset(token)

    over_bf16.__name__ = over_bf16.__qualname__ = f"{twin.__name__}_bf16"
    kernel(over_bf16)
    return kernel(twin)


def weight(dev, w: int, ws: int, row0: int, rows: int, k: int, k0: int, k1: int) -> np.ndarray | Quantized:
    """Values [k0, k1) of rows [row0, row0 + rows) of a weight of rows of `k`: f32 (or, where the twin runs a
    kernel's `_bf16` instantiation, bf16 widened), or (ws not null) Q8_0 words and scales."""
    if not ws:
        if _WEIGHTS.get() == "bf16":
            return from_bf16(dev.view(w + row0 * k * 2, np.uint16, rows * k).reshape(rows, k)[:, k0:k1])
        return dev.view(w + row0 * k * 4, F32, rows * k).reshape(rows, k)[:, k0:k1]
    _words_aligned(w + row0 * k)
    words = dev.view(w + row0 * k, I8, rows * k).reshape(rows, k)[:, k0:k1]
    scales = dev.view(ws + row0 * k // QBLOCK * 4, F32, rows * k // QBLOCK).reshape(rows, -1)
    return Quantized(words, None, scales[:, k0 // QBLOCK : k1 // QBLOCK])


def _block_dot(a: np.ndarray, w: np.ndarray) -> np.ndarray:
    """[rows, n, blocks]: each row of `a` dotted with each row of `w`, a block of QBLOCK values at a time, in f32
    (exact for int8 words: every sum is below 2^24)."""
    r, n = a.shape[0], w.shape[0]
    ab = a.astype(F32).reshape(r, -1, QBLOCK).transpose(1, 0, 2)
    wb = w.astype(F32).reshape(n, -1, QBLOCK).transpose(1, 2, 0)
    return np.matmul(ab, wb).transpose(1, 2, 0)


def dot(a: np.ndarray | Quantized, w: np.ndarray | Quantized) -> np.ndarray:
    """[rows, n]: each activation row's dot with each weight row, as `lane_dot` computes it: int8 by Q8_0 an integer
    dot a block times both scales, a quantized side's block sums times its scales."""
    if isinstance(w, np.ndarray) and isinstance(a, np.ndarray):
        return a @ w.T
    words = w.hi if isinstance(w, Quantized) else w
    if isinstance(a, Quantized):
        d = _block_dot(a.hi, words)
        if a.lo is not None:
            d = d + _block_dot(a.lo, words) / F32(127)
        scale = a.scales[:, None, :] * w.scales[None] if isinstance(w, Quantized) else a.scales[:, None, :]
    else:
        assert isinstance(w, Quantized)  # both plain returned above
        d, scale = _block_dot(a, words), w.scales[None]
    return (scale * d).sum(axis=2, dtype=F32)


def sum_in_order(parts: np.ndarray) -> np.ndarray:
    """The sum of `parts` along its first axis, first to last, as a kernel's last block adds them."""
    total = parts[0].copy()
    for p in parts[1:]:
        total += p
    return total


def silu(a: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        return a / (F32(1) + np.exp(-a))


class Counters:
    """A launch's arrival counts in device memory: zero before the launch (asserted) and left zero, as the kernel's
    last block to arrive at each leaves it."""

    def __init__(self, dev, kernel: str, addr: int, count: int):
        self.counts = dev.view(int(addr), I32, count)
        require(not self.counts.any(), f"{kernel}: counter at {int(addr):#x} is not zero before the launch")

    def arrive(self, at: slice, arrivals: int, by: int = 1) -> bool:
        """Counts a block's arrival (or `by` blocks' together) at each counter in `at`; whether it was the last of
        `arrivals` (then, as that block does, resets the counters)."""
        c = self.counts[at]
        c += by
        if (c == arrivals).all():
            c[...] = 0
            return True
        if not (c < arrivals).all():  # (the message only where it fails: printing the counts is most of the time)
            require(False, f"counters {c} passed {arrivals} arrivals")
        return False
