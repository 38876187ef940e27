"""The kernels' numpy twins, launched through `kernels.calls` on a NumpyDevice, against plain float64 formulas: every
kind, under f32, int8 and int8x2 numerics where they apply, one row and several, whole and split. Quantized inputs
are made, laid out and read back with the tests' own Q8_0 (`q8_0`, nothing of the package's), and the formulas are
computed over the values its blocks stand for. `pytest -s` prints each kind's largest error."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.ir import SSAValue

from lanearena.dialects import lane
from lanearena.errors import UserError
from lanearena.kernel_shapes import ARGMAX_BLOCK
from lanearena.lowering import kernels
from lanearena.lowering.device import NumpyDevice
from lanearena.lowering.quant import quantize
from lanearena.model import QBLOCK, Form, Numerics, Role, Step, Tensor

from ..support import q8_0
from ..support.q8_0 import Blocks, decode, quantized
from ..support.reference_step import attention, view_root
from .launches import launch_op

F32, I32 = np.float32, np.int32
PLAIN, QUANT = Form.PLAIN, Form.QUANT
QUANTIZED = (Numerics.INT8, Numerics.INT8X2)

LARGEST: dict[str, float] = {}
"""Each kind's largest error, relative to the scale its check names."""


@pytest.fixture(scope="module", autouse=True)
def _report():
    yield
    for kind, err in sorted(LARGEST.items()):
        print(f"\n{kind:>22}: largest error {err:.2e}", end="")


def close(kind: str, got: np.ndarray, want: np.ndarray, scale, tol: float = 1e-5) -> None:
    """Asserts |got - want| <= tol * scale everywhere (scale: the size of what was summed), and records the error."""
    err = float(np.max(np.abs(got.astype(np.float64).reshape(-1) - np.reshape(want, -1)) / np.reshape(scale, -1)))
    LARGEST[kind] = max(LARGEST.get(kind, 0.0), err)
    assert err <= tol, f"{kind}: error {err:.3g} over {tol:.3g}"


