"""A line-by-line port of the reference `place()` (../shared/seed/000_919828e1a8c71d07.txt), kept apart from the
package so that the pass can be compared with it: quadratic, literal, and sharing nothing with the package. It
imports nothing from `lanearena`: a step is read by attribute (a `model.Step` or anything shaped like one: tensors
with `role`, `forms`, `view_of`, `view_offset`; launches with `reads`, `writes` and `scratch`), enumerations by
their values, and every constant and helper is the seed's own, restated here.

The seed imports `QBLOCK` and `quant_in_place` without showing them; from its comments ("the quantized form of an
alias whose rows start inside a block is its own", GGML's Q8_0) they are a block of 32 values and a view's offset
being a whole number of blocks. The step's io (`s.io.names()`) are its inputs and its outputs."""

from __future__ import annotations

ALIGN = 256
"""Every array's alignment in the arena (the seed's `ALIGN`: cudaMalloc's)."""

QBLOCK = 32
"""Values per scale of a quantized array (not shown by the seed: GGML's Q8_0 block)."""

WHOLE, UNSAFE = "whole", "unsafe"


def quant_in_place(offset: int) -> bool:
    """Whether a view starting `offset` elements in reads its tensor's quantized form in place (not shown by the
    seed: its rows start on a whole block)."""
    return offset % QBLOCK == 0


def aligned(n: int) -> int:
    return -(-n // ALIGN) * ALIGN


def array_bytes(length: int, quant: bool, two: bool) -> int:
    """The seed's `array_bytes`: the f32 buffer, or the int8 words (twice under two words) then a scale a block,
    each part aligned."""
    if not quant:
        return aligned(length * 4)
    return aligned(length) * (2 if two else 1) + aligned(length // QBLOCK * 4)


def quant_parts(offset: int, length: int, two: bool) -> tuple[int, int | None, int]:
    """The seed's `quant_parts`: where the words, the low words (under two words) and the scales start."""
    words = 2 if two else 1
    return offset, (offset + aligned(length) if two else None), offset + aligned(length) * words


def value(e) -> str:
    """An enumeration's value (a role, form or numerics), or the string given."""
    return getattr(e, "value", e)


def io(s) -> set[str]:
    """The step's io (`s.io.names()`): its inputs and its outputs."""
    return set(s.outputs) | {t.name for t in s.tensors.values() if value(t.role) == "input"}


def length(t) -> int:
    n = 1
    for d in t.shape:
        n *= d
    return n


def home(s, name: str, quant: bool) -> str:
    """The seed's `home`: an alias's array is the tensor it is part of, through every alias, but the quantized form
    of an alias whose rows start inside a block is its own."""
    at = name
    while s.tensors[at].view_of is not None:
        t = s.tensors[at]
        if quant and not quant_in_place(t.view_offset):
            break
        at = t.view_of
    return at


def how(w) -> tuple:
    """A write's shape as the seed's launch tells it: ("whole",), ("part", pitch, from, width) or ("other",)."""
    if hasattr(w.how, "pitch"):
        return ("part", w.how.pitch, w.how.start, w.how.width)
    return ("whole",) if type(w.how).__name__ == "Whole" else ("other",)


def then(state, read, whole, parts, other):
    """The seed's `Written::then`."""
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


def lives(s) -> dict:
    """{(home tensor, quant): [first, last, written]}: every array a launch touches, as the seed's first loop
    leaves `life`."""
    life: dict = {}
    for i, la in enumerate(s.launches):
        here: dict = {}
        for r in la.reads:
            quant = value(r.form) == "quant"
            here.setdefault((home(s, r.tensor, quant), quant), [False, False, [], False])[0] = True
        for w in la.writes:
            quant = value(w.form) == "quant"
            at = home(s, w.tensor, quant)
            own = at == w.tensor
            e = here.setdefault((at, quant), [False, False, [], False])
            shape = how(w)
            if own and shape[0] == "whole":
                e[1] = True
            elif own and not quant and shape[0] == "part":
                e[2].append(shape[1:])
            else:
                e[3] = True
        for k in sorted(here):
            read, whole, parts, other = here[k]
            if k not in life:
                life[k] = [i, i, None]
            e = life[k]
            e[1] = i
            if e[0] == i:
                e[2] = then((parts[0][0] if parts else 0, []), read, whole, parts, other)
            else:
                e[2] = then(e[2], read, whole, parts, other)
    return life


def placed_arrays(s) -> dict:
    """{(name, quant): (first, last)}: the arrays the seed places, a computed tensor's allocated array written
    whole before it is read, no io."""
    out = {}
    for (name, quant), (first, last, written) in lives(s).items():
        b = s.tensors[name]
        computed = value(b.role) == "computed" and b.view_of is None
        allocated = ("quant" if quant else "plain") in {value(f) for f in b.forms}
        if written == WHOLE and computed and allocated and name not in io(s):
            out[(name, quant)] = (first, last)
    return out


def place(s) -> tuple[dict, int]:
    """{("array", name, form) or ("scratch", launch, tag): (offset, bytes, first, last)} and the arena's bytes."""
    two = value(s.numerics) == "int8x2"
    todo = []
    for (name, quant), (first, last) in placed_arrays(s).items():
        order = (0, name, quant, 0, "")
        form = "quant" if quant else "plain"
        todo.append((array_bytes(length(s.tensors[name]), quant, two), first, last, order, ("array", name, form)))
    for i, la in enumerate(s.launches):
        for sc in la.scratch:
            if not sc.counter:
                todo.append((aligned(sc.bytes), i, i, (1, "", False, i, sc.tag), ("scratch", i, sc.tag)))
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
