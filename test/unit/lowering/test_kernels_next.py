"""The kernels of Qwen3-Next's launches and the mixture's fused and batched forms, through `kernels.calls` on a
NumpyDevice, against plain float64 formulas: the convolution, the gated delta rule stepped and in chunks (against the
row-at-a-time recurrence), and mixtures with a shared expert, the residual and the next norm."""

from __future__ import annotations

import numpy as np
import pytest

from lanearena.model import Numerics, Role

from ..support.reference_step import attention, delta_rule
from .test_kernels import PLAIN, QUANT, close, put_x, rng, setup, tensor

F32 = np.float32


def silu(x):
    return x / (1 + np.exp(-x))


def test_conv_keeps_its_window():
    rows, ch, width = 5, 300, 4
    r = rng(40)
    x, w, s = r.standard_normal((rows, ch)), r.standard_normal((ch, width)), r.standard_normal((width - 1, ch))
    xt, st, ot = tensor("x", [rows, ch]), tensor("s", [width - 1, ch], role=Role.STATE), tensor("y", [rows, ch])
    a = setup(
        "conv", [(xt, PLAIN), (tensor("w", [ch, width], role=Role.WEIGHT), PLAIN)], [(st, PLAIN), (ot, PLAIN)], {}
    )
    a.put("x", x)
    a.put("s", s)
    ws = a.put_weight("w", w)
    a.output("y")
    a.run()
    full = np.concatenate([s, x])
    want = np.stack([silu((ws * full[t : t + width].T).sum(axis=1)) for t in range(rows)])
    close("conv", a.get("y"), want.reshape(-1), np.abs(ws).sum(axis=1).max() * np.abs(full).max())
    close("conv", a.get("s"), full[-(width - 1) :].astype(F32).reshape(-1), 1.0, tol=0)


@pytest.mark.parametrize("rows", [1, 3, 70, 130])
@pytest.mark.parametrize("numerics", [Numerics.F32, Numerics.INT8X2])
def test_delta_rule_stepped_and_in_chunks(rows, numerics):
    hk, hv, d = 2, 4, 32
    r = rng(41 + rows)
    qkv = r.standard_normal((rows, (2 * hk + hv) * d))
    z, ab = r.standard_normal((rows, hv * d)), r.standard_normal((rows, 2 * hv))
    a_log, dt_bias, gain = r.standard_normal(hv) * 0.5, r.standard_normal(hv), 1 + 0.1 * r.standard_normal(d)
    state = r.standard_normal((hv, d, d)) * 0.1
    forms = (PLAIN, QUANT) if numerics is not Numerics.F32 else (PLAIN,)
    ins = [(tensor("qkv", qkv.shape), PLAIN), (tensor("z", z.shape), PLAIN), (tensor("ab", ab.shape), PLAIN)] + [
        (tensor(n, [k], role=Role.WEIGHT), PLAIN) for n, k in (("a_log", hv), ("dt_bias", hv), ("gain", d))
    ]
    out = tensor("o", [rows, hv * d], forms=forms)
    outs = [(tensor("s", [hv, d, d], role=Role.STATE), PLAIN)] + [(out, f) for f in forms]
    a = setup("delta", ins, outs, {"key_heads": hk}, numerics)
    for name, values in (("qkv", qkv), ("z", z), ("ab", ab), ("s", state)):
        a.put(name, values)
    for name, values in (("a_log", a_log), ("dt_bias", dt_bias), ("gain", gain)):
        a.put_weight(name, values)
    for f in forms:
        a.output("o", f)
    a.run()
    want, s = delta_rule(qkv, z, ab, a_log, dt_bias, gain, state, hk)
    close("delta", a.get("o"), want.reshape(-1), np.abs(want).max(), tol=2e-4)
    close("delta state", a.get("s"), s.reshape(-1), np.abs(s).max(), tol=2e-4)
    if numerics is not Numerics.F32:
        q = a.get_quant("o")
        assert q.lo is not None and q.hi.size == rows * hv * d


