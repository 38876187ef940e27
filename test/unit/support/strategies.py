"""Hypothesis strategies for random steps as plain data that the `lane` dialect accepts (`support.from_model`
turns each into IR that verifies): computed tensors, inputs, weights and state, views on and off block boundaries
(nested too), launches reading and writing whole, in parts or otherwise, scratch and counters, under all three
numerics; every computed tensor a launch reads is written by some launch (before or after the read), and so is
every output.

`steps()` draws them at random; `fragmenting_steps()` builds lifetimes meant to fragment an arena: many arrays of
mixed sizes whose lives interleave, so that a placement that fits the large ones first leaves holes the small ones
cannot fill."""

from __future__ import annotations

import dataclasses

from hypothesis import strategies as st

from lanearena.dialects.kinds import KERNEL_OPS
from lanearena.model import (
    QBLOCK,
    Form,
    Launch,
    Numerics,
    Other,
    Part,
    Role,
    Scratch,
    Step,
    Tensor,
    Touch,
    Whole,
    Write,
)

PLAIN, QUANT = Form.PLAIN, Form.QUANT


DRAWN_NUMERICS = (Numerics.F32, Numerics.BF16, *(Numerics.INT8, Numerics.INT8X2) * 2)
"""The numerics a step is drawn under: f32 activations a third of the time (f32 or bf16 weights), quantized the rest,
as often as before bf16 came, so the quantized forms' rules keep their reach."""


def _quantized(numerics: Numerics) -> bool:
    return numerics.quantized


