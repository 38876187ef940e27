"""The kernel ops' verifiers against their kernels: a launch of every kind over operands of random shapes, forms,
element types and parameters (mostly consistent, sometimes not). Either the verifier rejects it with a message
that names the op, or it places, passes `lane-arena-verify`, lowers and runs on the numpy device exactly as the
unshared reference does: what the verifier accepts, the kernels can run."""

from __future__ import annotations

import re

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from lanearena import api
from lanearena.frontend.builder import StepBuilder
from lanearena.lowering.compile import compare, placed
from lanearena.lowering.runtime import random_feeds
from lanearena.model import QBLOCK, Numerics
from lanearena.options import PlaceOptions

from .test_reference_step import held_to_the_reference

FUZZ = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])

KINDS = ("gather", "norm", "quantize", "gemv", "glu", "rope", "kv_store", "attention", "moe", "binary", "argmax")


class Draw:
    """Sizes for one launch: each usually the one that fits, now and then another (`sized`)."""

    def __init__(self, draw, numerics: Numerics):
        self.draw, self.numerics = draw, numerics

    def one(self, *choices):
        return self.draw(st.sampled_from(choices))

    def sized(self, fits: int) -> int:
        """`fits`, or once in a while a size that may not."""
        if self.draw(st.integers(0, 9)) == 0:
            return self.draw(st.sampled_from([1, 16, 24, 32, 48, 64, fits + 1, max(1, fits - 1), 2 * fits]))
        return fits

    def quant(self, length: int) -> bool:
        """Whether an activation of `length` values is read quantized."""
        return self.numerics.quantized and length % QBLOCK == 0 and self.draw(st.booleans())

    def weight_elem(self, last: int) -> str:
        """A weight matrix's element: bf16 under bf16 numerics, else now and then Q8_0."""
        if self.numerics is Numerics.BF16:
            return "bf16"
        return "i8" if last % QBLOCK == 0 and self.draw(st.booleans()) else "f32"


def _activation(b: StepBuilder, name: str, shape: tuple[int, ...], quant: bool = False):
    """A computed f32 tensor a launch writes whole (from an input), and quantizes where `quant`."""
    given = b.input(f"{name}.in", shape)
    t = b.tensor(name, shape, forms=("plain", "quant") if quant else ("plain",))
    b.launch("binary", [given, given], [t], op="add")
    if quant:
        b.launch("quantize", [t], [(t, "quant")])
    return t


def _gather(d: Draw, b: StepBuilder, rows: int):
    width = d.one(32, 64, 48)
    table = b.weight("table", (d.one(8, 100), width), d.weight_elem(width))
    out = b.tensor("out", (rows, d.sized(width)))
    b.launch("gather", [table, b.input("ids", (rows,), "i32")], [out])
    return [out]


def _norm(d: Draw, b: StepBuilder, rows: int):
    width = d.one(32, 64, 48)
    x = _activation(b, "x", (rows, width))
    forms = ("plain", "quant") if d.quant(rows * width) else ("plain",)
    out = b.tensor("out", (rows * d.sized(width),), forms=forms)
    b.launch("norm", [x, b.weight("gain", (d.sized(width),))], [(out, forms)], eps=1e-5)
    return [out]


def _quantize(d: Draw, b: StepBuilder, rows: int):
    k = d.one(32, 64)
    x = _activation(b, "x", (rows, k))
    q = b.tensor("q", (rows * d.sized(k),), forms=("plain", "quant"))
    b.launch("quantize", [x], [(q, "quant")])
    out = b.tensor("out", (rows, 16))  # the quantized values, read by a product, reach an output
    b.launch("gemv", [(q, "quant"), b.weight("w", (16, k), "i8")], [out])
    return [out]


def _product(d: Draw, b: StepBuilder, rows: int, kind: str):
    k, n = d.one(32, 64, 96, 48), d.one(16, 32, 64)
    quant = d.quant(rows * k)
    x = _activation(b, "x", (rows, k), quant)
    elem = d.weight_elem(k)
    weights = [b.weight(w, (n, d.sized(k)), elem) for w in (("w",) if kind == "gemv" else ("w_gate", "w_up"))]
    params = {"split": d.one(1, 2, 3)}
    width = n
    if kind == "gemv" and d.draw(st.booleans()):
        pitch = n + d.one(0, 16, 32)
        params |= {"pitch": pitch, "start": d.draw(st.integers(0, pitch - n)), "width": d.sized(n)}
        width = pitch
    out = b.tensor("out", (rows, d.sized(width)))
    b.launch(kind, [(x, "quant" if quant else "plain"), *weights], [out], **params)
    return [out]