class Arrays:
    """An `Operands` over a NumpyDevice for one launch op: an allocation an array (a view lands in its tensor's),
    scratch poisoned with NaN, counters zeroed."""

    def __init__(self, step: Step, op: lane.KernelOp):
        self.dev, self.step, self.op = NumpyDevice(), step, op
        self.two = step.numerics.two_words
        self.plains: dict[str, int] = {}
        self.quants: dict[str, int] = {}
        self.weights: dict[str, tuple[int, int]] = {}
        self.asked: set = set()
        self.scratch_asked = op.scratch(step.numerics)
        self.scratches = {s.tag: (self.dev.alloc(s.bytes, zero=s.counter), s.counter) for s in self.scratch_asked}

    def put(self, name: str, values) -> None:
        t = self.step.tensors[name]
        a = np.asarray(values, I32 if t.elem == "i32" else F32).reshape(-1)
        assert a.size == t.length
        self.plains[name] = self.dev.alloc(t.length * 4)
        self.dev.upload(self.plains[name], a)

    def put_quant(self, name: str, values) -> np.ndarray:
        """Uploads `values` quantized (the tests' own Q8_0 and layout); returns the values its blocks stand for."""
        q = q8_0.encode(values, self.two)
        self.quants[name] = self.dev.alloc(q8_0.nbytes(q.hi.size, self.two))
        self.dev.upload(self.quants[name], q8_0.pack(q))
        return decode(q)

    def put_weight(self, name: str, values) -> np.ndarray:
        """Uploads a weight, Q8_0 where its element is i8 (words, then at the next 256 bytes a scale a block);
        returns the values it stands for."""
        values = np.asarray(values, F32)
        if self.step.tensors[name].elem == "f32":
            self.weights[name] = (self.dev.alloc(values.nbytes), 0)
            self.dev.upload(self.weights[name][0], values)
            return values.astype(np.float64)
        q = q8_0.encode(values.reshape(-1), two_words=False)
        base = self.dev.alloc(q8_0.nbytes(q.hi.size, False))
        self.dev.upload(base, q8_0.pack(q))
        words, _, scales = q8_0.parts(q.hi.size, False)
        self.weights[name] = (base + words, base + scales)
        return decode(q).reshape(values.shape)

    def output(self, name: str, form: Form = PLAIN) -> None:
        """Allocates (poisoned) the array `form` of `name`."""
        n = self.step.tensors[name].length
        plain = form is PLAIN
        (self.plains if plain else self.quants)[name] = self.dev.alloc(n * 4 if plain else q8_0.nbytes(n, self.two))

    def get(self, name: str) -> np.ndarray:
        t = self.step.tensors[name]
        return self.dev.download(self._plain_at(name), I32 if t.elem == "i32" else F32, t.length)

    def get_quant(self, name: str) -> Blocks:
        n = self.step.tensors[name].length
        raw = self.dev.download(self.quants[name], np.uint8, q8_0.nbytes(n, self.two))
        return q8_0.unpack(raw, n, self.two)

    def _plain_at(self, tensor: str) -> int:
        home, offset = view_root(self.step, tensor)
        return self.plains[home] + offset * 4

    def plain(self, tensor: SSAValue) -> int:
        name = _name(tensor)
        self.asked.add((name, PLAIN))
        return self._plain_at(name)

    def quant(self, tensor: SSAValue) -> tuple[int, int, int]:
        name = _name(tensor)
        self.asked.add((name, QUANT))
        home, offset = view_root(self.step, name)
        words, low, scales = (
            self.quants[home] + p if p is not None else None
            for p in q8_0.parts(self.step.tensors[home].length, self.two)
        )
        return words + offset, (low + offset) if low is not None else 0, scales + offset // QBLOCK * 4

    def weight(self, tensor: SSAValue) -> tuple[int, int]:
        name = _name(tensor)
        self.asked.add((name, PLAIN))
        return self.weights[name]

    def scratch(self, tag: str) -> int:
        addr, counter = self.scratches[tag]
        assert not counter
        self.asked.add(tag)
        return addr

    def counter(self, tag: str) -> int:
        addr, counter = self.scratches[tag]
        assert counter
        self.asked.add(tag)
        return addr

    def run(self) -> None:
        """Runs the launch's kernel calls; checks they took exactly the arrays and scratch the launch declares, and
        left its counters zero."""
        self.asked.clear()
        for c in kernels.calls(self.op, self):
            self.dev.launch(c.kernel, c.grid, c.block, c.args)
        touched = {(_name(v), f) for v, f in self.op.reads()} | {(_name(v), f) for v, f, _ in self.op.writes()}
        assert self.asked == touched | {s.tag for s in self.scratch_asked}
        for s in self.scratch_asked:
            if s.counter:
                assert not self.dev.download(self.scratches[s.tag][0], I32, s.bytes // 4).any(), s.tag


def _name(tensor: SSAValue) -> str:
    return lane.tensor_def(tensor).tensor_name


def tensor(name, shape, elem="f32", role=Role.COMPUTED, forms=(PLAIN,), view_of=None, view_offset=0) -> Tensor:
    return Tensor(name, tuple(shape), elem, role, frozenset(forms), view_of, view_offset)


def setup(kind, ins, outs, params, numerics=Numerics.F32, extra=()) -> Arrays:
    """Arrays for one launch of `kind`: `ins` and `outs` as (tensor, form), `extra` tensors only viewed."""
    tensors = {t.name: t for t in extra} | {t.name: t for t, _ in (*ins, *outs)}
    return Arrays(Step("s", numerics, tensors, []), launch_op(kind, ins, outs, params, numerics, extra))


def rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


def put_x(a: Arrays, name: str, form: Form, values) -> np.ndarray:
    """Uploads an activation in `form`; returns the values the kernels see."""
    if form is QUANT:
        return a.put_quant(name, values)
    a.put(name, values)
    return np.asarray(values, F32).astype(np.float64)


# -- quantize, norm, gather, binary ------------------------------------------------------------------------------------


def quantize64(x: np.ndarray):
    """The block quantization in float64: scales, words, low words, and each word's distance from a rounding tie
    (where f32 may round apart)."""
    b = x.astype(np.float64).reshape(-1, QBLOCK)
    s = np.abs(b).max(axis=1) / 127
    t = b / s[:, None]
    hi = np.clip(np.round(t), -127, 127)
    r = (t - hi) * 127
    lo = np.clip(np.round(r), -127, 127)
    return s, hi.reshape(-1), lo.reshape(-1), _from_tie(t), _from_tie(r)


def _from_tie(v: np.ndarray) -> np.ndarray:
    return np.abs(np.abs(v - np.floor(v)) - 0.5).reshape(-1)


@pytest.mark.parametrize("numerics", QUANTIZED)
def test_quantize(numerics):
    n = 8 * QBLOCK + 256
    x = rng(1).standard_normal(n).astype(F32) * np.repeat(rng(2).uniform(0.01, 10, n // QBLOCK), QBLOCK).astype(F32)
    xt, ot = tensor("x", [n]), tensor("o", [n], forms=(QUANT,))
    a = setup("quantize", [(xt, PLAIN)], [(ot, QUANT)], {}, numerics)
    a.put("x", x)
    a.output("o", QUANT)
    a.run()
    q = a.get_quant("o")
    s, hi, lo, hi_tie, lo_tie = quantize64(x)
    close("quantize", q.scales, s, s, tol=1e-7)
    # x/s is good to f32 rounding of values up to 127, so a word may round apart from float64 only near a tie; a low
    # word scales that error by 127 more.
    clear = hi_tie > 1e-4
    assert clear.mean() > 0.99 and (q.hi[clear] == hi[clear]).all()
    if numerics.two_words:
        clear &= lo_tie > 2e-2
        assert clear.mean() > 0.9 and (q.lo[clear] == lo[clear]).all()
    step = np.repeat(s, QBLOCK) / (127 if numerics.two_words else 1)
    assert (np.abs(decode(q) - x) <= step * (0.5 + 1e-3)).all()


def test_quantize_zero_block():
    q = quantize(np.concatenate([np.zeros(QBLOCK, F32), np.ones(QBLOCK, F32)]), two_words=True)
    assert q.scales[0] == 0 and not q.hi[:QBLOCK].any() and not q.lo[:QBLOCK].any()


@pytest.mark.parametrize("rows", [1, 3])
@pytest.mark.parametrize("elem", ["f32", "i8"])
def test_gather(rows, elem):
    v, d = 50, 96
    table = rng(3).standard_normal((v, d)).astype(F32)
    ids = rng(4).integers(0, v, rows)
    tt, it = tensor("t", [v, d], elem, Role.WEIGHT), tensor("ids", [rows], "i32", Role.INPUT)
    ot = tensor("o", [rows * d])
    a = setup("gather", [(tt, PLAIN), (it, PLAIN)], [(ot, PLAIN)], {})
    seen = a.put_weight("t", table)
    a.put("ids", ids)
    a.output("o")
    a.run()
    # A Q8_0 row is d * q rounded to the f32 the kernel writes: exactly that.
    close("gather", a.get("o"), seen[ids].reshape(-1).astype(F32), 1.0, tol=0)


def test_gather_id_outside_the_table():
    tt, it, ot = tensor("t", [4, 32], role=Role.WEIGHT), tensor("ids", [1], "i32", Role.INPUT), tensor("o", [32])
    a = setup("gather", [(tt, PLAIN), (it, PLAIN)], [(ot, PLAIN)], {})
    a.put_weight("t", np.ones((4, 32)))
    a.put("ids", [4])
    a.output("o")
    with pytest.raises(AssertionError, match="outside"):
        a.run()


@pytest.mark.parametrize("rows", [1, 3])
@pytest.mark.parametrize(
    "numerics,forms",
    [(Numerics.F32, (PLAIN,)), (Numerics.INT8, (QUANT,)), (Numerics.INT8, (PLAIN, QUANT)), (Numerics.INT8X2, (QUANT,))],
)
def test_norm(rows, numerics, forms):
    d, eps = 256, 1e-6
    x = rng(5).standard_normal(rows * d) * 3
    gain = rng(6).uniform(0.5, 1.5, d)
    xt, gt, ot = tensor("x", [rows * d]), tensor("g", [d], role=Role.WEIGHT), tensor("o", [rows * d], forms=forms)
    a = setup("norm", [(xt, PLAIN), (gt, PLAIN)], [(ot, f) for f in forms], {"eps": eps}, numerics)
    xs = put_x(a, "x", PLAIN, x).reshape(rows, d)
    g = a.put_weight("g", gain)
    for f in forms:
        a.output("o", f)
    a.run()
    want = (xs / np.sqrt((xs * xs).mean(axis=1, keepdims=True) + eps) * g).reshape(-1)
    if PLAIN in forms:
        close("norm", a.get("o"), want, np.abs(want).max())
    if QUANT in forms:
        q = a.get_quant("o")
        step = np.repeat(q.scales, QBLOCK) / (127 if numerics.two_words else 1)
        close("norm to int8 (steps)", decode(q), want, step, tol=0.5 + 1e-3)  # half a step of the exact norm


@pytest.mark.parametrize("op", ["add", "mul"])
def test_binary(op):
    n = 1000
    x, y = rng(7).standard_normal(n), rng(8).standard_normal(n)
    at, bt, ot = tensor("a", [n]), tensor("b", [n]), tensor("o", [n])
    a = setup("binary", [(at, PLAIN), (bt, PLAIN)], [(ot, PLAIN)], {"op": op})
    xs, ys = put_x(a, "a", PLAIN, x), put_x(a, "b", PLAIN, y)
    a.output("o")
    a.run()
    want = xs + ys if op == "add" else xs * ys
    close("binary", a.get("o"), want, np.abs(want).max(), tol=1e-7)


# -- gemv and glu ------------------------------------------------------------------------------------------------------

PRODUCTS = [
    (Numerics.F32, PLAIN, "f32"),
    (Numerics.F32, PLAIN, "i8"),
    (Numerics.INT8, QUANT, "f32"),
    (Numerics.INT8, QUANT, "i8"),
    (Numerics.INT8X2, QUANT, "i8"),
    (Numerics.INT8X2, QUANT, "f32"),
]


def product_inputs(seed: int, rows: int, n: int, k: int):
    r = rng(seed)
    # Blocks of different magnitudes, so that the scales matter.
    x = r.standard_normal(rows * k) * np.repeat(r.uniform(0.1, 4, rows * k // QBLOCK), QBLOCK)
    return x, r.standard_normal((n, k)) / np.sqrt(k)


@pytest.mark.parametrize("numerics,form,elem", PRODUCTS)
@pytest.mark.parametrize("rows,split", [(1, 1), (1, 3), (3, 1), (3, 4)])
def test_gemv(numerics, form, elem, rows, split):
    n, k = 150, 320
    x, w = product_inputs(9, rows, n, k)
    xt, wt, ot = tensor("x", [rows * k], forms=(form,)), tensor("w", [n, k], elem, Role.WEIGHT), tensor("o", [rows * n])
    a = setup("gemv", [(xt, form), (wt, PLAIN)], [(ot, PLAIN)], {"split": split}, numerics)
    xs, ws = put_x(a, "x", form, x).reshape(rows, k), a.put_weight("w", w)
    a.output("o")
    a.run()
    close("gemv", a.get("o"), (xs @ ws.T).reshape(-1), np.abs(xs) @ np.abs(ws).T)


@pytest.mark.parametrize("split", [1, 3])
def test_gemv_f32_rows_of_any_length(split):
    """K not a whole number of blocks (f32 only); split 3 leaves the last part empty."""
    n, k = 40, 100
    x, w = rng(24).standard_normal(k), rng(25).standard_normal((n, k))
    xt, wt, ot = tensor("x", [k]), tensor("w", [n, k], role=Role.WEIGHT), tensor("o", [n])
    a = setup("gemv", [(xt, PLAIN), (wt, PLAIN)], [(ot, PLAIN)], {"split": split})
    xs, ws = put_x(a, "x", PLAIN, x), a.put_weight("w", w)
    a.output("o")
    a.run()
    close("gemv", a.get("o"), ws @ xs, np.abs(ws) @ np.abs(xs))


def test_gemv_part_of_a_pitch_from_a_view():
    """Rows of out written at [start, start + n) of each pitch; x read through a view that starts a block in."""
    rows, n, k, pitch, start = 2, 70, 64, 200, 100
    x, w = product_inputs(10, rows, n, k)
    big = tensor("big", [QBLOCK + rows * k], forms=(QUANT,))
    xt = tensor("x", [rows * k], forms=(QUANT,), view_of="big", view_offset=QBLOCK)
    wt, ot = tensor("w", [n, k], "i8", Role.WEIGHT), tensor("o", [rows * pitch])
    params = {"split": 2, "pitch": pitch, "start": start, "width": n}
    a = setup("gemv", [(xt, QUANT), (wt, PLAIN)], [(ot, PLAIN)], params, Numerics.INT8, extra=[big])
    xs = a.put_quant("big", np.concatenate([rng(11).standard_normal(QBLOCK), x]))[QBLOCK:].reshape(rows, k)
    ws = a.put_weight("w", w)
    a.put("o", np.full(rows * pitch, 7.0))
    a.run()
    got = a.get("o").reshape(rows, pitch)
    close("gemv", got[:, start : start + n], xs @ ws.T, np.abs(xs) @ np.abs(ws).T)
    assert (got[:, :start] == 7).all() and (got[:, start + n :] == 7).all()


@pytest.mark.parametrize("numerics,form,elem", PRODUCTS[::2] + PRODUCTS[3:4])
@pytest.mark.parametrize("rows,split", [(1, 1), (1, 2), (2, 1), (3, 3)])
def test_glu(numerics, form, elem, rows, split):
    n, k = 100, 256
    x, wg = product_inputs(12, rows, n, k)
    wu = rng(13).standard_normal((n, k)) / np.sqrt(k)
    xt, ot = tensor("x", [rows * k], forms=(form,)), tensor("o", [rows * n])
    gt, ut = tensor("wg", [n, k], elem, Role.WEIGHT), tensor("wu", [n, k], elem, Role.WEIGHT)
    a = setup("glu", [(xt, form), (gt, PLAIN), (ut, PLAIN)], [(ot, PLAIN)], {"split": split}, numerics)
    xs = put_x(a, "x", form, x).reshape(rows, k)
    gs, us = a.put_weight("wg", wg), a.put_weight("wu", wu)
    a.output("o")
    a.run()
    g, u = xs @ gs.T, xs @ us.T
    silu = g / (1 + np.exp(-g))
    # The error of silu(g) * u, to first order, from g's and u's sums' rounding.
    scale = np.abs(u) * (np.abs(xs) @ np.abs(gs).T) + np.abs(silu) * (np.abs(xs) @ np.abs(us).T)
    close("glu", a.get("o"), (silu * u).reshape(-1), scale)


# -- rope, kv_store, attention -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("rows", [1, 3])
def test_rope(rows):
    heads, hd, theta = 4, 64, 1e6
    pos = np.array([0, 17, 30000][:rows] if rows > 1 else [1234])
    x = rng(14).standard_normal(rows * heads * hd)
    pt, xt = tensor("pos", [rows], "i32", Role.INPUT), tensor("x", [rows * heads * hd])
    a = setup("rope", [(pt, PLAIN)], [(xt, PLAIN)], {"heads": heads, "theta": theta})
    a.put("pos", pos)
    xs = put_x(a, "x", PLAIN, x).reshape(rows, heads, 2, hd // 2)
    a.run()
    f = pos[:, None, None] * theta ** (-2 * np.arange(hd // 2) / hd)
    lo, hi = xs[:, :, 0], xs[:, :, 1]
    want = np.stack([lo * np.cos(f) - hi * np.sin(f), hi * np.cos(f) + lo * np.sin(f)], axis=2)
    close("rope", a.get("x"), want.reshape(-1), np.abs(xs).max(), tol=1e-6)


@pytest.mark.parametrize("rows", [1, 3])
def test_kv_store(rows):
    width, length = 128, 10
    pos = np.array([4, 0, 9][:rows])
    k, v = rng(15).standard_normal(rows * width), rng(16).standard_normal(rows * width)
    kt, vt, pt = tensor("k", [rows * width]), tensor("v", [rows * width]), tensor("pos", [rows], "i32", Role.INPUT)
    kc, vc = tensor("kc", [length, width], role=Role.STATE), tensor("vc", [length, width], role=Role.STATE)
    a = setup("kv_store", [(kt, PLAIN), (vt, PLAIN), (pt, PLAIN)], [(kc, PLAIN), (vc, PLAIN)], {})
    ks, vs = put_x(a, "k", PLAIN, k), put_x(a, "v", PLAIN, v)
    a.put("pos", pos)
    a.put("kc", np.full(length * width, 3.0))
    a.put("vc", np.full(length * width, 3.0))
    a.run()
    for name, new in (("kc", ks), ("vc", vs)):
        got = a.get(name).reshape(length, width)
        close("kv_store", got[pos], new.reshape(rows, width), 1.0, tol=0)
        assert (np.delete(got, pos, axis=0) == 3).all()


@pytest.mark.parametrize("rows,splits", [(1, 1), (1, 4), (3, 1), (3, 5)])
def test_attention(rows, splits):
    heads, kv_heads, hd, length = 8, 2, 64, 40
    pos = np.array([3, 39, 20][:rows] if rows > 1 else [25])
    q = rng(17).standard_normal(rows * heads * hd)
    kc, vc = (rng(s).standard_normal((length, kv_heads * hd)) for s in (18, 19))
    kc[pos.max() + 1 :] = vc[pos.max() + 1 :] = np.nan  # never written: read no further than pos
    qt, ot = tensor("q", [rows, heads * hd]), tensor("o", [rows, heads * hd])
    kt, vt = (tensor(n, [length, kv_heads * hd], role=Role.STATE) for n in ("kc", "vc"))
    pt = tensor("pos", [rows], "i32", Role.INPUT)
    params = {"heads": heads, "kv_heads": kv_heads, "splits": splits}
    a = setup("attention", [(qt, PLAIN), (kt, PLAIN), (vt, PLAIN), (pt, PLAIN)], [(ot, PLAIN)], params)
    qs = put_x(a, "q", PLAIN, q).reshape(rows, heads, hd)
    ks, vs = put_x(a, "kc", PLAIN, kc), put_x(a, "vc", PLAIN, vc)
    a.put("pos", pos)
    a.output("o")
    a.run()
    want = attention(qs, ks, vs, pos, heads, kv_heads)
    close("attention", a.get("o"), want.reshape(-1), np.abs(vs[: pos.max() + 1]).max())


# -- moe and argmax ----------------------------------------------------------------------------------------------------

MIXTURES = [
    (Numerics.F32, PLAIN, "f32"),
    (Numerics.F32, PLAIN, "i8"),
    (Numerics.INT8, QUANT, "i8"),
    (Numerics.INT8X2, QUANT, "i8"),
    (Numerics.INT8, PLAIN, "f32"),
]


@pytest.mark.parametrize("numerics,form,elem", MIXTURES)
@pytest.mark.parametrize("rows", [1, 3])
def test_moe(numerics, form, elem, rows):
    experts, topk, d, f = 8, 3, 64, 96
    r = rng(20)
    x = r.standard_normal(rows * d)
    router = r.standard_normal((experts, d))
    wg, wu = (r.standard_normal((experts, f, d)) / np.sqrt(d) for _ in range(2))
    wd = r.standard_normal((experts, d, f)) / np.sqrt(f)
    xt, ot = tensor("x", [rows * d], forms=(form,)), tensor("o", [rows * d])
    ws = [tensor("wr", [experts, d], role=Role.WEIGHT)] + [
        tensor(n, s, elem, Role.WEIGHT) for n, s in (("wg", wg.shape), ("wu", wu.shape), ("wd", wd.shape))
    ]
    params = {"experts": experts, "topk": topk}
    a = setup("moe", [(xt, form)] + [(t, PLAIN) for t in ws], [(ot, PLAIN)], params, numerics)
    xs = put_x(a, "x", form, x).reshape(rows, d)
    rs, gs, us, ds = (a.put_weight(n, w) for n, w in (("wr", router), ("wg", wg), ("wu", wu), ("wd", wd)))
    a.output("o")
    a.run()
    logits = xs @ rs.T
    chosen = np.argsort(-logits, axis=1, kind="stable")[:, :topk]
    got_ids = a.dev.download(a.scratch("i"), I32, rows * topk).reshape(rows, topk)
    assert (got_ids == chosen).all()
    close("moe", a.dev.download(a.scratch("rl"), F32, rows * experts), logits.reshape(-1), np.abs(xs) @ np.abs(rs).T)
    want = np.zeros((rows, d))
    scale = np.zeros((rows, d))
    # A block's rows are grouped by expert: each choice's hidden row at its place (`ep`), its activation row gathered
    # quantized under int8 numerics.
    places = a.dev.download(a.scratch("ep"), I32, rows * topk) if rows > 1 else np.arange(topk)
    gathered = xs
    if rows > 1 and numerics is not Numerics.F32 and form is PLAIN:
        gathered = np.stack([quantized(row, numerics.two_words) for row in xs])
    for i in range(rows):
        top = logits[i, chosen[i]]
        gates = np.exp(top - top[0]) / np.exp(top - top[0]).sum()
        for j, e in enumerate(chosen[i]):
            g, u = gs[e] @ gathered[i], us[e] @ gathered[i]
            h = g / (1 + np.exp(-g)) * u
            if numerics is not Numerics.F32:  # the down projection reads h quantized, as the kernels do
                got_h = a.dev.download(a.scratch("h") + int(places[i * topk + j]) * f * 4, F32, f)
                close("moe", got_h, h, np.abs(h).max())
                h = quantized(got_h, numerics.two_words)
            want[i] += gates[j] * (ds[e] @ h)
            scale[i] += gates[j] * (np.abs(ds[e]) @ np.abs(h))
    close("moe", a.get("o"), want.reshape(-1), scale.reshape(-1))


@pytest.mark.parametrize("rows", [1, 2])
def test_argmax(rows):
    v = 2 * ARGMAX_BLOCK + 300
    logits = rng(21).standard_normal((rows, v))
    logits[0, [1500, 2200]] = 10.0  # a tie across blocks: the lower index wins
    if rows > 1:
        logits[1, [5, 7]] = 10.0  # and within a block
    lt, ot = tensor("l", [rows, v]), tensor("o", [rows], "i32")
    a = setup("argmax", [(lt, PLAIN)], [(ot, PLAIN)], {})
    put_x(a, "l", PLAIN, logits)
    a.output("o")
    a.run()
    assert list(a.get("o")) == [1500, 5][:rows]


# -- counters and scratch ----------------------------------------------------------------------------------------------


def test_a_counter_not_zero_before_the_launch_is_caught():
    rows, n, k = 1, 64, 128
    x, w = product_inputs(22, rows, n, k)
    xt, wt, ot = tensor("x", [k]), tensor("w", [n, k], role=Role.WEIGHT), tensor("o", [n])
    a = setup("gemv", [(xt, PLAIN), (wt, PLAIN)], [(ot, PLAIN)], {"split": 2})
    put_x(a, "x", PLAIN, x)
    a.put_weight("w", w)
    a.output("o")
    a.dev.upload(a.counter("fq"), np.ones(1, I32))
    with pytest.raises(AssertionError, match="not zero before the launch"):
        a.run()


def test_a_quantized_operand_the_kernels_do_not_take_is_refused():
    at, bt, ot = tensor("a", [64], forms=(QUANT,)), tensor("b", [64]), tensor("o", [64])
    with pytest.raises(ValueError, match="its kernels take 'a' in the plain form"):
        setup("binary", [(at, QUANT), (bt, PLAIN)], [(ot, PLAIN)], {}, Numerics.INT8)


def test_a_shape_the_kernels_cannot_run_is_refused():
    xt, wt, ot = tensor("x", [100]), tensor("w", [8, 100], "i8", Role.WEIGHT), tensor("o", [8])
    a = setup("gemv", [(xt, PLAIN), (wt, PLAIN)], [(ot, PLAIN)], {})
    with pytest.raises(UserError, match="not a whole number of 32-value blocks"):
        a.run()


def test_split_scratch_that_overlaps_x_corrupts_the_result():
    """The split's partial sums really go through scratch: put them over x and the product goes wrong."""
    n, k, split = 96, 256, 4
    x, w = product_inputs(23, 1, n, k)
    xt, wt, ot = tensor("x", [k]), tensor("w", [n, k], role=Role.WEIGHT), tensor("o", [n])
    a = setup("gemv", [(xt, PLAIN), (wt, PLAIN)], [(ot, PLAIN)], {"split": split})
    xs, ws = put_x(a, "x", PLAIN, x), a.put_weight("w", w)
    a.output("o")
    a.run()
    close("gemv", a.get("o"), ws @ xs, np.abs(ws) @ np.abs(xs))
    shared = a.dev.alloc(split * n * 4)  # part 0's sums land on the x that part 1 reads
    a.dev.upload(shared, x.astype(F32))
    a.plains["x"] = shared
    a.scratches["fp"] = (shared, False)
    a.run()
    assert np.abs(a.get("o") - ws @ xs).max() > 1e-2
