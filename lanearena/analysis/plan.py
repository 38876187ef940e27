"""The result of placement as plain data: where each array and scratch of a step lives in the arena, which counters
get zeroed buffers of their own, and which arrays stay outside the arena (and why)."""

from __future__ import annotations

from dataclasses import dataclass, field

from lanearena.model import ALIGN, Form, Reason


@dataclass(frozen=True)
class PlacedArray:
    """Tensor `tensor`'s array `form`: `bytes` from `offset`, live from launch `first` to launch `last`."""

    tensor: str
    form: Form
    offset: int
    bytes: int
    first: int
    last: int


@dataclass(frozen=True)
class PlacedScratch:
    """Launch `launch`'s scratch `tag`: `bytes` from `offset`, live while that launch runs."""

    launch: int
    tag: str
    offset: int
    bytes: int


@dataclass(frozen=True)
class Counter:
    """Launch `launch`'s counter `tag`: a zeroed buffer of `bytes` of its own."""

    launch: int
    tag: str
    bytes: int


@dataclass(frozen=True)
class OwnArray:
    """Tensor `tensor`'s array `form`, kept in a buffer of its own for `reason`."""

    tensor: str
    form: Form
    bytes: int
    reason: Reason


@dataclass
class ArenaPlan:
    """A step's arena: its size and alignment, what lives in it, and what does not."""

    bytes: int
    align: int = ALIGN
    arrays: list[PlacedArray] = field(default_factory=list)
    scratch: list[PlacedScratch] = field(default_factory=list)
    counters: list[Counter] = field(default_factory=list)
    own: list[OwnArray] = field(default_factory=list)
    lower_bound: int = 0
    algorithm: str = "greedy"

    def record(self, step: str) -> dict:
        """The plan of step `step` as `lanearena place --json` prints it (README: "Placement as JSON")."""
        return {
            "step": step,
            "arena_bytes": self.bytes,
            "lower_bound": self.lower_bound,
            "algorithm": self.algorithm,
            "arrays": [
                {
                    "tensor": a.tensor,
                    "form": a.form.value,
                    "offset": a.offset,
                    "bytes": a.bytes,
                    "first": a.first,
                    "last": a.last,
                }
                for a in self.arrays
            ],
            "scratch": [{"launch": s.launch, "tag": s.tag, "offset": s.offset, "bytes": s.bytes} for s in self.scratch],
            "counters": [{"launch": c.launch, "tag": c.tag, "bytes": c.bytes} for c in self.counters],
            "own": [{"tensor": o.tensor, "form": o.form.value, "bytes": o.bytes, "reason": o.reason} for o in self.own],
        }

    def array(self, tensor: str, form: Form) -> PlacedArray | None:
        """Where tensor `tensor`'s array `form` lives, when it is placed."""
        return next((a for a in self.arrays if a.tensor == tensor and a.form == form), None)

    def scratch_at(self, launch: int, tag: str) -> PlacedScratch | None:
        """Where launch `launch`'s scratch `tag` lives."""
        return next((s for s in self.scratch if s.launch == launch and s.tag == tag), None)