def _rope(d: Draw, b: StepBuilder, rows: int):
    heads, hd = d.one(1, 2, 4), d.one(8, 16, 6)
    x = _activation(b, "x", (rows, d.sized(heads * hd)))
    b.launch("rope", [b.input("pos", (rows,), "i32")], [x], heads=heads, theta=1e4)
    return [x]


def _kv_store(d: Draw, b: StepBuilder, rows: int):
    width = d.one(16, 32)
    k, v = _activation(b, "k", (rows, width)), _activation(b, "v", (rows, d.sized(width)))
    caches = [b.state(name, (8, d.sized(width))) for name in ("kc", "vc")]
    b.launch("kv_store", [k, v, b.input("pos", (rows,), "i32")], caches)
    return []


def _attention(d: Draw, b: StepBuilder, rows: int):
    heads, hd = d.one(2, 4), d.one(8, 16)
    kv_heads = d.sized(d.one(1, 2))
    q = _activation(b, "q", (rows, heads * hd))
    caches = [b.state(name, (8, d.sized(kv_heads * hd))) for name in ("kc", "vc")]
    out = b.tensor("out", (rows, d.sized(heads * hd)))
    b.launch(
        "attention",
        [q, *caches, b.input("pos", (rows,), "i32")],
        [out],
        heads=heads,
        kv_heads=kv_heads,
        splits=d.one(1, 2, 3, 9),
    )
    return [out]


def _moe(d: Draw, b: StepBuilder, rows: int):
    experts, width, ffn = d.one(2, 4), d.one(32, 64), d.one(32, 64, 48)
    quant = d.quant(rows * width)
    x = _activation(b, "x", (rows, width), quant)
    elem = d.weight_elem(width)
    weights = [
        b.weight("w_router", (experts, d.sized(width)), "bf16" if d.numerics is Numerics.BF16 else "f32"),
        b.weight("w_gate", (experts, ffn, width), elem),
        b.weight("w_up", (experts, d.sized(ffn), width), elem),
        b.weight("w_down", (experts, width, ffn), d.weight_elem(ffn)),
    ]
    out = b.tensor("out", (rows * d.sized(width),))
    b.launch(
        "moe",
        [(x, "quant" if quant else "plain"), *weights],
        [out],
        experts=experts,
        topk=d.draw(st.integers(1, experts + 1)),
    )
    return [out]


def _binary(d: Draw, b: StepBuilder, rows: int):
    width = d.one(16, 64, 100)
    a, c = _activation(b, "a", (rows, width)), _activation(b, "c", (rows, d.sized(width)))
    out = b.tensor("out", (rows * d.sized(width),))
    b.launch("binary", [a, c], [out], op=d.one("add", "mul"))
    return [out]


def _argmax(d: Draw, b: StepBuilder, rows: int):
    vocab = d.one(10, 1000, 2100)
    out = b.tensor("out", (d.sized(rows),), "i32")
    b.launch("argmax", [_activation(b, "logits", (rows, vocab))], [out])
    return [out]


BUILD = {
    "gather": _gather,
    "norm": _norm,
    "quantize": _quantize,
    "gemv": lambda d, b, r: _product(d, b, r, "gemv"),
    "glu": lambda d, b, r: _product(d, b, r, "glu"),
    "rope": _rope,
    "kv_store": _kv_store,
    "attention": _attention,
    "moe": _moe,
    "binary": _binary,
    "argmax": _argmax,
}


@st.composite
def launches(draw):
    """A step around one launch of a random kind, or the ValueError its builder raised."""
    kind = draw(st.sampled_from(KINDS))
    numerics = draw(st.sampled_from([n for n in Numerics if kind != "quantize" or n.quantized]))
    b = StepBuilder(kind, numerics)
    try:
        outputs = BUILD[kind](Draw(draw, numerics), b, draw(st.integers(1, 3)))
        b.output(*outputs)
        return kind, b.module()
    except ValueError as e:
        return kind, e


@settings(FUZZ, max_examples=400)
@given(launches(), st.integers(0, 2**16))
def test_what_the_verifier_accepts_the_kernels_run(launch, seed):
    kind, module = launch
    if isinstance(module, ValueError):
        event(f"{kind}: rejected")
        assert re.search(r"lane\.\w+\b.*'\w*'", str(module)), module  # names the op and the tensor
        return
    event(f"{kind}: accepted")
    api.place(module, PlaceOptions("greedy"))
    p = placed(module)
    assert compare(p, "numpy", seed).max_abs_err == 0.0
    held_to_the_reference(p, random_feeds(p.step, seed))
