"""Block quantization on the host, bit for bit as the kernels do it: a scale a block of `QBLOCK` values, int8 words,
and under two words a low word a value. Used to pack weights and inputs, and by the kernels' numpy twins. Also bf16,
a weight's values as a bf16 checkpoint stores them: an f32's high 16 bits."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from lanearena.model import ALIGN, QBLOCK, Form, array_bytes, quant_parts


class Quantized(NamedTuple):
    """Values in blocks: `hi` the int8 words, `lo` the low words (None in one word), `scales` one f32 a block."""

    hi: np.ndarray
    lo: np.ndarray | None
    scales: np.ndarray


_LIMIT = np.float32(127)


def quantize(x: np.ndarray, two_words: bool) -> Quantized:
    """`x` (f32, a whole number of blocks) quantized: s = max|x|/127 a block, hi = clamp(rint(x/s)), and under two
    words lo = clamp(rint((x/s - hi)*127)); a block of zeros (s = 0) has all words 0."""
    blocks = np.asarray(x, np.float32).reshape(-1, QBLOCK)
    scales = np.abs(blocks).max(axis=1) / _LIMIT
    # Division, not a reciprocal's product: the kernels divide, and x/s rounds differently from x*(1/s).
    t = blocks / np.where(scales == 0, np.float32(1), scales)[:, None]
    hi = np.clip(np.rint(t), -_LIMIT, _LIMIT)
    zero = (scales == 0)[:, None]
    words = np.where(zero, 0, hi).astype(np.int8).reshape(-1)
    lo = None
    if two_words:
        low = np.clip(np.rint((t - hi) * _LIMIT), -_LIMIT, _LIMIT)
        lo = np.where(zero, 0, low).astype(np.int8).reshape(-1)
    return Quantized(words, lo, scales.astype(np.float32))


def dequantize(q: Quantized) -> np.ndarray:
    """The f32 values `q` stands for: s*hi, or s*(hi + lo/127) under two words."""
    v = q.hi.astype(np.float32).reshape(-1, QBLOCK)
    if q.lo is not None:
        v = v + q.lo.astype(np.float32).reshape(-1, QBLOCK) / _LIMIT
    return (v * q.scales[:, None]).reshape(-1)


def packed(q: Quantized, align: int = ALIGN) -> np.ndarray:
    """`q` as the bytes of a quantized array (`array_bytes`): words, low words, scales, each part aligned to
    `align`."""
    n = q.hi.size
    two = q.lo is not None
    out = np.zeros(array_bytes(n, Form.QUANT, two, align), np.uint8)
    words, low, scales = quant_parts(0, n, two, align)
    out[words : words + n] = q.hi.view(np.uint8)
    if q.lo is not None:
        assert low is not None  # quant_parts places low words exactly when there are two
        out[low : low + n] = q.lo.view(np.uint8)
    out[scales : scales + q.scales.nbytes] = q.scales.view(np.uint8)
    return out


def unpacked(raw: np.ndarray, n: int, two_words: bool, align: int = ALIGN) -> Quantized:
    """The quantized array of `n` values held in bytes `raw` (as `packed` writes them)."""
    words, low, scales = quant_parts(0, n, two_words, align)
    lo = raw[low : low + n].view(np.int8).copy() if low is not None else None
    sc = raw[scales : scales + n // QBLOCK * 4].view(np.float32).copy()
    return Quantized(raw[words : words + n].view(np.int8).copy(), lo, sc)


def to_bf16(x: np.ndarray) -> np.ndarray:
    """`x` (f32) rounded to bf16, to nearest with ties to even, as 16-bit words (uint16): a value bf16 holds exactly
    (a bf16 checkpoint's, widened) keeps its bits; a NaN stays a NaN (quiet), an infinity an infinity."""
    bits = np.ascontiguousarray(x, np.float32).view(np.uint32)
    rounded = (bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))) >> np.uint32(16)
    nan = (bits & np.uint32(0x7FFFFFFF)) > np.uint32(0x7F800000)
    return np.where(nan, (bits >> np.uint32(16)) | np.uint32(0x40), rounded).astype(np.uint16)


def from_bf16(words: np.ndarray) -> np.ndarray:
    """bf16 words (uint16) widened to f32, exactly: each is the high half of its f32."""
    return (np.asarray(words, np.uint16).astype(np.uint32) << np.uint32(16)).view(np.float32)
