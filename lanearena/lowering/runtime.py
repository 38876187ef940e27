"""What the emitted modules call, and how to run one: load a module from its source, feed it, and compare a placed
run with the reference run in which nothing shares bytes."""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Callable, Mapping

import numpy as np

from lanearena.analysis.plan import ArenaPlan
from lanearena.dialects.kinds import KERNEL_OPS
from lanearena.errors import UserError
from lanearena.lowering.quant import from_bf16, packed, quantize, to_bf16
from lanearena.model import ALIGN, Role, Step, Tensor, aligned

u64, i32, f32 = np.uint64, np.int32, np.float32

POISON = 0xFF
"""The byte every arena and computed buffer is filled with before a step: 0xFFFFFFFF is a NaN in f32, so a read of
bytes nobody wrote this step shows in the result."""

_DTYPES = {"f32": np.float32, "i32": np.int32}


def _upload(dev, addr: int, elem: str, shape: tuple[int, ...], value: np.ndarray, name: str, align: int) -> None:
    value = np.asarray(value)
    if value.size != int(np.prod(shape)):
        raise UserError(f"feed '{name}' has {value.size} values, the tensor {int(np.prod(shape))}")
    if elem == "i8":  # a Q8_0 weight, given as its f32 values
        dev.upload(addr, packed(quantize(value.astype(np.float32).reshape(-1), two_words=False), align))
    elif elem == "bf16":  # a bf16 weight, given as its f32 values (bf16 ones keep their bits)
        dev.upload(addr, to_bf16(value.reshape(-1)))
    else:
        dev.upload(addr, np.ascontiguousarray(value, _DTYPES[elem]).reshape(-1))


def prepare(
    dev, feeds: Mapping[str, np.ndarray], buffers, feed_table, align: int = ALIGN, bound: Mapping[str, int] = {}
) -> list[int]:
    """Allocates an emitted module's buffers on `dev` (poisoning the arena and computed buffers, zeroing
    counters) and uploads `feeds` (a Q8_0 weight's parts aligned to `align`, the arena's); the buffers' addresses,
    as the module's `launches` takes them. A feed named in `bound` is not allocated nor uploaded: it is already on
    `dev` at that address (weights and state a session keeps across steps), in a buffer of its own."""
    missing = sorted(set(feed_table) - set(feeds) - set(bound))
    if missing:
        raise UserError(f"missing feeds: {', '.join(missing)}")
    bound = {name: addr for name, addr in bound.items() if name in feed_table}
    given = {feed_table[name][0]: addr for name, addr in bound.items()}
    for name in bound:
        k, off = feed_table[name][:2]
        shared = [n for n, entry in feed_table.items() if entry[0] == k and n != name]
        if off or shared:
            raise UserError(f"feed '{name}' shares its buffer ({', '.join(shared)}): it cannot be bound alone")
    b = [given[k] if k in given else dev.alloc(nbytes, zero=zero) for k, (_, nbytes, zero, _) in enumerate(buffers)]
    poison(dev, buffers, b)  # a bound buffer holds a feed, never a computed tensor: none of them is poisoned
    for name, (k, off, _, elem, shape) in feed_table.items():
        if name not in bound:
            _upload(dev, b[k] + off, elem, shape, feeds[name], name, align)
    return b


def poison(dev, buffers, b: list[int]) -> None:
    """Fills an emitted module's arena and computed buffers (at addresses `b`) with `POISON`, so that nothing left
    there before (by no step, or by the last one) can be read through them unseen."""
    for k, (_, nbytes, _, poisoned) in enumerate(buffers):
        if poisoned and nbytes:
            dev.fill(b[k], nbytes, POISON)


def results(dev, b: list[int], result_table) -> dict[str, np.ndarray]:
    """The outputs and state an emitted module's step left in buffers `b`."""
    out = {}
    for name, (k, off, _, elem, shape) in result_table.items():
        out[name] = dev.download(b[k] + off, _DTYPES[elem], int(np.prod(shape))).reshape(shape)
    return out


def run_module(
    dev, feeds: Mapping[str, np.ndarray], buffers, feed_table, result_table, launches: Callable, align: int = ALIGN
) -> dict[str, np.ndarray]:
    """An emitted module's `run`: prepares its buffers on `dev`, runs `launches`, and reads back outputs and
    state."""
    b = prepare(dev, feeds, buffers, feed_table, align)
    launches(dev, b)
    return results(dev, b, result_table)


