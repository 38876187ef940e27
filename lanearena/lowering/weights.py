"""Weights put on a device one tensor at a time: each made in f32 by a source (read from a checkpoint, or drawn at
random), uploaded in the step's numerics (a Q8_0 weight quantized, a bf16 one rounded, a slice at a time), and let go
before the next is made, so a run holds the device's memory and one tensor beside."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

import numpy as np

from lanearena.lowering.quant import quantize, to_bf16
from lanearena.model import ALIGN, QBLOCK, aligned

SLICE = 1 << 22
"""Values quantized or rounded at a time: a few MB of temporaries whatever the weight's size."""


class WeightSource(Protocol):
    """Where a step's weights come from: `check` raises before anything is uploaded if any weight cannot be made (a
    missing or misshapen tensor), `values` makes one weight's f32 values."""

    def check(self, weights: dict[str, tuple[int, ...]]) -> None: ...

    def values(self, name: str, shape: tuple[int, ...]) -> np.ndarray: ...


def upload(dev, addr: int, elem: str, values: np.ndarray, align: int = ALIGN) -> None:
    """`values` (f32) written at `addr` as a weight of element `elem`: f32 as they are; bf16 rounded to nearest even
    a slice at a time (values a bf16 checkpoint held keep their bits: they are rounded never again); i8 as a Q8_0
    array (its words, then a scale a block at the next `align` boundary), quantized a slice at a time."""
    flat = values.reshape(-1)
    if elem == "bf16":
        for at in range(0, flat.size, SLICE):
            dev.upload(addr + at * 2, to_bf16(flat[at : at + SLICE]))
        return
    if elem != "i8":
        dev.upload(addr, np.ascontiguousarray(flat, np.float32))
        return
    scales = addr + aligned(flat.size, align)
    step = SLICE // QBLOCK * QBLOCK
    for at in range(0, flat.size, step):
        q = quantize(flat[at : at + step], two_words=False)
        dev.upload(addr + at, q.hi)
        dev.upload(scales + at // QBLOCK * 4, q.scales)


class RandomWeights:
    """Weights drawn at random as `runtime.random_feeds` draws them (gains near 1, matrices scaled by their fan-in),
    from one generator of `seed` in the order the names are asked for, each drawn a slice at a time so that no
    float64 copy of a whole tensor is made. Drawn in f32: a bf16 weight is rounded once, as `upload` puts it on the
    device."""

    def __init__(self, seed: int = 0):
        self.rng = np.random.default_rng(seed)

    def check(self, weights: dict[str, tuple[int, ...]]) -> None:
        return None

    def values(self, name: str, shape: tuple[int, ...]) -> np.ndarray:
        out = np.empty(shape, np.float32)
        flat = out.reshape(-1)
        for at in range(0, flat.size, SLICE):
            part = self.rng.standard_normal(min(SLICE, flat.size - at))
            flat[at : at + part.size] = 1 + 0.1 * part if len(shape) == 1 else part / np.sqrt(shape[-1])
        return out


Kept = dict[str, tuple[str, str, tuple[int, ...], int]]
"""Tensors kept on a device across steps and runs, by name: role, element, shape, and the bytes of the buffer."""


def kept(modules: Iterable, roles: tuple[str, ...]) -> Kept:
    """The tensors of `roles` of emitted `modules` (their FEEDS and BUFFERS tables), each once; an AssertionError
    where two modules disagree on one."""
    out: Kept = {}
    for m in modules:
        for name, (k, _, role, elem, shape) in m.FEEDS.items():
            if role in roles:
                what = (role, elem, tuple(shape), m.BUFFERS[k][1])
                if out.setdefault(name, what) != what:
                    raise AssertionError(f"{name}: the steps disagree on it ({out[name]} and {what})")
    return out


def put(dev, tensors: Kept, source: WeightSource, align: int = ALIGN) -> dict[str, int]:
    """A buffer on `dev` for each of `tensors` (zeroed), and the weights among them made by `source` and uploaded
    one at a time, after `source` has checked them all; the buffers' addresses by name."""
    weights = {name: (elem, shape) for name, (role, elem, shape, _) in tensors.items() if role == "weight"}
    source.check({name: shape for name, (_, shape) in weights.items()})
    addrs = {name: dev.alloc(nbytes, zero=True) for name, (_, _, _, nbytes) in tensors.items()}
    for name, (elem, shape) in weights.items():
        upload(dev, addrs[name], elem, source.values(name, shape), align)
    return addrs