def _mixture(kind: str, rows: int, numerics: Numerics, router_split: int = 1, shared: bool = False):
    experts, topk, d, f, fs = 8, 3, 64, 96, 32
    r = rng(50 + rows)
    x, res = r.standard_normal(rows * d), r.standard_normal(rows * d)
    router = r.standard_normal((experts, d))
    wg, wu = (r.standard_normal((experts, f, d)) / np.sqrt(d) for _ in range(2))
    wd = r.standard_normal((experts, d, f)) / np.sqrt(f)
    sg, su = (r.standard_normal((fs, d)) / np.sqrt(d) for _ in range(2))
    sd, sr = r.standard_normal((d, fs)) / np.sqrt(fs), r.standard_normal((1, d)) / np.sqrt(d)
    gain = 1 + 0.1 * r.standard_normal(d)
    elem = "f32" if numerics is Numerics.F32 else "i8"
    weights = [("wr", router, "f32"), ("wg", wg, elem), ("wu", wu, elem), ("wd", wd, elem)]
    if shared:
        weights += [("sg", sg, elem), ("su", su, elem), ("sd", sd, elem), ("sr", sr, "f32")]
    ins = [(tensor("x", [rows * d]), PLAIN)] + [(tensor(n, w.shape, e, Role.WEIGHT), PLAIN) for n, w, e in weights]
    if kind in ("moe_add", "moe_add_norm"):
        ins.append((tensor("res", [rows * d]), PLAIN))
    if kind == "moe_add_norm":
        ins.append((tensor("gain", [d], role=Role.WEIGHT), PLAIN))
    norm_forms = (PLAIN,) if numerics is Numerics.F32 else (PLAIN, QUANT)
    outs = [(tensor("o", [rows * d]), PLAIN)]
    if kind == "moe_add_norm":
        outs += [(tensor("n", [rows * d], forms=norm_forms), f) for f in norm_forms]
    params = {"experts": experts, "topk": topk} | ({"router_split": router_split} if router_split > 1 else {})
    a = setup(kind, ins, outs, params, numerics)
    xs = put_x(a, "x", PLAIN, x).reshape(rows, d)
    got = {n: a.put_weight(n, w) for n, w, _ in weights}
    if kind in ("moe_add", "moe_add_norm"):
        a.put("res", res)
    if kind == "moe_add_norm":
        got["gain"] = a.put_weight("gain", gain)
        for f in norm_forms:
            a.output("n", f)
    a.output("o")
    a.run()
    logits = xs @ got["wr"].T
    chosen = np.argsort(-logits, axis=1, kind="stable")[:, :topk]
    want = np.zeros((rows, d))
    for i in range(rows):
        top = logits[i, chosen[i]]
        gates = np.exp(top - top[0]) / np.exp(top - top[0]).sum()
        for j, e in enumerate(chosen[i]):
            want[i] += gates[j] * (got["wd"][e] @ (silu(got["wg"][e] @ xs[i]) * (got["wu"][e] @ xs[i])))
        if shared:
            gate = 1 / (1 + np.exp(-(got["sr"] @ xs[i])[0]))
            want[i] += gate * (got["sd"] @ (silu(got["sg"] @ xs[i]) * (got["su"] @ xs[i])))
    if kind != "moe_shared":
        want += res.reshape(rows, d)
    # Quantized activations and hidden rows move a sum by far more than f32 rounding: a looser bound there.
    tol = 1e-5 if numerics is Numerics.F32 else 5e-2
    close(kind, a.get("o"), want.reshape(-1), np.abs(want).max(), tol=tol)
    if kind == "moe_add_norm":
        y = a.get("o").reshape(rows, d).astype(np.float64)
        normed = y / np.sqrt((y * y).mean(axis=1, keepdims=True) + 1e-6) * got["gain"]
        close(kind, a.get("n"), normed.reshape(-1), np.abs(normed).max())


@pytest.mark.parametrize("rows", [1, 5])
@pytest.mark.parametrize("numerics", [Numerics.F32, Numerics.INT8, Numerics.INT8X2])
def test_shared_expert(numerics, rows):
    _mixture("moe_shared", rows, numerics, shared=True)


