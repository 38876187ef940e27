"""The launch kinds of a decoder step: their operands, their parameters, and the touches and scratch that follow
from them (the reference's `touches` and `scratch()`). Plain data; the `lane` dialect's kernel ops and the frontend
both build launches through `launch()`."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from lanearena import seedhelpers as seed
from lanearena.model import QBLOCK, Form, Launch, Numerics, Other, Part, Scratch, Tensor, Touch, Whole, Write

Params = Mapping[str, int | float | str]


def _t(tag: str, elem: str, nbytes: int) -> Scratch:
    return Scratch(tag, elem, nbytes)


def _counter(tag: str, nbytes: int) -> Scratch:
    return Scratch(tag, "i32", nbytes, counter=True)


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


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
    """The scratch of a product cut along `k` in `split` parts (lanearena's own under int8, where the seed's
    projections are not cut off the tensor cores): each part's sums (`copies` products at once: two for a gated
    pair's gate and up), and each tile's count of parts arrived. An `f32` product (`gemv` under f32) is the seed's
    `GemvF32` cut along `k`: its parts' sums are whole 64 x 64 tiles, counted a tile."""

    def scratch(t: list[Tensor], o: list[Tensor], p: Params, numerics: Numerics) -> list[Scratch]:
        x, w = t[0], t[1]
        n, k = w.shape[0], w.shape[-1]
        split = int(p.get("split", 1))
        if split <= 1:
            return []
        rows = rows_of(x, k)
        tiles = cdiv(n, seed.F32_TILE) * cdiv(rows, seed.F32_TILE)
        if copies == 1 and seed.multiplies_in_tiles(numerics):
            return [_t(parts, "f32", tiles * split * 256 * 16 * 4), _counter(counts, tiles * 4)]
        if copies == 1:
            return [_t(parts, "f32", split * rows * n * 4), _counter(counts, tiles * 4)]
        return [_t(parts, "f32", copies * split * rows * n * 4), _counter(counts, rows * cdiv(n, 64) * 4)]

    return scratch


def _tile_scratch(gated: bool):
    """A projection on the tensor cores (`gemm_tc`, `glu_tc`): its last wave's tiles past the `whole` first ones cut
    along `k` in `split` parts, each part's sums and each cut tile's count of parts arrived (a gated pair's tile
    holds the gate and up sums of half as many outputs); a batch's gated pair uncut, its gate's and its up's sums,
    gated after."""

    def scratch(t: list[Tensor], o: list[Tensor], p: Params, numerics: Numerics) -> list[Scratch]:
        x, w = t[0], t[1]
        n, k = w.shape[0], w.shape[-1]
        m = rows_of(x, k)
        split, whole = int(p.get("split", 1)), int(p.get("whole", 0))
        if split > 1:
            rows = seed.gemm_rows(m, numerics)
            tiles = seed.gemm_tiles_wide(2 * n if gated else n) * cdiv(m, rows)
            cut = max(tiles - whole, 0)
            return [_t("tp", "f32", cut * split * rows * seed.GEMM_TILE_N * 4), _counter("tc", cut * 4)]
        if gated and m > 1:
            return [_t("mg", "f32", m * n * 4), _t("mu", "f32", m * n * 4)]
        return []

    return scratch


def _attention_scratch(t: list[Tensor], o: list[Tensor], p: Params, numerics: Numerics) -> list[Scratch]:
    """An attention split over `splits` chunks of the cache, a head a block: each chunk's maximum, sum and weighed
    values, and each head's count of chunks arrived."""
    q = t[0]
    heads, splits = int(p["heads"]), int(p.get("splits", 1))
    if splits <= 1 or seed.attends_in_tiles():
        return []
    hd = q.shape[-1] // heads
    rows = rows_of(q, heads * hd)
    acc, elem = seed.accumulator(numerics)
    return [_t("ap", elem, rows * heads * splits * (hd + 2) * acc), _counter("ac", rows * heads * 4)]


def _shared_attention_scratch(t: list[Tensor], o: list[Tensor], p: Params, numerics: Numerics) -> list[Scratch]:
    """Every head of a group in one block, split over `splits` chunks: each chunk's maximum, sum and weighed values,
    folded by a second kernel (no counter); unsplit, nothing."""
    q = t[0]
    heads, splits = int(p["heads"]), int(p.get("splits", 1))
    if splits <= 1:
        return []
    hd = q.shape[-1] // heads
    rows = rows_of(q, heads * hd)
    return [_t("ap", "f32", rows * heads * splits * (hd + 2) * 4)]