@st.composite
def tensors(draw, numerics: Numerics = Numerics.INT8, max_tensors: int = 8, max_views: int = 4) -> dict[str, Tensor]:
    """Tensors of every role, of lengths on and off a whole number of blocks; computed f32 tensors (and views of
    them) of a whole number of blocks may have a quantized form where `numerics` quantize."""
    out: dict[str, Tensor] = {}
    for i in range(draw(st.integers(1, max_tensors))):
        role = draw(st.sampled_from([Role.COMPUTED] * 4 + [Role.INPUT, Role.WEIGHT, Role.STATE]))
        length = QBLOCK * draw(st.integers(1, 16)) if draw(st.booleans()) else draw(st.integers(1, 300))
        elem = "f32"
        if role in (Role.INPUT, Role.COMPUTED) and draw(st.integers(0, 5)) == 0:
            elem = "i32"
        elif role is Role.WEIGHT and length % QBLOCK == 0 and draw(st.booleans()):
            elem = "i8"
        forms = frozenset({PLAIN})
        if role is Role.COMPUTED and elem == "f32" and length % QBLOCK == 0 and _quantized(numerics):
            forms = draw(st.sampled_from([frozenset({PLAIN}), frozenset({PLAIN, QUANT}), frozenset({QUANT})]))
        out[f"t{i}"] = Tensor(f"t{i}", (length,), elem, role, forms)
    for j in range(draw(st.integers(1, max_views))):
        bases = [t for t in out.values() if t.role is Role.COMPUTED]
        if not bases:
            break
        views = [t for t in bases if t.view_of is not None]
        plain = [t for t in bases if PLAIN in t.forms]  # mostly of a tensor with a plain array a read can reach
        base = draw(st.sampled_from(views if views and draw(st.booleans()) else plain or bases))  # often of a view
        quant = base.elem == "f32" and _quantized(numerics) and base.length >= QBLOCK and draw(st.integers(0, 3)) > 0
        # A quantized view leaves room to start half a block in where it can.
        blocks = (base.length - QBLOCK // 2) // QBLOCK or 1
        length = QBLOCK * draw(st.integers(1, blocks)) if quant else draw(st.integers(1, base.length))
        offset = draw(_offsets(base.length - length))
        forms = frozenset({PLAIN, QUANT}) if quant else frozenset({PLAIN})
        out[f"v{j}"] = Tensor(f"v{j}", (length,), base.elem, Role.COMPUTED, forms, base.name, offset)
    return out


@st.composite
def _offsets(draw, room: int) -> int:
    """Where a view starts when `room` elements are left: on a block boundary (its quantized form read in place),
    half a block off, or anywhere."""
    kind = draw(st.sampled_from(["block", "half", "any"]))
    if kind == "block":
        return QBLOCK * draw(st.integers(0, room // QBLOCK))
    if kind == "half" and room >= QBLOCK // 2:
        return QBLOCK // 2 + QBLOCK * draw(st.integers(0, (room - QBLOCK // 2) // QBLOCK))
    return draw(st.integers(0, room))


@st.composite
def hows(draw, length: int) -> Whole | Part | Other:
    """How a launch writes a tensor of `length` elements: whole, in a part of every unit (a pitch that divides the
    tensor into units), or otherwise."""
    kind = draw(st.sampled_from(["whole", "whole", "part", "part", "other"]))
    if kind == "whole":
        return Whole()
    if kind == "other":
        return Other()
    pitches = [p for p in (32, 64, length) if length % p == 0]
    pitch = draw(st.sampled_from(pitches))
    start = draw(st.integers(0, pitch - 1))
    return Part(pitch, start, draw(st.integers(1, pitch - start)))


def _root(ts: dict[str, Tensor], name: str) -> tuple[str, int, int]:
    """The tensor at the bottom of `name`'s views, and the elements `name` covers in it."""
    t, start = ts[name], 0
    while t.view_of is not None:
        start += t.view_offset
        t = ts[t.view_of]
    return t.name, start, start + ts[name].length


def _written(ts: dict[str, Tensor], launches: list[Launch], name: str, form: Form) -> bool:
    """Whether some launch writes elements of `name` in `form`, through any view (the verifier's rule)."""
    root, start, end = _root(ts, name)
    for launch in launches:
        for w in launch.writes:
            r, s, e = _root(ts, w.tensor)
            if w.form is form and r == root and s < end and start < e:
                return True
    return False


def _with_write(launch: Launch, write: Write) -> Launch:
    outs = tuple(dict.fromkeys((*launch.outs, write.tensor)))
    return Launch(
        launch.kind, launch.ins, outs, reads=launch.reads, writes=(*launch.writes, write), scratch=launch.scratch
    )


@st.composite
def scratch(draw, max_scratch: int = 2) -> tuple[Scratch, ...]:
    out = []
    for k in range(draw(st.integers(0, max_scratch))):
        counter = draw(st.booleans())
        elem = "i32" if counter else draw(st.sampled_from(["f32", "i32", "i8"]))
        out.append(Scratch(f"s{k}", elem, draw(st.integers(1, 3000)), counter=counter))
    return tuple(out)


@st.composite
def _parts(draw, name: str, length: int, form: Form) -> list[Write]:
    """Writes of parts of every unit of one pitch of `name`'s array `form`, a launch each: parts that join up, or
    that leave a gap (of one element, or more, the unit's last element too), or (now and then) parts of two
    pitches. (Parts of a quantized array never make it whole.)"""
    pitch = draw(st.sampled_from([p for p in (32, 64, length) if length % p == 0 and p > 1]))
    cuts = sorted(draw(st.lists(st.integers(1, pitch - 1), min_size=1, max_size=2, unique=True)))
    # A quantized array's parts cover it (and still never make it whole); a plain one's may leave gaps.
    gap = draw(st.sampled_from([0, 0, 1, 1, 2])) if form is PLAIN else 0
    writes = []
    short = draw(st.sampled_from([0, 0, 0, 1])) if form is PLAIN else 0  # now and then the unit's last left out
    for start, end in zip([0, *cuts], [*cuts, pitch], strict=True):
        if start == cuts[0]:
            start = min(start + gap, end - 1)
        if end == pitch:
            end = max(end - short, start + 1)
        writes.append(Write(name, form, Part(pitch, start, end - start)))
    smaller = [p for p in (16, 32, 64) if length % p == 0 and p < pitch]
    if smaller and draw(st.integers(0, 3)) == 0:
        # A change of pitch: the rest of the unit past `other`, then [0, other) of a unit of `other`, which would
        # cover the unit were the pitches the same.
        other = draw(st.sampled_from(smaller))
        return [Write(name, form, Part(pitch, other, pitch - other)), Write(name, form, Part(other, 0, other))]
    return draw(st.permutations(writes))


def _some(names: list[str], most: int, min_size: int = 0):
    return st.lists(st.sampled_from(names), min_size=min_size, max_size=most, unique=True) if names else st.just([])


def _launch(kind: str, reads: list[Touch], writes: list[Write], scratch: tuple[Scratch, ...] = ()) -> Launch:
    return Launch(
        kind,
        tuple(r.tensor for r in reads),
        tuple(dict.fromkeys(w.tensor for w in writes)),
        reads=tuple(reads),
        writes=tuple(writes),
        scratch=scratch,
    )


@st.composite
def steps(draw, max_tensors: int = 8, max_launches: int = 10) -> Step:
    """A step of generic launches: first (mostly) a launch writing some computed tensors whole, then launches
    reading and writing at random, now and then a tensor written in parts over several launches, and last (mostly)
    reads through views, each the last touch of the tensor it views."""
    numerics = draw(st.sampled_from(DRAWN_NUMERICS))
    ts = draw(tensors(numerics, max_tensors))
    names = list(ts)
    writable = [n for n in names if ts[n].role in (Role.COMPUTED, Role.STATE)]
    roots = [n for n in names if ts[n].role is Role.COMPUTED and ts[n].view_of is None]
    # A tensor to write in parts (not also whole first: then its parts would not count), and its form.
    parted = {f: [n for n in roots if f in ts[n].forms and ts[n].length > 1] for f in (PLAIN, QUANT)}
    form = draw(st.sampled_from([f for f in (PLAIN, QUANT) if parted[f]] or [PLAIN]))
    in_parts = draw(st.sampled_from(parted[form])) if parted[form] and draw(st.integers(0, 2)) else None
    launches = []
    if roots and draw(st.integers(0, 7)):
        viewed = [n for n in roots if n != in_parts and any(_root(ts, v)[0] == n for v in names if ts[v].view_of)]
        first = viewed + [n for n in draw(_some(roots, 2, min_size=1)) if n not in viewed and n != in_parts]
        launches.append(_launch("first", [], [Write(n, f, Whole()) for n in first for f in sorted(ts[n].forms)]))
    if in_parts is not None:
        launches += [_launch("part", [], [w]) for w in draw(_parts(in_parts, ts[in_parts].length, form))]
    for i in range(draw(st.integers(1, max_launches))):
        reads = [Touch(n, draw(st.sampled_from(sorted(ts[n].forms)))) for n in draw(_some(names, 3))]
        writes = []
        for n in draw(_some(writable, 2)):
            for f in draw(st.lists(st.sampled_from(sorted(ts[n].forms)), min_size=1, unique=True)):
                writes.append(Write(n, f, draw(hows(ts[n].length))))
        launches.append(_launch(f"k{i}", reads, writes, draw(scratch())))
    views = [n for n in names if ts[n].view_of is not None]
    last = []
    if views and draw(st.integers(0, 7)):
        last = draw(_some(views, 2, min_size=1))
        # Each read in every form it has, mostly: plain (the tensor at the bottom's array) and quantized.
        reads = [
            Touch(v, f) for v in last for f in sorted(ts[v].forms) if len(ts[v].forms) == 1 or draw(st.integers(0, 3))
        ]
        launches.append(_launch("last", reads or [Touch(last[0], min(ts[last[0]].forms))], []))
    # A computed tensor that is read is written by some launch: before the read, or (unsafe, so kept out of the
    # arena) in the launch that reads it or after it.
    for launch in list(launches):
        for r in launch.reads:
            if ts[r.tensor].role is Role.COMPUTED and not _written(ts, launches, r.tensor, r.form):
                at = draw(st.integers(0, len(launches) - 1))
                launches[at] = _with_write(launches[at], Write(r.tensor, r.form, draw(hows(ts[r.tensor].length))))
    # No output is the tensor a last read views (that read is to end an array's life in the arena), nor the one
    # written in parts (which the parts are to make whole, or not).
    computed = [n for n in roots if n != in_parts and all(_root(ts, v)[0] != n for v in last)]
    outputs = frozenset(draw(st.lists(st.sampled_from(computed), max_size=2, unique=True))) if computed else frozenset()
    for n in sorted(outputs):
        if PLAIN not in ts[n].forms:
            outputs -= {n}
        elif not _written(ts, launches, n, PLAIN):
            at = draw(st.integers(0, len(launches) - 1))
            launches[at] = _with_write(launches[at], Write(n, PLAIN, Whole()))
    return Step("fuzz", numerics, ts, launches, outputs)


SIZES = [
    (st.integers(1, 64), 4),  # a few values: an aligned unit
    (st.integers(65, 1024), 3),
    (st.integers(1025, 16384), 2),
    (st.integers(16385, 262144), 1),  # a large activation
]
"""Lengths of the fragmenting steps' arrays: mostly small, some large, so sizes span four orders of magnitude."""


@st.composite
def _length(draw) -> int:
    sizes = [s for s, weight in SIZES for _ in range(weight)]
    return draw(draw(st.sampled_from(sizes)))


@st.composite
def fragmenting_steps(draw, max_arrays: int = 48, max_launches: int = 32) -> Step:
    """A step of generic launches whose computed arrays are written whole at their first launch and read at their
    last, with lives chosen to fragment an arena: long-lived small arrays born between short-lived large ones
    (a staircase of pins), and lives of mixed lengths that interleave at random; scratch and counters at some
    launches; quantized forms under the numerics that have them."""
    numerics = draw(st.sampled_from(DRAWN_NUMERICS))
    n_launches = draw(st.integers(4, max_launches))
    lives: list[tuple[int, int, int]] = []  # (first, last, length)
    pattern = draw(st.sampled_from(["staircase", "random", "both"]))
    if pattern in ("staircase", "both"):
        big = draw(st.integers(1025, 65536))
        for i in range(0, n_launches - 1, 2):
            lives.append((i, i + 1, big + draw(st.integers(0, 4096))))  # a large temporary for two launches
            if i + 1 < n_launches - 1:
                # a small array born beside it that outlives many of the large ones after it
                lives.append((i + 1, draw(st.integers(i + 2, n_launches - 1)), draw(st.integers(1, 512))))
    if pattern in ("random", "both"):
        for _ in range(draw(st.integers(4, max_arrays))):
            first = draw(st.integers(0, n_launches - 1))
            span = draw(st.sampled_from([0, 1, 2, 4, 8, n_launches]))
            lives.append((first, min(n_launches - 1, first + draw(st.integers(0, span))), draw(_length())))
    lives = lives[:max_arrays]
    ts: dict[str, Tensor] = {"x": Tensor("x", (64,), "f32", Role.INPUT)}
    writes: list[list[Write]] = [[] for _ in range(n_launches)]
    reads: list[list[Touch]] = [[Touch("x", PLAIN)] for _ in range(n_launches)]
    for k, (first, last, length) in enumerate(lives):
        name = f"a{k}"
        quant = _quantized(numerics) and draw(st.booleans())
        if quant:
            length = max(QBLOCK, length // QBLOCK * QBLOCK)
        ts[name] = Tensor(name, (length,), "f32", Role.COMPUTED, frozenset({PLAIN, QUANT} if quant else {PLAIN}))
        forms = (PLAIN, QUANT) if quant else (PLAIN,)
        for f in forms:
            writes[first].append(Write(name, f, Whole()))
        # read at its last launch (by a later launch where it has one), and here and there in between
        at = last if last > first or last == n_launches - 1 else last + 1
        reads[at].append(Touch(name, draw(st.sampled_from(forms))))
        for between in range(first + 1, at):
            if draw(st.integers(0, 3)) == 0:
                reads[between].append(Touch(name, PLAIN))
    ts["y"] = Tensor("y", (64,), "f32", Role.COMPUTED)
    writes[-1].append(Write("y", PLAIN, Whole()))
    launches = []
    for i in range(n_launches):
        rs = tuple(dict.fromkeys(reads[i]))
        launches.append(
            Launch(
                f"k{i}",
                tuple(r.tensor for r in rs),
                tuple(dict.fromkeys(w.tensor for w in writes[i])),
                reads=rs,
                writes=tuple(writes[i]),
                scratch=draw(scratch()),
            )
        )
    return Step("fragmented", numerics, ts, launches, frozenset({"y"}))


HOSTILE = ['"""', "'", '"', "\n", "\r", "\x00", "#", "\\", "é", "😀", "\u2028", ")", " ", "%", "@"]
"""Characters a name may hold that would be code, or end a line or a literal, if a name were ever written unescaped."""

hostile_names = st.one_of(
    st.lists(st.sampled_from([*HOSTILE, "a", "b"]), min_size=1, max_size=6).map("".join),
    st.sampled_from(["class", "def", "import", "None", "lambda", "__import__"]),
    st.text(min_size=1, max_size=8),
)
"""Names with quotes, newlines, NUL, `#`, triple quotes, non-ASCII characters and Python keywords."""


@st.composite
def renamed_steps(draw, max_tensors: int = 6, max_launches: int = 6) -> Step:
    """`steps()` with every name (the step's, its tensors', its generic kernels' and their scratch tags) drawn from
    `hostile_names`."""
    step = draw(steps(max_tensors, max_launches))
    new = dict(
        zip(
            step.tensors,
            draw(st.lists(hostile_names, min_size=len(step.tensors), max_size=len(step.tensors), unique=True)),
            strict=True,
        )
    )

    def launch(la: Launch) -> Launch:
        tags = draw(st.lists(hostile_names, min_size=len(la.scratch), max_size=len(la.scratch), unique=True))
        return dataclasses.replace(
            la,
            # A generic kernel named as a kind of the library would be built as that kind.
            kind=draw(hostile_names.filter(lambda name: name not in KERNEL_OPS)),
            ins=tuple(new[n] for n in la.ins),
            outs=tuple(new[n] for n in la.outs),
            reads=tuple(dataclasses.replace(r, tensor=new[r.tensor]) for r in la.reads),
            writes=tuple(dataclasses.replace(w, tensor=new[w.tensor]) for w in la.writes),
            scratch=tuple(dataclasses.replace(s, tag=t) for s, t in zip(la.scratch, tags, strict=True)),
        )

    tensors_ = {
        new[n]: dataclasses.replace(t, name=new[n], view_of=new[t.view_of] if t.view_of else None)
        for n, t in step.tensors.items()
    }
    return Step(
        draw(hostile_names),
        step.numerics,
        tensors_,
        [launch(la) for la in step.launches],
        frozenset(new[n] for n in step.outputs),
    )
