"""A Hypothesis strategy for steps the lowering runs: launches of every kernel kind chained over one step, their
activations read fresh or through views of what earlier launches wrote (nested, quantized on and off a block
boundary, off by half a block), a projection written in parts of every row (joined, or leaving gaps of one element
and more), state updated in place, under all three numerics. Every step verifies, places and runs on the numpy
runtime, so that the run can be held to the independent reference (`reference_step`).

Built with the `StepBuilder` (the stable way in), as a module; `step_of` gives its plain step."""

from __future__ import annotations

import math
import random

from hypothesis import strategies as st
from xdsl.dialects.builtin import ModuleOp

from lanearena.frontend.builder import StepBuilder
from lanearena.model import Numerics

QBLOCK = 32
"""Values per scale of a quantized array: where a view reads its tensor's quantized array in place."""

CACHE = 8
"""Rows of every key/value cache: at least the most rows a launch takes."""


class _Step:
    """A step under construction and what it has written so far: each computed tensor's (or view's) written
    forms, lengths and what it views, the readable ones in `pool`."""

    def __init__(self, rnd: random.Random, numerics: Numerics):
        self.rnd, self.numerics = rnd, numerics
        self.b = StepBuilder("kernels", numerics)
        self.quantizes = numerics.quantized
        self.count = 0
        self.values: dict = {}
        self.lengths: dict[str, int] = {}
        self.forms: dict[str, tuple[str, ...]] = {}
        self.written: dict[str, set[str]] = {}
        self.view_of: dict[str, tuple[str, int]] = {}
        self.pool: list[str] = []
        self.made: list[str] = []
        """Tensors the kinds' launches made (not the helpers' copies of inputs), in order."""
        self.read_later: set[str] = set()
        """Tensors (at the bottom of their views) some launch read after they were made."""

    # Drawing

    def one(self, *choices):
        return self.rnd.choice(choices)

    def int(self, low: int, high: int) -> int:
        return self.rnd.randint(low, high)

    def flip(self) -> bool:
        return self.rnd.random() < 0.5

    def rows(self) -> int:
        return self.one(1, 1, 2, 3)

    def name(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}{self.count}"

    def may_quant(self, n: int) -> bool:
        """Whether to read or write `n` values quantized (under int8 numerics, whole blocks, now and then)."""
        return self.quantizes and n % QBLOCK == 0 and self.int(0, 3) > 0

    # Tensors

    def input(self, shape, elem: str = "f32"):
        return self.b.input(self.name("in"), shape, elem)

    def weight(self, shape, f32_only: bool = False, router: bool = False):
        """A weight: f32 where its kernels take only f32; under bf16 numerics bf16 (a launch's matrices are all bf16
        or none); else now and then Q8_0, but never a router."""
        if not f32_only and self.numerics is Numerics.BF16:
            return self.b.weight(self.name("w"), shape, "bf16")
        i8 = not f32_only and not router and shape[-1] % QBLOCK == 0 and self.flip()
        return self.b.weight(self.name("w"), shape, "i8" if i8 else "f32")

    def state(self, shape):
        return self.b.state(self.name("s"), shape)

    def tensor(self, shape, forms=None, elem: str = "f32"):
        """A computed tensor allocated in `forms`; by default plain, and now and then quant besides, so that a
        view may later read its quantized form in place."""
        if forms is None:
            spare = self.quantizes and elem == "f32" and math.prod(shape) % QBLOCK == 0 and self.flip()
            forms = ("plain", "quant") if spare else ("plain",)
        name = self.name("t")
        v = self.b.tensor(name, shape, elem, forms)
        self.values[name], self.lengths[name], self.forms[name] = v, math.prod(shape), tuple(forms)
        self.written[name] = set()
        return v

    def done(self, v, forms=("plain",), made: bool = True) -> None:
        """Tensor `v` written in `forms`: readable from now on."""
        name = v.owner.tensor_name
        self.written[name].update(forms)
        if name not in self.pool:
            self.pool.append(name)
        if made and name not in self.made:
            self.made.append(name)

    def root(self, name: str) -> str:
        while name in self.view_of:
            name = self.view_of[name][0]
        return name

    def quant_home(self, name: str) -> str:
        """The tensor whose quantized array `name` reads: views are followed while they start on a block."""
        while name in self.view_of and self.view_of[name][1] % QBLOCK == 0:
            name = self.view_of[name][0]
        return name

    # Activations

    def act(self, shape, quant: bool = False) -> tuple:
        """A written activation of `shape` as (value, form): a fresh copy of an input, a view of what the step
        wrote before, or a view (now and then of a view) of a wider fresh copy; read quantized where `quant`."""
        n = math.prod(shape)
        how = (
            self.one("fresh", "earlier", "wider", "wider")
            if quant
            else self.one("fresh", "earlier", "earlier", "wider")
        )
        if how == "earlier":
            bases = [p for p in self.pool if self.lengths[p] >= n and "plain" in self.written[p]]
            if quant:  # those whose quantized form a view may read in place, where there are
                bases = [p for p in bases if "quant" in self.forms[self.quant_home(p)]] or bases
            v = self.view_into(self.one(*bases), shape, quant) if bases else None
            if v is not None:
                return v, "quant" if quant else "plain"
        if how == "wider":
            pad = self.one(16, 32, 64, 96)
            base = self.fresh((n + pad,), ("plain", "quant") if quant and pad % QBLOCK == 0 else None)
            if self.flip():  # a view of a view
                wide = n + QBLOCK * self.int(0, pad // QBLOCK) if quant else n + pad // 2
                base = self.view_into(base.owner.tensor_name, (wide,), False, spare=quant)
            v = self.view_into(base.owner.tensor_name, shape, quant)
            if v is not None:
                return v, "quant" if quant else "plain"
        t = self.fresh(shape, ("plain", "quant") if quant else None)
        if quant:
            self.b.launch("quantize", [t], [(t, "quant")])
            self.written[t.owner.tensor_name].add("quant")
        return t, "quant" if quant else "plain"

    def fresh(self, shape, forms):
        """A computed tensor (allocated in `forms`) written whole from an input."""
        t = self.tensor(shape, forms)
        given = self.input(shape)
        self.b.launch("binary", [given, given], [t], op="add")
        self.done(t, made=False)
        return t

    def offset(self, total: int, n: int, quant: bool) -> int:
        """An offset for `n` values in `total`: on a block boundary past the first, half a block off, or anywhere
        (for a quantized view, each as often; else mostly on a block)."""
        room = total - n
        kind = self.one("block", "half", "any") if quant else self.one("block", "block", "half", "any")
        if kind == "block" and room >= QBLOCK:
            return QBLOCK * self.int(1, room // QBLOCK)
        if kind == "half" and room >= QBLOCK // 2:
            return QBLOCK // 2 + QBLOCK * self.int(0, (room - QBLOCK // 2) // QBLOCK)
        return self.int(0, room)

    def view_into(self, base: str, shape, quant: bool, spare: bool = False):
        """A view of `shape` into `base` at a drawn offset, its quantized array written where `quant` (its own, or
        the array of the tensor it reads in place), allocated besides where `spare` (so that a view of it may read
        it in place); None where `base` cannot give one."""
        n = math.prod(shape)
        at = self.offset(self.lengths[base], n, quant)
        home = self.quant_home(base) if at % QBLOCK == 0 else None
        if quant and (n % QBLOCK or (home is not None and "quant" not in self.forms[home])):
            return None
        name = self.name("v")
        forms = ("plain", "quant") if quant or (spare and n % QBLOCK == 0) else ("plain",)
        v = self.b.view(name, self.values[base], at, shape, forms)
        self.read_later.add(self.root(base))
        self.values[name], self.lengths[name], self.forms[name] = v, n, forms
        self.view_of[name] = (base, at)
        self.written[name] = {"plain"}
        if self.flip():
            self.pool.append(name)
        if quant:
            home = home or name
            if "quant" not in self.written[home]:
                self.b.launch("quantize", [self.values[home]], [(self.values[home], "quant")])
                self.written[home].add("quant")
        return v


# --- A launch of each kind, over drawn shapes ---------------------------------------------------------------------


def _gather(s: _Step) -> None:
    rows, d = s.rows(), s.one(32, 64)
    out = s.tensor((rows, d))
    s.b.launch("gather", [s.weight((s.one(8, 20), d)), s.input((rows,), "i32")], [out])
    s.done(out)


def _norm(s: _Step) -> None:
    rows, d = s.rows(), s.one(32, 48, 64)
    x, _ = s.act((rows, d))
    forms = s.one(("plain",), ("plain", "quant"), ("quant",)) if s.may_quant(d) else ("plain",)
    out = s.tensor((rows, d), forms)
    s.b.launch("norm", [x, s.weight((d,), True)], [(out, forms)], eps=s.one(1e-6, 1e-5))
    s.done(out, forms)
    if forms == ("quant",):
        _read_quantized(s, out, rows, d)


def _read_quantized(s: _Step, q, rows: int, k: int) -> None:
    """A projection reading `q` quantized, so that its values reach a plain result."""
    out = s.tensor((rows, 16))
    s.b.launch("gemv", [(q, "quant"), s.weight((16, k))], [out])
    s.done(out)


def _quantize(s: _Step) -> None:
    """A quantize, and a projection reading what it wrote: all of it, or through a view a block or two in."""
    rows, k, skip = s.rows(), s.one(32, 64), QBLOCK * s.one(0, 1, 2)
    x, _ = s.act((rows * k + skip,))
    q = s.tensor((rows * k + skip,), s.one(("quant",), ("plain", "quant")))
    s.b.launch("quantize", [x], [(q, "quant")])
    s.done(q, ("quant",))
    if skip:
        q = s.b.view(s.name("v"), q, skip, (rows, k), ("plain", "quant"))
    _read_quantized(s, q, rows, k)


def _product(s: _Step, kind: str) -> None:
    # n = 20: a Q8_0 weight whose values are no whole number of 256 bytes, so its scales start past a gap.
    rows, k, n = s.rows(), s.one(32, 48, 64, 96), s.one(16, 20, 32, 48, 64)
    quant = s.may_quant(k)
    x, form = s.act((rows, k), quant)
    gated = kind in ("glu", "glu_tc", "glu_bias")
    f32_only = k % QBLOCK != 0
    weights = [s.weight((n, k), f32_only) for _ in range(2 if gated else 1)]
    if kind.endswith("_bias"):  # a bias a projection: gemv_bias's one, glu_bias's gate's and up's
        weights += [s.weight((n,), True) for _ in range(2 if gated else 1)]
    params = {"split": s.one(1, 2, 3)}
    if kind.endswith("_tc") and params["split"] > 1:
        tiles = -(-(2 * n if gated else n) // 64)
        whole = s.int(0, tiles - 1)
        params |= {"whole": whole} if whole else {}  # 0, the default, is left out
    out = s.tensor((rows, n))
    s.b.launch(kind, [(x, form), *weights], [out], **params)
    s.done(out)


def _parts(s: _Step) -> None:
    """Two projections writing parts of every row of one tensor: side by side, or with a gap between (of one
    element, or more) that nothing writes; a view reads the first part."""
    rows, k = s.rows(), s.one(32, 64)
    widths, gap = (s.one(16, 32), s.one(16, 32)), s.one(0, 0, 1, 1, 3)
    pitch = widths[0] + gap + widths[1]
    out = s.tensor((rows * pitch,))
    for start, n in ((0, widths[0]), (widths[0] + gap, widths[1])):
        x, form = s.act((rows, k), s.may_quant(k))
        s.b.launch("gemv", [(x, form), s.weight((n, k))], [out], split=s.one(1, 2), pitch=pitch, start=start, width=n)
    if gap == 0:  # whole: read by a later launch, so that it may live in the arena
        s.done(out, made=False)
        both = s.tensor((rows * pitch,))
        s.b.launch("binary", [out, out], [both], op="add")
        s.done(both)
        return
    first = s.name("v")
    v = s.b.view(first, out, 0, (widths[0],))
    s.values[first], s.lengths[first], s.forms[first] = v, widths[0], ("plain",)
    s.view_of[first] = (out.owner.tensor_name, 0)
    s.written[first] = {"plain"}
    s.done(v, made=False)


def _rope(s: _Step) -> None:
    rows, heads, hd = s.rows(), s.one(1, 2), s.one(8, 16)
    x, _ = s.act((rows, heads * hd))
    rotary = {"rotary": hd // 2} if s.flip() and hd % 4 == 0 else {}
    # Scaled as transformers' rope types; lengths short enough that a step's few positions pass them.
    scaling = s.one(
        {},
        {"scaling": "linear", "factor": 4.0},
        {"scaling": "dynamic", "factor": 2.0, "original": s.one(1, 2)},
        {"scaling": "llama3", "factor": 8.0, "low_freq": 1.0, "high_freq": 4.0, "original": s.one(16, 64)},
    )
    if scaling.get("scaling") == "dynamic" and (rotary.get("rotary") or hd) <= 2:
        scaling = {}
    theta = s.one(1e4, 1e6)
    s.b.launch("rope", [s.input((rows,), "i32")], [x], heads=heads, theta=theta, **rotary, **scaling)


def _caches(s: _Step, rows: int, width: int, pos) -> tuple:
    """A key and a value cache, and now and then a store of this step's rows into them first."""
    caches = [s.state((CACHE, width)) for _ in range(2)]
    if s.flip():
        (k, _), (v, _) = s.act((rows, width)), s.act((rows, width))
        s.b.launch("kv_store", [k, v, pos], caches)
    return caches


def _kv_store(s: _Step) -> None:
    rows, width = s.rows(), s.one(16, 32)
    (k, _), (v, _) = s.act((rows, width)), s.act((rows, width))
    s.b.launch("kv_store", [k, v, s.input((rows,), "i32")], [s.state((CACHE, width)) for _ in range(2)])


def _attention(s: _Step, kind: str) -> None:
    rows, heads, hd = s.rows(), s.one(2, 4), s.one(8, 16)
    kv = s.one(*(g for g in (1, 2) if heads % g == 0))
    pos = s.input((rows,), "i32")
    q, _ = s.act((rows, heads * hd))
    caches = _caches(s, rows, kv * hd, pos)
    params = {"heads": heads, "kv_heads": kv} | ({} if kind == "attention_i8x2" else {"splits": s.one(1, 2, 3)})
    window = s.one(0, 0, 1, 2, 5)  # a sliding window of a few of the cache's positions, now and then
    params |= {"window": window} if window else {}
    out = s.tensor((rows, heads * hd))
    s.b.launch(kind, [q, *caches, pos], [out], **params)
    s.done(out)


def _mixture(s: _Step, kind: str) -> None:
    rows, d, f, experts = s.rows(), s.one(32, 64), s.one(32, 64), s.one(2, 3, 4)
    quant = s.may_quant(d)
    x, form = s.act((rows * d,), quant)
    ins = [(x, form), s.weight((experts, d), router=True)]
    ins += [s.weight((experts, f, d)), s.weight((experts, f, d)), s.weight((experts, d, f))]
    if kind in ("moe_shared", "moe_shared_add"):
        fs = 32
        ins += [s.weight((fs, d)), s.weight((fs, d)), s.weight((d, fs)), s.weight((1, d), router=True)]
    if kind in ("moe_add", "moe_add_norm", "moe_shared_add"):
        ins.append(s.act((rows * d,))[0])
    params = {"experts": experts, "topk": s.int(1, experts)}
    if s.flip():  # Qwen2-MoE's gates: the chosen experts' shares of the softmax over all
        params["gates"] = "all"
    if rows > 1 and s.flip():
        params["router_split"] = 2
    out = s.tensor((rows * d,))
    outs = [out]
    forms = ("plain",)
    if kind == "moe_add_norm":
        ins.append(s.weight((d,), True))
        forms = s.one(("plain",), ("plain", "quant")) if s.may_quant(d) else ("plain",)
        normed = s.tensor((rows * d,), forms)
        outs.append((normed, forms))
    s.b.launch(kind, ins, outs, **params)
    s.done(out)
    if kind == "moe_add_norm":
        s.done(normed, forms)


def _binary(s: _Step) -> None:
    n = s.one(16, 64, 100)
    (a, _), (b, _) = s.act((n,)), s.act((n,))
    out = s.tensor((n,))
    s.b.launch("binary", [a, b], [out], op=s.one("add", "mul", "gate"))
    s.done(out)


def _argmax(s: _Step) -> None:
    rows, vocab = s.rows(), s.one(10, 40, 1030)
    logits, _ = s.act((rows, vocab))
    token = s.tensor((rows,), elem="i32")
    s.b.launch("argmax", [logits], [token])
    s.done(token)


def _conv(s: _Step) -> None:
    rows, channels, taps = s.rows(), s.one(16, 32), s.one(2, 3, 4)
    x, _ = s.act((rows, channels))
    out = s.tensor((rows, channels))
    s.b.launch("conv", [x, s.weight((channels, taps), True)], [s.state((taps - 1, channels)), out])
    s.done(out)


def _delta(s: _Step) -> None:
    rows, hk, d = s.rows(), s.one(1, 2), 32
    hv = hk * s.one(1, 2)
    ins = [s.act((rows, n))[0] for n in ((2 * hk + hv) * d, hv * d, 2 * hv)]
    ins += [s.weight((hv,), True), s.weight((hv,), True), s.weight((d,), True)]
    forms = s.one(("plain",), ("plain", "quant")) if s.may_quant(d) else ("plain",)
    out = s.tensor((rows, hv * d), forms)
    s.b.launch("delta", ins, [s.state((hv, d, d)), (out, forms)], key_heads=hk)
    s.done(out, forms)


def _gather_norm(s: _Step) -> None:
    rows, d = s.rows(), s.one(32, 64)
    forms = s.one(("plain",), ("plain", "quant")) if s.may_quant(d) else ("plain",)
    x, out = s.tensor((rows, d)), s.tensor((rows, d), forms)
    ins = [s.weight((s.one(8, 20), d)), s.input((rows,), "i32"), s.weight((d,), True)]
    s.b.launch("gather_norm", ins, [x, (out, forms)])
    s.done(x)
    s.done(out, forms)


def _gemv_rope(s: _Step) -> None:
    rows, k, heads, hd = s.rows(), s.one(32, 64), s.one(1, 2), s.one(8, 16)
    n = (heads + 2) * hd
    quant = s.may_quant(k)
    x, form = s.act((rows, k), quant)
    out = s.tensor((rows, n))
    params = {"split": s.one(1, 2), "heads": heads, "kv_heads": 1, "theta": s.one(1e4, 1e6)}
    s.b.launch("gemv_rope", [(x, form), s.weight((n, k)), s.input((rows,), "i32")], [out], **params)
    s.done(out)


def _gemv_norm(s: _Step) -> None:
    rows, k, n = s.rows(), s.one(32, 64), s.one(32, 64)
    quant = s.may_quant(k)
    x, form = s.act((rows, k), quant)
    forms = s.one(("plain",), ("plain", "quant")) if s.may_quant(n) else ("plain",)
    out, normed = s.tensor((rows, n)), s.tensor((rows, n), forms)
    s.b.launch("gemv_norm", [(x, form), s.weight((n, k)), s.weight((n,), True)], [out, (normed, forms)], split=2)
    s.done(out)
    s.done(normed, forms)


def _fused_product(s: _Step, kind: str) -> None:
    """A product with its prologue and epilogue (lane-fuse's kinds): x normed (norm_*) or read as it is, quantized in
    the prologue now and then; the residual added (gemv_add*), then normed (gemv_add_norm); a gated pair's result
    written quantized now and then."""
    rows, k, n = s.rows(), s.one(32, 64, 96), s.one(32, 64)
    normed, gated = kind.startswith("norm_"), kind == "norm_glu"
    prologue = s.may_quant(k)
    if normed or prologue:
        x, form = s.act((rows, k))
    else:
        x, form = s.act((rows, k), s.may_quant(k))
    ins = [(x, form)]
    if normed:
        ins.append(s.weight((k,), True))
    ins += [s.weight((n, k)) for _ in range(2 if gated else 1)]
    if kind == "norm_gemv_bias":
        ins.append(s.weight((n,), True))
    if kind.startswith("gemv_add"):
        ins.append(s.act((rows, n))[0])
    if kind == "gemv_add_norm":
        ins.append(s.weight((n,), True))
    params: dict = {"split": s.one(1, 2, 3)} | ({"quantize": 1} if prologue else {})
    if normed or kind == "gemv_add_norm":
        params["eps"] = s.one(1e-6, 1e-5)
    out_forms = s.one(("plain",), ("quant",), ("plain", "quant")) if gated and s.may_quant(n) else ("plain",)
    out = s.tensor((rows, n), out_forms)
    outs: list = [(out, out_forms)]
    if kind == "gemv_add_norm":
        normed_forms = s.one(("plain",), ("plain", "quant")) if s.may_quant(n) else ("plain",)
        normed_out = s.tensor((rows, n), normed_forms)
        outs.append((normed_out, normed_forms))
    s.b.launch(kind, ins, outs, **params)
    s.done(out, out_forms)
    if "quant" in out_forms and "plain" not in out_forms:
        _read_quantized(s, out, rows, n)
    if kind == "gemv_add_norm":
        s.done(normed_out, normed_forms)


def _rope_attention(s: _Step, normed: bool) -> None:
    """An attention group in one launch, a decode row's or a chunk's: q, k and v read as activations, the caches'
    new rows at the drawn positions (in two words now and then under int8x2), over a window now and then, turned by
    any scaling."""
    rows, kv, group, hd = s.rows(), s.one(1, 2), s.one(1, 2, 4), s.one(8, 16)
    heads = kv * group
    (q, _), (k, _), (v, _) = (s.act((rows, n * hd)) for n in (heads, kv, kv))
    pos = s.input((rows,), "i32")
    gains = [s.weight((hd,), True) for _ in range(2)] if normed else []
    caches = [s.state((CACHE, kv * hd)) for _ in range(2)]
    params = {"heads": heads, "kv_heads": kv, "splits": s.one(1, 2, 3), "theta": s.one(1e4, 1e6)}
    window = s.one(0, 0, 2, 5)
    params |= {"window": window} if window else {}
    params |= s.one({}, {"scaling": "linear", "factor": 4.0}, {"scaling": "dynamic", "factor": 2.0, "original": 2})
    if s.numerics.two_words and s.flip():
        params["two_words"] = 1
    out = s.tensor((rows, heads * hd))
    kind = "norm_rope_attention" if normed else "rope_attention"
    s.b.launch(kind, [q, k, v, pos, *gains], [*caches, out], **params)
    s.done(out)


BUILD = {
    "gather": _gather,
    "norm": _norm,
    "quantize": _quantize,
    "gemv": lambda s: _product(s, "gemv"),
    "glu": lambda s: _product(s, "glu"),
    "gemv_bias": lambda s: _product(s, "gemv_bias"),
    "glu_bias": lambda s: _product(s, "glu_bias"),
    "gemm_tc": lambda s: _product(s, "gemm_tc"),
    "glu_tc": lambda s: _product(s, "glu_tc"),
    "rope": _rope,
    "kv_store": _kv_store,
    "attention": lambda s: _attention(s, "attention"),
    "attention_shared": lambda s: _attention(s, "attention_shared"),
    "attention_i8x2": lambda s: _attention(s, "attention_i8x2"),
    "moe": lambda s: _mixture(s, "moe"),
    "moe_shared": lambda s: _mixture(s, "moe_shared"),
    "moe_add": lambda s: _mixture(s, "moe_add"),
    "moe_add_norm": lambda s: _mixture(s, "moe_add_norm"),
    "binary": _binary,
    "argmax": _argmax,
    "conv": _conv,
    "delta": _delta,
    "gather_norm": _gather_norm,
    "gemv_rope": _gemv_rope,
    "gemv_norm": _gemv_norm,
    "norm_gemv": lambda s: _fused_product(s, "norm_gemv"),
    "norm_gemv_bias": lambda s: _fused_product(s, "norm_gemv_bias"),
    "norm_glu": lambda s: _fused_product(s, "norm_glu"),
    "gemv_add": lambda s: _fused_product(s, "gemv_add"),
    "gemv_add_norm": lambda s: _fused_product(s, "gemv_add_norm"),
    "moe_shared_add": lambda s: _mixture(s, "moe_shared_add"),
    "rope_attention": lambda s: _rope_attention(s, False),
    "norm_rope_attention": lambda s: _rope_attention(s, True),
}
"""A launch of each kind (with what it reads made before it); `parts` is gemv written in parts."""

KINDS = tuple(BUILD)


def _kinds(numerics: Numerics) -> list[str]:
    """The kinds a step of `numerics` can launch: quantize under the numerics that quantize, attention_i8x2 under
    int8x2."""
    return (
        [
            k
            for k in (*KINDS, "parts")
            if (k != "quantize" or numerics.quantized) and (k != "attention_i8x2" or numerics.two_words)
        ]
        + ["parts"] * 2
        + (["attention_i8x2"] * 2 if numerics.two_words else [])
    )  # these more often


class Drawn:
    """A drawn step's module, shown (in a failing example) as its IR text rather than its objects (no dataclass:
    Hypothesis would print a dataclass field by field, the module's objects with it)."""

    def __init__(self, module: ModuleOp):
        self.module = module

    def __repr__(self) -> str:
        return str(self.module)


DRAWN_NUMERICS = (Numerics.F32, Numerics.BF16, *(Numerics.INT8, Numerics.INT8X2) * 2)
"""The numerics a step is drawn under: f32 activations a third of the time (f32 or bf16 weights), int8 the rest, as
often as before bf16 came, so the quantized forms' rules keep their reach."""


@st.composite
def kernel_steps(draw, max_launches: int = 5) -> Drawn:
    """A verified module holding one step of 1 to `max_launches` launches of drawn kinds (each with the launches
    that make what it reads), its leaves (tensors made and never read) and some others handed back as outputs."""
    # Every choice from one Random seeded by Hypothesis: drawn steps as independent as a fixed seed allows, so that
    # each kind and each way of addressing turns up in a sample about as often as in another (`test_reach`).
    rnd = draw(st.randoms(use_true_random=True))
    numerics = rnd.choice(DRAWN_NUMERICS)
    s = _Step(rnd, numerics)
    for kind in rnd.sample(_kinds(numerics), rnd.randint(1, max_launches)):
        (_parts if kind == "parts" else BUILD[kind])(s)
    outputs = [t for t in s.made if "plain" in s.written[t] and (t not in s.read_later or s.flip())]
    s.b.output(*(s.values[t] for t in outputs))
    return Drawn(s.b.module())