def load(source: str, name: str = "lanearena_step") -> types.ModuleType:
    """The module an emitted `source` defines."""
    module = types.ModuleType(name)
    exec(compile(source, f"<{name}>", "exec"), module.__dict__)
    return module


def unshared(plan: ArenaPlan) -> ArenaPlan:
    """`plan` with every array and scratch at bytes of its own: the reference that a placement must match."""
    offset, arrays, scratch = 0, [], []
    for a in plan.arrays:
        arrays.append(dataclasses.replace(a, offset=offset))
        offset += aligned(a.bytes, plan.align)
    for s in plan.scratch:
        scratch.append(dataclasses.replace(s, offset=offset))
        offset += aligned(s.bytes, plan.align)
    return dataclasses.replace(plan, bytes=offset, arrays=arrays, scratch=scratch, algorithm="unshared")


def _uses(step: Step) -> dict[str, list[tuple[str, dict[str, str], object]]]:
    """How each tensor is used: (operand name, the launch's tensors by operand name, launch) for every launch operand
    it fills."""
    uses: dict[str, list] = {}
    for launch in step.launches:
        k = KERNEL_OPS.get(launch.kind)
        if k is None:
            continue
        named = dict(zip(k.ins(), launch.ins, strict=False)) | dict(zip(k.WRITES, launch.outs, strict=False))
        for operand, tensor in named.items():
            uses.setdefault(tensor, []).append((operand, named, launch))
    return uses


def fed(step: Step) -> list[Tensor]:
    """The tensors `random_feeds` makes values for: every input, weight and state that is not a view."""
    return [t for t in step.tensors.values() if t.role in (Role.INPUT, Role.WEIGHT, Role.STATE) and t.view_of is None]


def random_feeds(step: Step, seed: int = 0, weights: bool = True) -> dict[str, np.ndarray]:
    """Random values for every input, weight and state of `step` (its weights left out where not `weights`: a run
    that streams them draws them itself), never zeros: token ids inside the embedding table, positions inside the
    cache (consecutive rows), weights scaled by their fan-in (a bf16 weight's drawn, then rounded to bf16 once: the
    values the device holds)."""
    rng = np.random.default_rng(seed)
    uses = _uses(step)
    feeds = {}
    for t in fed(step):
        if t.role is Role.WEIGHT and not weights:
            continue
        if t.elem == "i32":
            feeds[t.name] = _ints(step, t.name, t.length, uses.get(t.name, []), rng)
        elif t.role is Role.WEIGHT and len(t.shape) == 1:
            feeds[t.name] = (1 + 0.1 * rng.standard_normal(t.shape)).astype(np.float32)
        elif t.role is Role.WEIGHT:
            feeds[t.name] = (rng.standard_normal(t.shape) / np.sqrt(t.shape[-1])).astype(np.float32)
            if t.elem == "bf16":
                feeds[t.name] = from_bf16(to_bf16(feeds[t.name])).reshape(t.shape)
        else:
            feeds[t.name] = rng.standard_normal(t.shape).astype(np.float32)
    return feeds


def _ints(step: Step, name: str, n: int, uses: list, rng: np.random.Generator) -> np.ndarray:
    positions = [launch for operand, _, launch in uses if operand == "pos"]
    if positions:  # inside the caches of every launch that takes them (the first, a rope, has none)
        caches = [step.tensors[c] for p in positions for c in (*p.ins, *p.outs) if step.tensors[c].role is Role.STATE]
        length = min((c.shape[0] for c in caches), default=n)
        start = rng.integers(0, max(length - n, 0) + 1)
        return (start + np.arange(n)).astype(np.int32)
    for operand, named, _ in uses:
        if operand == "ids" and "table" in named:  # a gather's: inside its table
            return rng.integers(0, step.tensors[named["table"]].shape[0], n).astype(np.int32)
    return rng.integers(0, 16, n).astype(np.int32)


def max_abs_err(a: Mapping[str, np.ndarray], b: Mapping[str, np.ndarray]) -> float:
    """The largest difference between two runs' results (inf where one holds a NaN the other does not)."""
    worst = 0.0
    for name in a:
        x, y = np.asarray(a[name], np.float64), np.asarray(b[name], np.float64)
        if (np.isnan(x).any() or np.isnan(y).any()) and not np.array_equal(np.isnan(x), np.isnan(y)):
            return float("inf")
        diff = np.abs(np.nan_to_num(x) - np.nan_to_num(y))
        worst = max(worst, float(diff.max(initial=0.0)))
    return worst