def _two_word_attention_scratch(t: list[Tensor], o: list[Tensor], p: Params, numerics: Numerics) -> list[Scratch]:
    """An attention in two words: every key and value row of the cache, its high and low words, and each row's two
    scales."""
    q, kc = t[0], t[1]
    heads, kv_heads = int(p["heads"]), int(p["kv_heads"])
    hd = q.shape[-1] // heads
    k, v, sc = seed.attn_i8_scratch(kc.shape[0], kv_heads, hd, hd)
    return [_t("ak", "i8", k), _t("aw", "i8", v), _t("as", "f32", sc)]


def _mixture_shape(t: list[Tensor], p: Params) -> tuple[int, int, int, int, int]:
    """(rows, d, dff, experts, topk) of a mixture."""
    x, wg = t[0], t[2]
    dff, d = wg.shape[1], wg.shape[2]
    return rows_of(x, d), d, dff, int(p["experts"]), int(p["topk"])


def _mixture_scratch(t: list[Tensor], p: Params, numerics: Numerics, shared: int) -> list[Scratch]:
    """An expert mixture (the seed's `Moe`; `shared` the shared expert's hidden width, 0 without one). One row: its
    router logits, choices and weights, its count of blocks arrived, each choice's hidden row and the shared
    expert's, quantized under int8. A block's rows: the choices grouped by expert (counts, offsets, the grouped
    list, each choice's place), each choice's weighed result, hidden row (gate and up rows apart on the tensor
    cores, none when the paired GEMM quantizes it), gathered activation row (quantized under int8), and a router
    cut along `k`'s parts and counts."""
    rows, d, dff, experts, k = _mixture_shape(t, p)
    quantized = numerics is not Numerics.F32
    if rows == 1:
        hidden = k * dff + shared
        v = [
            _t("i", "i32", k * 4),
            _t("g", "f32", k * 4),
            _t("h", "f32", hidden * 4),
            _t("rl", "f32", experts * 4),
            _counter("rc", 4),
        ]
        if quantized:
            v += _quantized(("hq", "hl", "hs"), hidden, numerics)
        return v
    choices = rows * k
    acc, elem = seed.accumulator(numerics)
    tc, paired = bool(p.get("tc", 0)), bool(p.get("paired", 0))
    v = [
        _t("i", "i32", choices * 4),
        _t("g", "f32", choices * 4),
        _t("rl", "f32", rows * experts * 4),
        _counter("rc", rows * 4),
        _t("ec", "i32", experts * 4),
        _t("eo", "i32", (experts + 1) * 4),
        _t("el", "i32", choices * 4),
        _t("ep", "i32", choices * 4),
        _t("pa", elem, choices * d * acc),
    ]
    if not paired:
        v.append(_t("h", "f32", choices * dff * 4))
    if not quantized:
        v.append(_t("gx", "f32", choices * d * 4))
    else:
        v += _quantized(("gq", "gl", "gs"), choices * d, numerics)
        v += _quantized(("hq", "hl", "hs"), choices * dff, numerics)
    if tc and not paired:
        v += [_t("hg", "f32", choices * dff * 4), _t("hu", "f32", choices * dff * 4)]
    router_split = int(p.get("router_split", 1))
    if router_split > 1:
        tiles = cdiv(experts, 64) * cdiv(rows, 64)
        v += [_t("rp", "f32", tiles * router_split * 256 * 16 * 4), _counter("rq", tiles * 4)]
    return v


def _moe_scratch(t: list[Tensor], o: list[Tensor], p: Params, numerics: Numerics) -> list[Scratch]:
    return _mixture_scratch(t, p, numerics, 0)


def _moe_shared_scratch(t: list[Tensor], o: list[Tensor], p: Params, numerics: Numerics) -> list[Scratch]:
    """A mixture with a shared expert (`w_shared_gate` [dff_s, d]): its hidden row after the choices'."""
    return _mixture_scratch(t, p, numerics, t[5].shape[0])


ARGMAX_BLOCK = seed.ARGMAX_BLOCK
"""Values of a row each arg-max block reduces."""


def _argmax_scratch(t: list[Tensor], o: list[Tensor], p: Params, numerics: Numerics) -> list[Scratch]:
    """An arg-max in blocks: each block's maximum and its index, and each row's count of blocks arrived."""
    logits = t[0]
    vocab = logits.shape[-1]
    rows = rows_of(logits, vocab)
    blocks = seed.argmax_blocks(vocab)
    return [_t("av", "f32", rows * blocks * 4), _t("ai", "i32", rows * blocks * 4), _counter("ac", rows * 4)]


