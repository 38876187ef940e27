"""Which arrays of a step may live in the arena, and for how long (the reference `place()` up to the placement).

An array may live in the arena when it is a computed tensor's, allocated in that form, no input or output of the
step, and the step writes all of it before any launch reads it: whole in one launch, or in parts of every unit of one
pitch until the parts cover the unit. It lives from the first launch that touches it to the last, through any view.
A launch's scratch lives while the launch runs; its counters get zeroed buffers of their own."""

from __future__ import annotations

from dataclasses import dataclass, field

from lanearena.analysis.plan import Counter, OwnArray
from lanearena.model import (
    ALIGN,
    QBLOCK,
    Form,
    Part,
    Reason,
    Role,
    Step,
    Tensor,
    Whole,
    aligned,
    array_bytes,
    home,
    weight_array_bytes,
)


@dataclass
class Written:
    """How much of an array the step has written before any launch reads it: all of it (`whole`), parts of every
    unit of `pitch` (`have`, so far), or it was read or written some other way first (`unsafe`)."""

    whole: bool = False
    unsafe: bool = False
    pitch: int = 0
    have: list[tuple[int, int]] = field(default_factory=list)

    def then(self, read: bool, whole: bool, parts: list[Part], other: bool) -> None:
        """The array after a launch that reads it, writes it whole, writes these parts of every unit, or writes it
        some other way."""
        if self.whole or self.unsafe:
            return
        if read or ((other or not parts) and not whole):
            self.unsafe = True
            return
        if whole:
            self.whole = True
            return
        for p in parts:
            if p.pitch != self.pitch:
                self.unsafe = True
                return
            self.have.append((p.start, p.start + p.width))
        self.have.sort()
        reach = 0
        for start, end in self.have:
            if start > reach:
                break
            reach = max(reach, end)
        self.whole = reach >= self.pitch


@dataclass
class _Here:
    """What one launch does to one array."""

    read: bool = False
    whole: bool = False
    parts: list[Part] = field(default_factory=list)
    other: bool = False


@dataclass
class Life:
    """An array's life: its first and last launch, and how it was written before it was read."""

    first: int
    last: int
    written: Written


def lives(step: Step, qblock: int = QBLOCK) -> dict[tuple[str, Form], Life]:
    """Every array the step touches, by (home tensor, form): its life through any view, and whether it was written
    whole before any launch read it."""
    life: dict[tuple[str, Form], Life] = {}
    for i, launch in enumerate(step.launches):
        here: dict[tuple[str, Form], _Here] = {}
        for r in launch.reads:
            here.setdefault((home(step, r.tensor, r.form, qblock), r.form), _Here()).read = True
        for w in launch.writes:
            at = home(step, w.tensor, w.form, qblock)
            own = at == w.tensor
            h = here.setdefault((at, w.form), _Here())
            if own and isinstance(w.how, Whole):
                h.whole = True
            elif own and w.form is Form.PLAIN and isinstance(w.how, Part):
                h.parts.append(w.how)
            else:
                h.other = True
        for key, h in here.items():
            e = life.get(key)
            if e is None:
                e = life[key] = Life(i, i, Written(pitch=h.parts[0].pitch if h.parts else 0))
            e.last = i
            e.written.then(h.read, h.whole, h.parts, h.other)
    return life


@dataclass(frozen=True)
class Item:
    """Something to place: an array (`tensor`, `form`) or launch `launch`'s scratch `tag`, of `bytes`, live from
    launch `first` to launch `last`."""

    bytes: int
    first: int
    last: int
    tensor: str | None = None
    form: Form | None = None
    launch: int | None = None
    tag: str | None = None

    @property
    def order(self) -> tuple:
        """The reference's order among equals: arrays by name then form (plain first), then scratch by launch and
        tag."""
        if self.tensor is not None:
            return (0, self.tensor, self.form is Form.QUANT, 0, "")
        return (1, "", False, self.launch, self.tag)

    @property
    def label(self) -> str:
        if self.tensor is not None:
            assert self.form is not None  # an array's item has both its tensor and its form
            return f"{self.tensor}:{self.form.value}"
        return f"#{self.launch}:{self.tag}"


@dataclass
class Problem:
    """A step's placement problem: the items to place (in the reference's order among equals), the counters, and
    the arrays that keep buffers of their own."""

    items: list[Item]
    counters: list[Counter]
    own: list[OwnArray]


def _reason(step: Step, name: str, form: Form, written: Written) -> Reason | None:
    """Why tensor `name`'s array `form` keeps a buffer of its own, or None when it may live in the arena."""
    t = step.tensors[name]
    if form not in t.forms:  # first: a touch through a view in place reaches an array its tensor may not have
        return Reason.UNALLOCATED
    if t.view_of is not None:
        return Reason.VIEW
    if t.role is not Role.COMPUTED:
        return Reason(t.role.value)
    if name in step.outputs:
        return Reason.OUTPUT
    if not written.whole:
        return Reason.UNSAFE
    return None


def bytes_of(t: Tensor, form: Form, two_words: bool, align: int = ALIGN) -> int:
    """The aligned bytes of tensor `t`'s array `form` (a Q8_0 weight's: its words and scales; a bf16 weight's: two
    bytes a value)."""
    if t.elem in ("i8", "bf16"):
        return weight_array_bytes(t.length, t.elem, align)
    return array_bytes(t.length, form, two_words, align)


def problem(step: Step, align: int = ALIGN, qblock: int = QBLOCK) -> Problem:
    """The placement problem of `step`: its arrays that may live in the arena and its launches' scratch, each with
    its aligned bytes and life; its counters; and the arrays that keep buffers of their own, with why."""
    two = step.numerics.two_words
    items: list[Item] = []
    own: list[OwnArray] = []
    for (name, form), life in lives(step, qblock).items():
        t = step.tensors[name]
        nbytes = bytes_of(t, form, two, align)
        reason = _reason(step, name, form, life.written)
        if reason is None:
            items.append(Item(nbytes, life.first, life.last, tensor=name, form=form))
        else:
            own.append(OwnArray(name, form, nbytes, reason))
    counters = []
    for i, launch in enumerate(step.launches):
        for s in launch.scratch:
            if s.counter:
                counters.append(Counter(i, s.tag, s.bytes))
            else:
                items.append(Item(aligned(s.bytes, align), i, i, launch=i, tag=s.tag))
    items.sort(key=lambda it: it.order)
    return Problem(items, counters, own)
