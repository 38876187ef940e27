"""An independent check of a placed step: it re-derives from the launches what the placement must respect and
shares no code with the analysis that produced the placement (`arena_problem`) nor with the placement algorithms."""

from __future__ import annotations

import heapq
from dataclasses import dataclass

from lanearena.analysis.plan import ArenaPlan
from lanearena.model import QBLOCK, Form, Part, Role, Step, Whole, array_bytes


def _resolve(step: Step, name: str, form: Form, qblock: int) -> str:
    """The tensor whose array a touch of `name` in `form` reaches (views followed while they share the array).

    Written again here, not taken from `model.home` (which the analysis and the lowering share), on purpose: which
    array a touch lands in is half of what a placement must respect, so a wrong `home` (a quantized view inside a
    block taken as in place) would place two arrays in one and, shared, pass this check too."""
    t = step.tensors[name]
    hops = 0
    while t.view_of is not None and not (form is Form.QUANT and t.view_offset % qblock):
        t = step.tensors[t.view_of]
        hops += 1
        if hops > len(step.tensors):
            raise ValueError(f"view cycle through '{name}'")
    return t.name


def _touches(step: Step, qblock: int) -> dict[tuple[str, Form], list[tuple[int, str, object]]]:
    """For every array: (launch, 'read' or 'write', how) in launch order; a write through a view is 'via'."""
    out: dict[tuple[str, Form], list[tuple[int, str, object]]] = {}
    for i, launch in enumerate(step.launches):
        for r in launch.reads:
            out.setdefault((_resolve(step, r.tensor, r.form, qblock), r.form), []).append((i, "read", None))
        for w in launch.writes:
            at = _resolve(step, w.tensor, w.form, qblock)
            how = w.how if at == w.tensor else "via"
            out.setdefault((at, w.form), []).append((i, "write", how))
    return out


def _written_before_read(events: list[tuple[int, str, object]], form: Form) -> bool:
    """Whether these touches (in launch order) cover the whole array before any read: a whole write, or parts of
    one pitch whose union covers the unit, all in launches before the first read."""
    by_launch: dict[int, list[tuple[str, object]]] = {}
    for i, kind, how in events:
        by_launch.setdefault(i, []).append((kind, how))
    covered: list[tuple[int, int]] = []
    pitch = None
    for here in by_launch.values():
        if any(kind == "read" for kind, _ in here):
            return False
        hows = [how for _, how in here]
        if any(isinstance(h, Whole) for h in hows):
            return True
        for h in hows:
            if not (isinstance(h, Part) and form is Form.PLAIN):
                return False
            if pitch is None:
                pitch = h.pitch
            if h.pitch != pitch:
                return False
            covered.append((h.start, h.start + h.width))
        end = 0
        for start, stop in sorted(covered):
            if start > end:
                break
            end = max(end, stop)
        assert pitch is not None  # every touch in this launch is a part (anything else returned above)
        if end >= pitch:
            return True
    return False


Subject = tuple[str, str, Form] | tuple[str, int, str] | tuple[str, int]
"""What a violation is about: `("array", tensor, form)`, `("scratch", launch, tag)` or `("launch", launch)`."""


class Violation(str):
    """One way a placement fails its step: the message, about `subject` (so that a caller can point at its op)."""

    subject: Subject

    def __new__(cls, subject: Subject, message: str) -> Violation:
        violation = super().__new__(cls, message)
        violation.subject = subject
        return violation


@dataclass(frozen=True)
class _Region:
    label: str
    subject: Subject
    start: int
    end: int
    first: int
    last: int


