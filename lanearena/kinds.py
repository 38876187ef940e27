"""The launch kinds of a decoder step: their operands, their parameters, and the touches and scratch that follow
from them (the reference's `touches` and `scratch()`). Plain data; the `lane` dialect's kernel ops and the frontend
both build launches through `launch()`."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from lanearena.model import QBLOCK, Form, Launch, Numerics, Other, Part, Scratch, Tensor, Touch, Whole, Write

Params = Mapping[str, int | float | str]


def _t(tag: str, elem: str, nbytes: int) -> Scratch:
    return Scratch(tag, elem, nbytes)


def _counter(tag: str, nbytes: int) -> Scratch:
    return Scratch(tag, "i32", nbytes, counter=True)


def rows_of(x: Tensor, width: int) -> int:
    """The rows of `x` read as rows of `width` values."""
    return x.length // width


def _quantized(tags: tuple[str, str, str], n: int, numerics: Numerics) -> list[Scratch]:
    """A quantized activation of `n` values: its words, its low words under two words, its scales."""
    q, lo, sc = tags
    v = [_t(q, "i8", n)]
    if numerics.two_words:
        v.append(_t(lo, "i8", n))
    v.append(_t(sc, "f32", n // QBLOCK * 4))
    return v


def _split_scratch(parts: str, counts: str, copies: int):
    """The scratch of a product cut along `k` in `split` parts: each part's sums (`copies` products at once: two for
    a gated pair's gate and up), and each 64-column tile's count of parts arrived."""

    def scratch(t: list[Tensor], o: list[Tensor], p: Params, numerics: Numerics) -> list[Scratch]:
        x, w = t[0], t[1]
        n, k = w.shape[0], w.shape[-1]
        split = int(p.get("split", 1))
        if split <= 1:
            return []
        rows = rows_of(x, k)
        return [_t(parts, "f32", copies * split * rows * n * 4), _counter(counts, rows * -(-n // 64) * 4)]

    return scratch


def _attention_scratch(t: list[Tensor], o: list[Tensor], p: Params, numerics: Numerics) -> list[Scratch]:
    """An attention split over `splits` chunks of the cache: each chunk's maximum, sum and weighed values, and each
    head's count of chunks arrived."""
    q = t[0]
    heads, splits = int(p["heads"]), int(p.get("splits", 1))
    if splits <= 1:
        return []
    hd = q.shape[-1] // heads
    rows = rows_of(q, heads * hd)
    return [_t("ap", "f32", rows * heads * splits * (hd + 2) * 4), _counter("ac", rows * heads * 4)]


def _moe_scratch(t: list[Tensor], o: list[Tensor], p: Params, numerics: Numerics) -> list[Scratch]:
    """An expert mixture: its router logits, choices and weights, its count of blocks arrived, each choice's hidden
    row, and that row quantized where the numerics are int8."""
    x, wg = t[0], t[2]
    experts, topk = int(p["experts"]), int(p["topk"])
    dff, d = wg.shape[1], wg.shape[2]
    rows = rows_of(x, d)
    v = [
        _t("i", "i32", rows * topk * 4),
        _t("g", "f32", rows * topk * 4),
        _t("rl", "f32", rows * experts * 4),
        _counter("rc", rows * 4),
        _t("h", "f32", rows * topk * dff * 4),
    ]
    if numerics is not Numerics.F32:
        v += _quantized(("hq", "hl", "hs"), rows * topk * dff, numerics)
    return v


ARGMAX_BLOCK = 1024
"""Values of a row each arg-max block reduces."""