@pytest.mark.parametrize("rows", [1, 5])
@pytest.mark.parametrize("numerics", [Numerics.F32, Numerics.INT8])
@pytest.mark.parametrize("kind", ["moe_add", "moe_add_norm"])
def test_mixture_fused_with_the_residual_and_the_norm(kind, rows, numerics):
    _mixture(kind, rows, numerics)


@pytest.mark.parametrize("numerics", [Numerics.F32, Numerics.INT8])
def test_batched_mixture_with_a_split_router(numerics):
    _mixture("moe_add", 5, numerics, router_split=2)


def _rms(y, gain):
    return y / np.sqrt((y * y).mean(axis=-1, keepdims=True) + 1e-6) * gain


@pytest.mark.parametrize("numerics", [Numerics.F32, Numerics.INT8X2])
def test_gather_norm(numerics):
    v, d, rows = 50, 64, 3
    r = rng(60)
    table, gain, ids = r.standard_normal((v, d)), 1 + 0.1 * r.standard_normal(d), np.array([3, 49, 3])
    forms = (PLAIN,) if numerics is Numerics.F32 else (PLAIN, QUANT)
    ins = [
        (tensor("e", [v, d], "f32" if numerics is Numerics.F32 else "i8", Role.WEIGHT), PLAIN),
        (tensor("ids", [rows], "i32"), PLAIN),
        (tensor("g", [d], role=Role.WEIGHT), PLAIN),
    ]
    h = tensor("h", [rows, d], forms=forms)
    a = setup("gather_norm", ins, [(tensor("x", [rows, d]), PLAIN)] + [(h, f) for f in forms], {}, numerics)
    e, g = a.put_weight("e", table), a.put_weight("g", gain)
    a.put("ids", ids)
    a.output("x")
    for f in forms:
        a.output("h", f)
    a.run()
    close("gather_norm", a.get("x"), e[ids].reshape(-1), 1.0, tol=1e-6)
    close("gather_norm", a.get("h"), _rms(e[ids], g).reshape(-1), 1.0)


@pytest.mark.parametrize("rows,split", [(1, 1), (1, 3), (70, 1), (70, 2)])
def test_gemv_norm(rows, split):
    n, k = 192, 128
    r = rng(61)
    x, w, gain = r.standard_normal((rows, k)), r.standard_normal((n, k)) / np.sqrt(k), 1 + 0.1 * r.standard_normal(n)
    ins = [
        (tensor("x", [rows, k]), PLAIN),
        (tensor("w", [n, k], role=Role.WEIGHT), PLAIN),
        (tensor("g", [n], role=Role.WEIGHT), PLAIN),
    ]
    a = setup("gemv_norm", ins, [(tensor("y", [rows, n]), PLAIN), (tensor("h", [rows, n]), PLAIN)], {"split": split})
    a.put("x", x)
    ws, g = a.put_weight("w", w), a.put_weight("g", gain)
    a.output("y")
    a.output("h")
    a.run()
    y = x @ ws.T
    close("gemv_norm", a.get("y"), y.reshape(-1), np.abs(x) @ np.abs(ws).T)
    close("gemv_norm", a.get("h"), _rms(y, g).reshape(-1), 1.0, tol=1e-4)


@pytest.mark.parametrize("rows,split,hd", [(1, 1, 32), (2, 2, 128), (70, 3, 32)])
def test_gemv_rope(rows, split, hd):
    heads, kv, k = 4, 2, 64
    n = (heads + 2 * kv) * hd
    r = rng(62)
    x, w = r.standard_normal((rows, k)), r.standard_normal((n, k)) / np.sqrt(k)
    pos = np.arange(rows) + 5
    ins = [
        (tensor("x", [rows, k]), PLAIN),
        (tensor("w", [n, k], role=Role.WEIGHT), PLAIN),
        (tensor("pos", [rows], "i32"), PLAIN),
    ]
    params = {"split": split, "heads": heads, "kv_heads": kv, "theta": 1e4}
    a = setup("gemv_rope", ins, [(tensor("y", [rows, n]), PLAIN)], params)
    a.put("x", x)
    a.put("pos", pos)
    ws = a.put_weight("w", w)
    a.output("y")
    a.run()
    y = (x @ ws.T).reshape(rows, -1, hd)
    half = hd // 2
    f = pos[:, None] * 1e4 ** (-2.0 * np.arange(half) / hd)
    c, s = np.cos(f)[:, None], np.sin(f)[:, None]
    turned = y[:, : heads + kv]
    y[:, : heads + kv] = np.concatenate(
        [turned[..., :half] * c - turned[..., half:] * s, turned[..., half:] * c + turned[..., :half] * s], axis=-1
    )
    close("gemv_rope", a.get("y"), y.reshape(-1), np.abs(x).sum(axis=1).max())


