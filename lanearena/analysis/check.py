"""An independent check of a placed step: it re-derives from the launches what the placement must respect and
shares no code with the analysis that produced the placement (`lifetimes`) nor with the placement algorithms."""

from __future__ import annotations

from lanearena.analysis.plan import ArenaPlan
from lanearena.model import QBLOCK, Form, Part, Role, Step, Whole, array_bytes


def _resolve(step: Step, name: str, form: Form, qblock: int) -> str:
    """The tensor whose array a touch of `name` in `form` reaches (views followed while they share the array)."""
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
    """Whether these touches cover the whole array before any read: a whole write, or parts of one pitch whose
    union covers the unit, all in launches before the first read."""
    covered: set[tuple[int, int]] = set()
    pitch = None
    for launch in sorted({i for i, _, _ in events}):
        here = [(kind, how) for i, kind, how in events if i == launch]
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
            covered.add((h.start, h.start + h.width))
        end = 0
        for start, stop in sorted(covered):
            if start > end:
                break
            end = max(end, stop)
        if end >= pitch:
            return True
    return False


def check(step: Step, plan: ArenaPlan, qblock: int = QBLOCK) -> list[str]:
    """Every way `plan` fails `step`, as messages naming the arrays; [] when it is a safe placement."""
    problems: list[str] = []
    touches = _touches(step, qblock)
    regions: list[tuple[str, int, int, int, int]] = []  # name, offset, end, first, last
    for a in plan.arrays:
        label = f"arena.array '{a.tensor}' {a.form.value}"
        t = step.tensors.get(a.tensor)
        if t is None:
            problems.append(f"{label}: no such tensor in step @{step.name}")
            continue
        if t.role is not Role.COMPUTED or t.view_of is not None or a.tensor in step.io() or a.form not in t.forms:
            problems.append(f"{label}: only a computed tensor's allocated array that is no input or output may be placed")
        need = array_bytes(t.length, a.form, step.numerics.two_words, plan.align)
        if a.bytes < need:
            problems.append(f"{label}: {a.bytes} bytes, but the array needs {need}")
        events = touches.get((a.tensor, a.form), [])
        if not events:
            problems.append(f"{label}: no launch touches it")
        else:
            first, last = events[0][0], events[-1][0]
            if a.first > first or a.last < last:
                problems.append(f"{label}: live {a.first}-{a.last}, but launches {first}-{last} touch it")
            if not _written_before_read(events, a.form):
                problems.append(f"{label}: a launch reads it (or writes it in another way) before it is written whole")
        regions.append((label, a.offset, a.offset + a.bytes, a.first, a.last))
    declared = {(i, s.tag): s for i, launch in enumerate(step.launches) for s in launch.scratch}
    for s in plan.scratch:
        label = f"arena.scratch launch({s.launch}) '{s.tag}'"
        d = declared.get((s.launch, s.tag))
        if d is None:
            problems.append(f"{label}: launch {s.launch} asks for no such scratch")
        elif d.counter:
            problems.append(f"{label}: a counter must keep a zeroed buffer of its own, not arena bytes")
        elif s.bytes < d.bytes:
            problems.append(f"{label}: {s.bytes} bytes, but the launch asks for {d.bytes}")
        regions.append((label, s.offset, s.offset + s.bytes, s.launch, s.launch))
    placed_scratch = {(s.launch, s.tag) for s in plan.scratch}
    counters = {(c.launch, c.tag) for c in plan.counters}
    for (i, tag), d in declared.items():
        if d.counter and (i, tag) not in counters:
            problems.append(f"launch {i} ({step.launches[i].kind}): counter '{tag}' has no zeroed buffer")
        if not d.counter and (i, tag) not in placed_scratch:
            problems.append(f"launch {i} ({step.launches[i].kind}): scratch '{tag}' is not placed")
    for label, start, end, _, _ in regions:
        if start % plan.align:
            problems.append(f"{label}: offset {start} is not a multiple of {plan.align}")
        if start < 0 or end > plan.bytes:
            problems.append(f"{label}: bytes [{start}, {end}) lie outside the arena of {plan.bytes}")
    by_start = sorted(regions, key=lambda r: r[1])
    for k, (la, sa, ea, fa, xa) in enumerate(by_start):
        for lb, sb, eb, fb, xb in by_start[k + 1:]:
            if sb >= ea:
                break
            if fa <= xb and fb <= xa:
                problems.append(
                    f"{la} [{sa}, {ea}) live {fa}-{xa} overlaps {lb} [{sb}, {eb}) live {fb}-{xb}"
                )
    return problems
