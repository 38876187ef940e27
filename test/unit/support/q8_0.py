"""The tests' own Q8_0, apart from the package (it imports nothing from `lanearena`): GGML's blocks of QBLOCK = 32
values, d = max|x| / 127 and q = round(x / d) clamped to [-127, 127] (a block of zeros all 0); lanearena's second
word l = round((x / d - q) * 127) under int8x2, the block then standing for d * (q + l / 127). docs/kernels.md fixes
the rounding (half to even) and the arithmetic (d and x / d in f32), so the words are the kernels' for the same f32
values. Its layout in memory is docs/kernels.md's too: the int8 words, the low words under two words, then an f32
scale a block, each part starting 256-aligned (a Q8_0 weight: words, then scales)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

QBLOCK = 32
"""Values per scale."""

LIMIT = 127
"""The largest word."""

ALIGN = 256
"""Where each part of a quantized array starts: a multiple of it."""


class Blocks(NamedTuple):
    """Quantized values: the words, the low words (None in one word), a scale a block."""

    hi: np.ndarray
    lo: np.ndarray | None
    scales: np.ndarray


def encode(x: np.ndarray, two_words: bool) -> Blocks:
    """`x` (a whole number of blocks) in Q8_0, with low words under two words."""
    blocks = np.asarray(x, np.float64).astype(np.float32).reshape(-1, QBLOCK)
    d = np.abs(blocks).max(axis=1) / np.float32(LIMIT)  # in f32
    with np.errstate(invalid="ignore", divide="ignore"):
        t = np.where(d[:, None] == 0, np.float32(0), blocks / d[:, None])  # a division in f32
    q = np.clip(np.rint(t), -LIMIT, LIMIT)
    lo = np.clip(np.rint((t - q) * np.float32(LIMIT)), -LIMIT, LIMIT).astype(np.int8).reshape(-1) if two_words else None
    return Blocks(q.astype(np.int8).reshape(-1), lo, d.astype(np.float32))


def decode(b: Blocks) -> np.ndarray:
    """The float64 values blocks stand for: d * q, or d * (q + l / 127)."""
    words = b.hi.astype(np.float64)
    if b.lo is not None:
        words = words + b.lo.astype(np.float64) / LIMIT
    return (words.reshape(-1, QBLOCK) * b.scales.astype(np.float64)[:, None]).reshape(-1)


def quantized(x: np.ndarray, two_words: bool) -> np.ndarray:
    """The values `x` stands for once quantized."""
    return decode(encode(x, two_words))


def tie_distance(x: np.ndarray) -> float:
    """How close, in quanta, `x`'s nearest value comes to a rounding tie of its one word: the least distance of a
    value's x / d (in f32, as `encode` divides) from a half (1.0 for a block of zeros, which has no tie)."""
    blocks = np.asarray(x, np.float64).astype(np.float32).reshape(-1, QBLOCK)
    d = np.abs(blocks).max(axis=1) / np.float32(LIMIT)
    with np.errstate(invalid="ignore", divide="ignore"):
        t = np.where(d[:, None] == 0, np.float32(0), blocks / d[:, None]).astype(np.float64)
    return float(np.nanmin(np.abs(t - np.floor(t) - 0.5), initial=1.0))


def _aligned(n: int) -> int:
    return -(-n // ALIGN) * ALIGN


def parts(n: int, two_words: bool) -> tuple[int, int | None, int]:
    """Byte offsets of the words, the low words (None in one word) and the scales of `n` quantized values."""
    low = _aligned(n) if two_words else None
    return 0, low, _aligned(n) * (2 if two_words else 1)


def nbytes(n: int, two_words: bool) -> int:
    """The bytes of `n` quantized values laid out in `parts`."""
    return parts(n, two_words)[2] + _aligned(n // QBLOCK * 4)


def pack(b: Blocks) -> np.ndarray:
    """Blocks as the bytes of a quantized array."""
    n, two = b.hi.size, b.lo is not None
    out = np.zeros(nbytes(n, two), np.uint8)
    words, low, scales = parts(n, two)
    out[words : words + n] = b.hi.view(np.uint8)
    if b.lo is not None and low is not None:
        out[low : low + n] = b.lo.view(np.uint8)
    out[scales : scales + b.scales.nbytes] = b.scales.view(np.uint8)
    return out


def unpack(raw: np.ndarray, n: int, two_words: bool) -> Blocks:
    """The blocks of `n` values in bytes `raw` (laid out as `pack` lays them)."""
    words, low, scales = parts(n, two_words)
    lo = raw[low : low + n].view(np.int8).copy() if low is not None else None
    return Blocks(
        raw[words : words + n].view(np.int8).copy(), lo, raw[scales : scales + n // QBLOCK * 4].view(np.float32).copy()
    )
