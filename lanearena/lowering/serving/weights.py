"""Weights put on a device one tensor at a time: each made in f32 by a source (read from a checkpoint, or drawn at
random), uploaded in the step's numerics (a Q8_0 weight quantized, a bf16 one rounded, a slice at a time), and let go
before the next is made, so a run holds the device's memory and one tensor beside."""

from __future__ import annotations

import functools
import zlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from lanearena.errors import Overflow
from lanearena.lowering.codegen.lowered import Lowered
from lanearena.lowering.runtime.quant import quantize, to_bf16
from lanearena.model import ALIGN, QBLOCK, Role, aligned

SLICE = 1 << 22
"""Values quantized or rounded at a time: a few MB of temporaries whatever the weight's size."""


class WeightSource(Protocol):
    """Where a step's weights come from: `check` raises before anything is uploaded if any weight cannot be made (a
    missing or misshapen tensor), `values` makes one weight's f32 values, `where` says what holds one of its values
    (a checkpoint's file and tensor), for the errors that name it."""

    def check(self, weights: dict[str, tuple[int, ...]]) -> None: ...

    def values(self, name: str, shape: tuple[int, ...]) -> np.ndarray: ...

    def where(self, name: str, shape: tuple[int, ...], index: tuple[int, ...]) -> str: ...


def upload(
    dev,
    addr: int,
    elem: str,
    values: np.ndarray,
    align: int = ALIGN,
    name: str = "",
    where: Callable[[tuple[int, ...]], str] | None = None,
) -> None:
    """`values` (f32) of weight `name` written at `addr` as a weight of element `elem`: f32 as they are; bf16
    rounded to nearest even a slice at a time (values a bf16 checkpoint held keep their bits: they are rounded never
    again; a finite value that rounds to infinity, past bf16's largest, is refused, naming what holds it: `where`
    of its index, a checkpoint's file and tensor); i8 as a Q8_0 array (its words, then a scale a block at the next
    `align` boundary), quantized a slice at a time."""
    flat = values.reshape(-1)
    if elem == "bf16":
        for at in range(0, flat.size, SLICE):
            part = flat[at : at + SLICE]
            words = to_bf16(part)
            past = np.flatnonzero((words & 0x7FFF) == 0x7F80)  # an infinity: the values are finite (checked)
            if past.size and np.isfinite(part[past[0]]):
                index = tuple(int(i) for i in np.unravel_index(at + int(past[0]), values.shape))
                held = f"{where(index)}, for step weight '{name}'," if where is not None else f"weight '{name}'"
                raise Overflow(
                    f"{held} holds {part[past[0]]:.7g} at {list(index)}, which rounds to infinity in bf16 (its "
                    "largest finite value is 3.389531e+38)"
                )
            dev.upload(addr + at * 2, words)
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


JOINED = {"wqkv": ("wq", "wk", "wv"), "bqkv": ("bq", "bk", "bv")}
"""The weights a one-row decode step joins (q, k and v made by one projection) and the parts a step of several rows
projects each on its own, in row order: a joined weight is its parts one above the other."""


class RandomWeights:
    """Weights drawn at random as `execute.random_feeds` draws them (gains near 1, matrices scaled by their fan-in),
    each from a generator of `seed` and its own name (so a weight's values do not depend on which weights were
    drawn before, nor on which step asks), drawn a slice at a time so that no float64 copy of a whole tensor is
    made. A joined weight (`JOINED`) is its parts drawn by their names, where the part widths are known (`widths`:
    q's and k's, as `DecoderConfig.q_dim` and `kv_dim`): the one-row decode step then reads the values the steps of
    several rows read. Drawn in f32: a bf16 weight is rounded once, as `upload` puts it on the device."""

    def __init__(self, seed: int = 0, widths: tuple[int, int] | None = None):
        self.seed, self.widths = seed, widths

    def check(self, weights: dict[str, tuple[int, ...]]) -> None:
        return None

    def where(self, name: str, shape: tuple[int, ...], index: tuple[int, ...]) -> str:
        return f"weight '{name}', drawn at random (seed {self.seed})"

    def joined(self, q: int, kv: int) -> RandomWeights:
        """These weights, a joined weight drawn as its parts of widths `q`, `kv` and `kv`."""
        return RandomWeights(self.seed, (q, kv))

    def values(self, name: str, shape: tuple[int, ...]) -> np.ndarray:
        prefix, _, own = name.rpartition(".")
        parts = JOINED.get(own)
        if parts is not None and self.widths is not None:
            q, kv = self.widths
            if shape[0] == q + 2 * kv:
                rest = tuple(shape[1:])
                named = [
                    (f"{prefix}.{part}" if prefix else part, n) for part, n in zip(parts, (q, kv, kv), strict=True)
                ]
                return np.concatenate([self._drawn(part, (n, *rest)) for part, n in named])
        return self._drawn(name, shape)

    def _drawn(self, name: str, shape: tuple[int, ...]) -> np.ndarray:
        rng = np.random.default_rng([self.seed, zlib.crc32(name.encode())])
        out = np.empty(shape, np.float32)
        flat = out.reshape(-1)
        for at in range(0, flat.size, SLICE):
            part = rng.standard_normal(min(SLICE, flat.size - at))
            flat[at : at + part.size] = 1 + 0.1 * part if len(shape) == 1 else part / np.sqrt(shape[-1])
        return out


KEPT = (Role.WEIGHT, Role.STATE)
"""The roles of the tensors kept on a device across steps and runs: a step's weights and state."""


@dataclass(frozen=True)
class Held:
    """A tensor kept on a device across steps and runs: its role, element, shape, and the bytes of its buffer."""

    role: Role
    elem: str
    shape: tuple[int, ...]
    bytes: int


def kept(steps: Iterable[Lowered], roles: tuple[Role, ...] = KEPT) -> dict[str, Held]:
    """The tensors of `roles` fed to the lowered `steps`, each once, by name; an AssertionError where two steps
    disagree on one."""
    out: dict[str, Held] = {}
    for s in steps:
        for name, f in s.feeds.items():
            if f.role in roles:
                what = Held(f.role, f.elem, f.shape, s.buffers[f.buffer].bytes)
                if out.setdefault(name, what) != what:
                    raise AssertionError(f"{name}: the steps disagree on it ({out[name]} and {what})")
    return out


def put(
    dev, tensors: Mapping[str, Held], source: WeightSource, align: int = ALIGN, held: Mapping[str, Held] = {}
) -> dict[str, int]:
    """A buffer on `dev` for each of `tensors` (zeroed), and the weights among them made by `source` and uploaded
    one at a time, after `source` has checked them all, with those `held` (on `dev` already, put by an earlier
    call): the buffers' addresses by name."""
    weights = {name: t for name, t in tensors.items() if t.role is Role.WEIGHT}
    every = {name: t for name, t in {**held, **tensors}.items() if t.role is Role.WEIGHT}
    source.check({name: t.shape for name, t in every.items()})
    addrs = {name: dev.alloc(t.bytes, zero=True) for name, t in tensors.items()}
    for name, t in weights.items():
        where = functools.partial(source.where, name, t.shape)
        upload(dev, addrs[name], t.elem, source.values(name, t.shape), align, name, where)
    return addrs