def _argmax_scratch(t: list[Tensor], o: list[Tensor], p: Params, numerics: Numerics) -> list[Scratch]:
    """An arg-max in blocks: each block's maximum and its index, and each row's count of blocks arrived."""
    logits = t[0]
    vocab = logits.shape[-1]
    rows = rows_of(logits, vocab)
    blocks = -(-vocab // ARGMAX_BLOCK)
    return [_t("av", "f32", rows * blocks * 4), _t("ai", "i32", rows * blocks * 4), _counter("ac", rows * 4)]


def _none(t: list[Tensor], o: list[Tensor], p: Params, numerics: Numerics) -> list[Scratch]:
    return []


@dataclass(frozen=True)
class Kind:
    """A launch kind: the names of its read and written operands, which reads must be weights, its parameters with
    their defaults (None: required), whether it also reads what it writes (in place), and its scratch."""

    name: str
    ins: tuple[str, ...]
    outs: tuple[str, ...]
    weights: tuple[str, ...]
    params: Mapping[str, int | float | str | None]
    scratch: Callable[[list[Tensor], list[Tensor], Params, Numerics], list[Scratch]]
    in_place: bool = False
    scattered: bool = False
    """Writes a few rows of its outputs (a cache): a write of another kind, never whole."""
    quant: tuple[str, ...] = ()
    """The operands its kernels may take quantized; every other operand is plain."""
    ints: tuple[str, ...] = ()
    """The operands of i32 values (token ids, positions, tokens); every other that is no i8 weight is f32."""
    f32_weights: tuple[str, ...] = ()
    """The weights its kernels take in f32 only (the others may be Q8_0)."""
    parts: bool = False
    """Whether it may write a part of every unit of its output (`PART_PARAMS`)."""


KINDS: dict[str, Kind] = {
    k.name: k
    for k in (
        Kind("gather", ("table", "ids"), ("out",), ("table",), {}, _none, ints=("ids",)),
        Kind("norm", ("x", "gain"), ("out",), ("gain",), {"eps": 1e-6}, _none, quant=("out",), f32_weights=("gain",)),
        Kind("quantize", ("x",), ("out",), (), {}, _none, quant=("out",)),
        Kind("gemv", ("x", "w"), ("out",), ("w",), {"split": 1}, _split_scratch("fp", "fq", 1), quant=("x",),
             parts=True),
        Kind("glu", ("x", "w_gate", "w_up"), ("out",), ("w_gate", "w_up"), {"split": 1}, _split_scratch("gp", "gq", 2),
             quant=("x",)),
        Kind("rope", ("pos",), ("x",), (), {"heads": None, "theta": 1e6}, _none, in_place=True, ints=("pos",)),
        Kind("kv_store", ("k", "v", "pos"), ("k_cache", "v_cache"), (), {}, _none, scattered=True, ints=("pos",)),
        Kind(
            "attention",
            ("q", "k_cache", "v_cache", "pos"),
            ("out",),
            (),
            {"heads": None, "kv_heads": None, "splits": 1},
            _attention_scratch,
            ints=("pos",),
        ),
        Kind(
            "moe",
            ("x", "w_router", "w_gate", "w_up", "w_down"),
            ("out",),
            ("w_router", "w_gate", "w_up", "w_down"),
            {"experts": None, "topk": None},
            _moe_scratch,
            quant=("x",),
            f32_weights=("w_router",),
        ),
        Kind("binary", ("a", "b"), ("out",), (), {"op": "add"}, _none),
        Kind("argmax", ("logits",), ("out",), (), {}, _argmax_scratch, ints=("out",)),
    )
}

BINARY_OPS = ("add", "mul")

PART_PARAMS = ("pitch", "start", "width")
"""The parameters that make a launch's write a part of every unit of its output."""


def part_of(params: Params) -> Part | None:
    """The part of every unit a launch writes, from its `pitch`, `start` and `width` parameters, if it has them."""
    if "pitch" not in params:
        return None
    return Part(int(params["pitch"]), int(params["start"]), int(params["width"]))


def launch(
    kind: str,
    ins: list[tuple[Tensor, Form]],
    outs: list[tuple[Tensor, Form]],
    params: Params,
    numerics: Numerics,
    where: str = "",
) -> Launch:
    """A launch of kernel kind `kind` reading `ins` and writing `outs`, each in the form given, with its touches and
    scratch. The operands are positional, in the kind's order; an output may be given twice, once a form. A
    `pitch`/`start`/`width` parameter makes the writes a part of every unit."""
    k = KINDS[kind]
    full = {name: default for name, default in k.params.items() if default is not None}
    full.update(params)
    part = part_of(full)
    how = Other() if k.scattered else part if part is not None else Whole()
    reads = [Touch(t.name, f) for t, f in ins]
    if k.in_place:
        reads += [Touch(t.name, f) for t, f in outs]
    writes = tuple(Write(t.name, f, how) for t, f in outs)
    tensors_in = [t for t, _ in ins]
    tensors_out = [t for t, _ in outs]
    return Launch(
        kind=kind,
        ins=tuple(t.name for t in tensors_in),
        outs=tuple(dict.fromkeys(t.name for t in tensors_out)),
        params=full,
        reads=tuple(dict.fromkeys(reads)),
        writes=writes,
        scratch=tuple(k.scratch(tensors_in, tensors_out, full, numerics)),
        where=where,
    )