def _delta_shape(t: list[Tensor], o: list[Tensor]) -> tuple[int, int, int]:
    """(rows, hv, d) of a gated delta rule: rows of z [rows, hv * d], a state [hv, d, d]."""
    state = o[0]
    hv, d = state.shape[0], state.shape[-1]
    return t[1].length // (hv * d), hv, d


def _delta_scratch(t: list[Tensor], o: list[Tensor], p: Params, numerics: Numerics) -> list[Scratch]:
    """The gated delta rule (one sequence). In chunks: the unnormed outputs, and each chunk's decayed keys and
    queries, `T·diag(β)`, masked scores and decays. Stepped a row at a time: the unnormed outputs, and each head's
    count of blocks arrived, for the last to norm the head."""
    rows, hv, d = _delta_shape(t, o)
    seqs = 1
    if seed.delta_in_chunks(rows):
        kg, qg, tb, sc, dec = seed.delta_chunk_scratch(cdiv(rows, seed.DELTA_CHUNK), hv, d)
        return [
            _t("o", "f32", rows * hv * d * 4),
            _t("dk", "f32", kg * 4),
            _t("dq", "f32", qg * 4),
            _t("dt", "f32", tb * 4),
            _t("dp", "f32", sc * 4),
            _t("dg", "f32", dec * 4),
        ]
    return [_t("o", "f32", rows * hv * d * seqs * 4), _counter("dc", hv * seqs * 4)]


def _fold(first: Callable, gc: Callable[[list[Tensor], Params], int | None]):
    """A fused launch (the seed's `Fold`): its first part's scratch, and the count `gc` of its blocks arrived where
    the fusion needs one (`gc` gives its bytes, or None)."""

    def scratch(t: list[Tensor], o: list[Tensor], p: Params, numerics: Numerics) -> list[Scratch]:
        v = first(t, o, p, numerics)
        nbytes = gc(t, p)
        return v + ([_counter("gc", nbytes)] if nbytes is not None else [])

    return scratch


def _mixture_rows(t: list[Tensor], p: Params) -> int:
    return _mixture_shape(t, p)[0]


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
    updates: tuple[str, ...] = ()
    """The outputs it also reads (state it updates in place: a convolution's window, a delta rule's state); their
    writes are of another kind, never whole."""


_MIXTURE = ("x", "w_router", "w_gate", "w_up", "w_down")
_MIXTURE_PARAMS = {"experts": None, "topk": None, "router_split": 1, "tc": 0, "paired": 0}
_ATTENTION = ("q", "k_cache", "v_cache", "pos")


def _rope_heads(t: list[Tensor], p: Params) -> int:
    """A projection that turns its heads as it finishes: each turned head's count of rows written."""
    return (int(p["heads"]) + int(p["kv_heads"])) * 4


def _mixture_norm(t: list[Tensor], p: Params) -> int | None:
    """A chunk's mixture norms each row in the block that combines it; the decode step's in its last block, which
    counts its blocks arrived."""
    return None if _mixture_rows(t, p) > 1 else 4


