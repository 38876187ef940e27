"""A line-by-line port of the reference `place()` (../shared/seed/000_919828e1a8c71d07.txt) over `model.Step`,
kept apart from the package so the pass can be compared with it: quadratic, literal, no shared code beyond the
data types and `array_bytes`."""

from __future__ import annotations

from lanearena.model import ALIGN, QBLOCK, Form, Part, Role, Step, Whole, array_bytes

WHOLE, UNSAFE = "whole", "unsafe"


def _home(s: Step, name: str, touch: Form) -> str:
    at = name
    while s.tensors[at].view_of is not None:
        t = s.tensors[at]
        if touch is Form.QUANT and t.view_offset % QBLOCK != 0:
            break
        at = t.view_of
    return at


def _then(state, read, whole, parts, other):
    if state in (WHOLE, UNSAFE):
        return state
    pitch, have = state
    if read:
        return UNSAFE
    if whole:
        return WHOLE
    if other or not parts:
        return UNSAFE
    have = list(have)
    for p, start, width in parts:
        if p != pitch:
            return UNSAFE
        have.append((start, start + width))
    have.sort()
    reach = 0
    for start, end in have:
        if start > reach:
            break
        reach = max(reach, end)
    return WHOLE if reach >= pitch else (pitch, have)


def place(s: Step) -> dict:
    """{("array", name, form) or ("scratch", launch, tag): (offset, bytes, first, last)} and the arena's bytes."""
    two = s.numerics.two_words
    io = s.io()
    life = {}
    for i, la in enumerate(s.launches):
        here = {}
        for r in la.reads:
            here.setdefault((_home(s, r.tensor, r.form), r.form), [False, False, [], False])[0] = True
        for w in la.writes:
            at = _home(s, w.tensor, w.form)
            own = at == w.tensor
            e = here.setdefault((at, w.form), [False, False, [], False])
            if own and isinstance(w.how, Whole):
                e[1] = True
            elif own and w.form is Form.PLAIN and isinstance(w.how, Part):
                e[2].append((w.how.pitch, w.how.start, w.how.width))
            else:
                e[3] = True
        for k in sorted(here, key=lambda k: (k[0], k[1] is Form.QUANT)):
            read, whole, parts, other = here[k]
            if k not in life:
                life[k] = [i, i, None]
            e = life[k]
            e[1] = i
            if e[0] == i:
                e[2] = _then((parts[0][0] if parts else 0, []), read, whole, parts, other)
            else:
                e[2] = _then(e[2], read, whole, parts, other)
    todo = []
    for (name, touch), (first, last, written) in life.items():
        if written != WHOLE:
            continue
        b = s.tensors[name]
        computed = b.role is Role.COMPUTED and b.view_of is None
        if computed and touch in b.forms and name not in io:
            todo.append(
                (
                    array_bytes(b.length, touch, two),
                    first,
                    last,
                    (0, name, touch is Form.QUANT, 0, ""),
                    ("array", name, touch),
                )
            )
    for i, la in enumerate(s.launches):
        for sc in la.scratch:
            if not sc.counter:
                todo.append((-(-sc.bytes // ALIGN) * ALIGN, i, i, (1, "", False, i, sc.tag), ("scratch", i, sc.tag)))
    todo.sort(key=lambda t: (-t[0], t[1], t[3]))
    out, spans, top = {}, [], 0
    for nbytes, first, last, _, key in todo:
        busy = sorted((o, o + b) for o, b, f, e in spans if f <= last and first <= e)
        offset = 0
        for lo, hi in busy:
            if offset + nbytes <= lo:
                break
            offset = max(offset, hi)
        top = max(top, offset + nbytes)
        spans.append((offset, nbytes, first, last))
        out[key] = (offset, nbytes, first, last)
    return out, top