def check(step: Step, plan: ArenaPlan, qblock: int = QBLOCK) -> list[Violation]:
    """Every way `plan` fails `step`, naming the arrays; [] when it is a safe placement. The lives of the arrays are
    derived here from the launches (the plan's own `first` and `last` are not trusted)."""
    problems: list[Violation] = []
    touches = _touches(step, qblock)
    io = step.io()
    regions: list[_Region] = []
    for a in plan.arrays:
        label = f"arena.tensor '{a.tensor}' {a.form.value}"
        subject: Subject = ("array", a.tensor, a.form)
        said: list[str] = []
        t = step.tensors.get(a.tensor)
        events = touches.get((a.tensor, a.form), [])
        if t is None:
            said.append(f"no such tensor in step @{step.name}")
        else:
            if t.role is not Role.COMPUTED or t.view_of is not None or a.tensor in io or a.form not in t.forms:
                said.append("only a computed tensor's allocated array that is no input or output may be placed")
            need = array_bytes(t.length, a.form, step.numerics.two_words, plan.align)
            if a.bytes < need:
                said.append(f"{a.bytes} bytes, but the array needs {need}")
            if not events:
                said.append("no launch touches it")
            elif not _written_before_read(events, a.form):
                said.append("a launch reads it (or writes it in another way) before it is written whole")
        problems += [Violation(subject, f"{label}: {m}") for m in said]
        if not events:
            continue
        regions.append(_Region(label, subject, a.offset, a.offset + a.bytes, events[0][0], events[-1][0]))
    declared = {(i, s.tag): s for i, launch in enumerate(step.launches) for s in launch.scratch}
    for s in plan.scratch:
        label = f"arena.scratch launch({s.launch}) '{s.tag}'"
        subject = ("scratch", s.launch, s.tag)
        d = declared.get((s.launch, s.tag))
        if d is None:
            problems.append(Violation(subject, f"{label}: launch {s.launch} asks for no such scratch"))
        elif d.counter:
            problems.append(
                Violation(subject, f"{label}: a counter must keep a zeroed buffer of its own, not arena bytes")
            )
        elif s.bytes < d.bytes:
            problems.append(Violation(subject, f"{label}: {s.bytes} bytes, but the launch asks for {d.bytes}"))
        regions.append(_Region(label, subject, s.offset, s.offset + s.bytes, s.launch, s.launch))
    placed_scratch = {(s.launch, s.tag) for s in plan.scratch}
    counters = {(c.launch, c.tag): c for c in plan.counters}
    for (i, tag), d in declared.items():
        where = f"launch {i} ({step.launches[i].kind})"
        if d.counter and (i, tag) not in counters:
            problems.append(Violation(("launch", i), f"{where}: counter '{tag}' has no zeroed buffer"))
        elif d.counter and counters[(i, tag)].bytes < d.bytes:
            problems.append(
                Violation(
                    ("launch", i),
                    f"{where}: counter '{tag}' of {counters[(i, tag)].bytes} bytes, but the launch asks for {d.bytes}",
                )
            )
        if not d.counter and (i, tag) not in placed_scratch:
            problems.append(Violation(("launch", i), f"{where}: scratch '{tag}' is not placed"))
    for i, tag in counters:
        if (i, tag) not in declared or not declared[(i, tag)].counter:
            problems.append(
                Violation(
                    ("launch", i),
                    f"launch {i} ({step.launches[i].kind}): counter '{tag}' is not a counter the launch asks for",
                )
            )
    for r in regions:
        if r.start % plan.align:
            problems.append(Violation(r.subject, f"{r.label}: offset {r.start} is not a multiple of {plan.align}"))
        if r.start < 0 or r.end > plan.bytes:
            problems.append(
                Violation(r.subject, f"{r.label}: bytes [{r.start}, {r.end}) lie outside the arena of {plan.bytes}")
            )
    has_place = {(a.tensor, a.form) for a in plan.arrays} | {(o.tensor, o.form) for o in plan.own}
    for (tensor, form), events in touches.items():
        if (tensor, form) not in has_place:
            i = events[0][0]
            problems.append(
                Violation(
                    ("launch", i),
                    f"launch {i} ({step.launches[i].kind}): '{tensor}' {form.value} "
                    "has neither a place in the arena nor a buffer of its own",
                )
            )
    problems += _overlaps(regions)
    return problems


def _overlaps(regions: list[_Region]) -> list[Violation]:
    """Every two regions live at one launch that share a byte: a sweep over launches, each region compared with
    those still live when it starts."""
    out: list[Violation] = []
    live: list[tuple[int, int, _Region]] = []  # a heap by last launch
    for k, r in enumerate(sorted(regions, key=lambda r: (r.first, r.start))):
        while live and live[0][0] < r.first:
            heapq.heappop(live)
        for _, _, o in live:
            if o.start < r.end and r.start < o.end:
                a, b = sorted((o, r), key=lambda x: (x.start, x.first))
                out.append(
                    Violation(
                        r.subject,
                        f"{a.label} [{a.start}, {a.end}) live {a.first}-{a.last} overlaps "
                        f"{b.label} [{b.start}, {b.end}) live {b.first}-{b.last}",
                    )
                )
        heapq.heappush(live, (r.last, k, r))
    return out