KINDS: dict[str, Kind] = {
    k.name: k
    for k in (
        Kind("gather", ("table", "ids"), ("out",), ("table",), {}, _none, ints=("ids",)),
        Kind("norm", ("x", "gain"), ("out",), ("gain",), {"eps": 1e-6}, _none, quant=("out",), f32_weights=("gain",)),
        Kind("quantize", ("x",), ("out",), (), {}, _none, quant=("out",)),
        Kind(
            "gemv", ("x", "w"), ("out",), ("w",), {"split": 1}, _split_scratch("fp", "fq", 1), quant=("x",), parts=True
        ),
        Kind(
            "glu",
            ("x", "w_gate", "w_up"),
            ("out",),
            ("w_gate", "w_up"),
            {"split": 1},
            _split_scratch("gp", "gq", 2),
            quant=("x",),
        ),
        Kind("gemm_tc", ("x", "w"), ("out",), ("w",), {"split": 1, "whole": 0}, _tile_scratch(False), quant=("x",)),
        Kind(
            "glu_tc",
            ("x", "w_gate", "w_up"),
            ("out",),
            ("w_gate", "w_up"),
            {"split": 1, "whole": 0},
            _tile_scratch(True),
            quant=("x",),
        ),
        Kind(
            "rope",
            ("pos",),
            ("x",),
            (),
            {"heads": None, "theta": 1e6, "rotary": 0},
            _none,
            in_place=True,
            ints=("pos",),
        ),
        Kind("kv_store", ("k", "v", "pos"), ("k_cache", "v_cache"), (), {}, _none, scattered=True, ints=("pos",)),
        Kind(
            "attention",
            _ATTENTION,
            ("out",),
            (),
            {"heads": None, "kv_heads": None, "splits": 1},
            _attention_scratch,
            ints=("pos",),
        ),
        Kind(
            "attention_shared",
            _ATTENTION,
            ("out",),
            (),
            {"heads": None, "kv_heads": None, "splits": 1},
            _shared_attention_scratch,
            ints=("pos",),
        ),
        Kind(
            "attention_i8x2",
            _ATTENTION,
            ("out",),
            (),
            {"heads": None, "kv_heads": None},
            _two_word_attention_scratch,
            ints=("pos",),
        ),
        Kind(
            "moe",
            _MIXTURE,
            ("out",),
            _MIXTURE[1:],
            _MIXTURE_PARAMS,
            _moe_scratch,
            quant=("x",),
            f32_weights=("w_router",),
        ),
        Kind(
            "moe_shared",
            (*_MIXTURE, "w_shared_gate", "w_shared_up", "w_shared_down", "w_shared_router"),
            ("out",),
            (*_MIXTURE[1:], "w_shared_gate", "w_shared_up", "w_shared_down", "w_shared_router"),
            _MIXTURE_PARAMS,
            _moe_shared_scratch,
            quant=("x",),
            f32_weights=("w_router", "w_shared_router"),
        ),
        Kind("binary", ("a", "b"), ("out",), (), {"op": "add"}, _none),
        Kind("argmax", ("logits",), ("out",), (), {}, _argmax_scratch, ints=("out",)),
        Kind("conv", ("x", "w"), ("state", "out"), ("w",), {}, _none, f32_weights=("w",), updates=("state",)),
        Kind(
            "delta",
            ("qkv", "z", "ab", "a_log", "dt_bias", "gain"),
            ("state", "out"),
            ("a_log", "dt_bias", "gain"),
            {"key_heads": None, "eps": 1e-6},
            _delta_scratch,
            quant=("out",),
            f32_weights=("a_log", "dt_bias", "gain"),
            updates=("state",),
        ),
        # Fused launches (the seed's `Fold`): the first part's scratch, and a count of blocks by the seed's rules.
        Kind(
            "gather_norm",
            ("table", "ids", "gain"),
            ("x", "out"),
            ("table", "gain"),
            {"eps": 1e-6},
            _none,
            ints=("ids",),
            quant=("out",),
            f32_weights=("gain",),
        ),
        Kind(
            "gemv_rope",
            ("x", "w", "pos"),
            ("out",),
            ("w",),
            {"split": 1, "heads": None, "kv_heads": None, "theta": 1e6},
            _fold(lambda t, o, p, n: _split_scratch("fp", "fq", 1)(t[:2], o, p, n), _rope_heads),
            quant=("x",),
            ints=("pos",),
        ),
        Kind(
            "gemv_norm",
            ("x", "w", "gain"),
            ("out", "normed"),
            ("w", "gain"),
            {"split": 1, "eps": 1e-6},
            _fold(lambda t, o, p, n: _split_scratch("fp", "fq", 1)(t[:2], o, p, n), lambda t, p: 4),
            quant=("x", "normed"),
            f32_weights=("gain",),
        ),
        Kind(
            "moe_add",
            (*_MIXTURE, "residual"),
            ("out",),
            _MIXTURE[1:],
            _MIXTURE_PARAMS,
            _fold(_moe_scratch, lambda t, p: None),
            quant=("x",),
            f32_weights=("w_router",),
        ),
        Kind(
            "moe_add_norm",
            (*_MIXTURE, "residual", "gain"),
            ("out", "normed"),
            (*_MIXTURE[1:], "gain"),
            {**_MIXTURE_PARAMS, "eps": 1e-6},
            _fold(_moe_scratch, _mixture_norm),
            quant=("x", "normed"),
            f32_weights=("w_router", "gain"),
        ),
    )
}

BINARY_OPS = ("add", "mul", "gate")
"""add: a + b; mul: a * b; gate: a * sigmoid(b) (an attention output gated, Qwen3-Next)."""

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
    names = dict.fromkeys(t.name for t, _ in outs)
    updated = {name for name, operand in zip(names, k.outs, strict=False) if operand in k.updates}
    reads += [Touch(t.name, f) for t, f in outs if t.name in updated]
    writes = tuple(Write(t.name, f, Other() if t.name in updated else how) for t, f in outs)
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
