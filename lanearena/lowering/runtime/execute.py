"""How a `Lowered` step runs on a device (`prepare` its buffers and feeds, `launch`, read its `results`), what the
printed modules call, how one is loaded from its source, and the feeds and comparison of a placed run with the
reference run in which nothing shares bytes."""

from __future__ import annotations

import types
from collections.abc import Mapping

import numpy as np

from lanearena.dialects.kinds import KERNEL_OPS
from lanearena.errors import UserError
from lanearena.lowering.codegen.lowered import Binding, Lowered
from lanearena.lowering.codegen.placed import Placed
from lanearena.lowering.runtime.quant import from_bf16, packed, quantize, to_bf16
from lanearena.model import Role, Step, Tensor

u64, i32, f32 = np.uint64, np.int32, np.float32

POISON = 0xFF
"""The byte every arena and computed buffer is filled with before a step: 0xFFFFFFFF is a NaN in f32, so a read of
bytes nobody wrote this step shows in the result."""

_DTYPES = {"f32": np.float32, "i32": np.int32}


def _upload(dev, addr: int, binding: Binding, value: np.ndarray, name: str, align: int) -> None:
    value = np.asarray(value)
    if value.size != binding.length:
        raise UserError(f"feed '{name}' has {value.size} values, the tensor {binding.length}")
    if binding.elem == "i8":  # a Q8_0 weight, given as its f32 values
        dev.upload(addr, packed(quantize(value.astype(np.float32).reshape(-1), two_words=False), align))
    elif binding.elem == "bf16":  # a bf16 weight, given as its f32 values (bf16 ones keep their bits)
        dev.upload(addr, to_bf16(value.reshape(-1)))
    else:
        dev.upload(addr, np.ascontiguousarray(value, _DTYPES[binding.elem]).reshape(-1))


def prepare(dev, lowered: Lowered, feeds: Mapping[str, np.ndarray], bound: Mapping[str, int] = {}) -> list[int]:
    """Allocates `lowered`'s buffers on `dev` (poisoning the arena and computed buffers, zeroing the counters), hands
    it the PTX `lowered` carries, and uploads `feeds` (a Q8_0 weight's parts aligned to the step's `align`); the
    buffers' addresses, as `launch` takes them. A feed named in `bound` is not allocated nor uploaded: it is already
    on `dev` at that address (weights and state a session keeps across steps), in a buffer of its own."""
    table = lowered.feeds
    missing = sorted(set(table) - set(feeds) - set(bound))
    if missing:
        raise UserError(f"missing feeds: {', '.join(missing)}")
    bound = {name: addr for name, addr in bound.items() if name in table}
    given = {table[name].buffer: addr for name, addr in bound.items()}
    for name in bound:
        shared = [n for n, f in table.items() if f.buffer == table[name].buffer and n != name]
        if table[name].offset or shared:
            raise UserError(f"feed '{name}' shares its buffer ({', '.join(shared)}): it cannot be bound alone")
    b = [given[k] if k in given else dev.alloc(buf.bytes, zero=buf.zeroed) for k, buf in enumerate(lowered.buffers)]
    if lowered.ptx:
        dev.carry(lowered.ptx)
    poison(dev, lowered, b)  # a bound buffer holds a feed, never a computed tensor: none of them is poisoned
    for name, f in table.items():
        if name not in bound:
            _upload(dev, b[f.buffer] + f.offset, f, feeds[name], name, lowered.align)
    return b


def poison(dev, lowered: Lowered, b: list[int]) -> None:
    """Fills `lowered`'s arena and computed buffers (at addresses `b`) with `POISON`, so that nothing left there
    before (by no step, or by the last one) can be read through them unseen."""
    for k, buf in enumerate(lowered.buffers):
        if buf.poisoned and buf.bytes:
            dev.fill(b[k], buf.bytes, POISON)


def launch(dev, lowered: Lowered, b: list[int]) -> None:
    """Every launch of `lowered`, in order, on `dev` over its buffers at addresses `b` (the plain path)."""
    for one in lowered.launches:
        dev.launch(one.kernel, one.grid, one.block, one.args_at(b))


def read(dev, b: list[int], binding: Binding) -> np.ndarray:
    """The values of the tensor `binding` places, from buffers `b`."""
    return dev.download(b[binding.buffer] + binding.offset, _DTYPES[binding.elem], binding.length).reshape(
        binding.shape
    )


def results(dev, lowered: Lowered, b: list[int]) -> dict[str, np.ndarray]:
    """The outputs and state `lowered`'s step left in buffers `b`."""
    return {name: read(dev, b, r) for name, r in lowered.results.items()}


def run_step(dev, lowered: Lowered, feeds: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """`lowered` run once on `dev` from `feeds` (see `random_feeds`): its buffers prepared, its launches made, its
    outputs and state read back."""
    b = prepare(dev, lowered, feeds)
    launch(dev, lowered, b)
    return results(dev, lowered, b)


def load(source: str, name: str = "lanearena_step") -> types.ModuleType:
    """The module a printed `source` (see `emit`) defines: its `LOWERED` and its `run(dev, feeds)`."""
    module = types.ModuleType(name)
    exec(compile(source, f"<{name}>", "exec"), module.__dict__)
    return module


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
        seqs = max(int(p.params.get("seqs", 1)) for p in positions)
        caches = [step.tensors[c] for p in positions for c in (*p.ins, *p.outs) if step.tensors[c].role is Role.STATE]
        length = min((c.shape[1 if seqs > 1 else 0] for c in caches), default=n)
        per = n // seqs  # each sequence's rows consecutive, from a start of its own
        starts = rng.integers(0, max(length - per, 0) + 1, seqs)
        return (np.repeat(starts, per) + np.tile(np.arange(per), seqs)).astype(np.int32)
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


def run(step: Placed, device, feeds) -> dict[str, np.ndarray]:
    """The placed `step`'s outputs and state on `device` (see `new_device`) from `feeds` (see `random_feeds`)."""
    return run_step(device, step.lowered, feeds)