@pytest.mark.parametrize(
    "kind,splits,numerics",
    [
        ("attention_shared", 1, Numerics.F32),
        ("attention_shared", 3, Numerics.F32),
        ("attention_i8x2", 1, Numerics.INT8X2),
    ],
)
def test_attention_variants(kind, splits, numerics):
    heads, kv, hd, length, rows = 4, 2, 32, 40, 3
    r = rng(63)
    q, kc, vc = (
        r.standard_normal((rows, heads * hd)),
        r.standard_normal((length, kv * hd)),
        r.standard_normal((length, kv * hd)),
    )
    pos = np.array([0, 17, 39])
    ins = [
        (tensor("q", [rows, heads * hd]), PLAIN),
        (tensor("kc", [length, kv * hd], role=Role.STATE), PLAIN),
        (tensor("vc", [length, kv * hd], role=Role.STATE), PLAIN),
        (tensor("pos", [rows], "i32"), PLAIN),
    ]
    params = {"heads": heads, "kv_heads": kv} | ({"splits": splits} if kind == "attention_shared" else {})
    a = setup(kind, ins, [(tensor("o", [rows, heads * hd]), PLAIN)], params, numerics)
    for name, values in (("q", q), ("kc", kc), ("vc", vc), ("pos", pos)):
        a.put(name, values)
    a.output("o")
    a.run()
    want = attention(q, kc, vc, pos, heads, kv)
    # Two words keep a row to about 1/127^2 of its largest value.
    close(kind, a.get("o"), want.reshape(-1), np.abs(vc).max(), tol=1e-5 if numerics is Numerics.F32 else 1e-3)


@pytest.mark.parametrize("kind", ["gemm_tc", "glu_tc"])
@pytest.mark.parametrize("rows,split,whole", [(1, 1, 0), (5, 1, 0), (1, 3, 1), (70, 2, 3), (130, 4, 0)])
@pytest.mark.parametrize("numerics", [Numerics.F32, Numerics.INT8])
def test_projections_in_tiles(kind, rows, split, whole, numerics):
    n, k = 150, 128
    r = rng(64)
    x = r.standard_normal((rows, k))
    wg, wu = (r.standard_normal((n, k)) / np.sqrt(k) for _ in range(2))
    elem, form = ("f32", PLAIN) if numerics is Numerics.F32 else ("i8", QUANT)
    names = ("w_gate", "w_up") if kind == "glu_tc" else ("w",)
    ws = [(tensor(nm, [n, k], elem, Role.WEIGHT), PLAIN) for nm in names]
    params = {"split": split} | ({"whole": whole} if whole else {})
    a = setup(
        kind, [(tensor("x", [rows, k], forms=(form,)), form), *ws], [(tensor("y", [rows, n]), PLAIN)], params, numerics
    )
    xs = put_x(a, "x", form, x).reshape(rows, k)
    got = [a.put_weight(nm, w) for nm, w in zip(names, (wg, wu), strict=False)]  # one weight, or the gated pair
    a.output("y")
    a.run()
    if kind == "glu_tc":
        g, u = xs @ got[0].T, xs @ got[1].T
        want, scale = silu(g) * u, (np.abs(xs) @ np.abs(got[0]).T) * (np.abs(xs) @ np.abs(got[1]).T)
    else:
        want, scale = xs @ got[0].T, np.abs(xs) @ np.abs(got[0]).T
    close(kind, a.get("y"), want.reshape(-1), scale.reshape(-1))
