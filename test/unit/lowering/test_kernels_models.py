"""The kernel pieces Llama, Mistral, Qwen2, Mixtral and Qwen2-MoE add, through `kernels.calls` on a NumpyDevice,
against float64 references written from Hugging Face transformers' modeling code as documented (not from our
kernels): rotary frequencies scaled `linear`, `dynamic` (NTK) and `llama3`; projections with biases; attention over a
sliding window (against the full attention with every position outside the window masked); and a router's gates, the
softmax over all experts with the top k kept and renormalised (Mixtral) or not (Qwen2-MoE, `norm_topk_prob` false)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from lanearena.model import Numerics, Role

from ..support.reference_step import attention
from .test_kernels import PLAIN, QUANT, _report, close, put_x, rng, setup, tensor  # noqa: F401  # _report prints errors

F32, I32 = np.float32, np.int32

# -- rope scaling ---------------------------------------------------------------------------------------------------


def inv_freq(dim: int, theta: float, rope_type: str, factor=1.0, low=1.0, high=4.0, original=0, seq_len=0):
    """`inv_freq` as transformers' `ROPE_INIT_FUNCTIONS[rope_type]` computes it (modeling_rope_utils), in float64.
    default: 1 / theta^(arange(0, dim, 2) / dim); linear: that over factor; dynamic: the base grown to theta *
    (factor * seq_len / original - (factor - 1))^(dim / (dim - 2)) where seq_len (the largest position + 1) passes
    the original length; llama3: wavelength = 2 pi / inv_freq, over factor past original / low_freq_factor, kept
    under original / high_freq_factor, between blended by smooth = (original / wavelength - low) / (high - low)."""
    exponents = np.arange(0, dim, 2, dtype=np.float64) / dim
    if rope_type == "dynamic" and seq_len > original:
        theta = theta * ((factor * seq_len / original) - (factor - 1)) ** (dim / (dim - 2))
    freq = 1.0 / theta**exponents
    if rope_type == "linear":
        return freq / factor
    if rope_type != "llama3":
        return freq
    wavelen = 2 * math.pi / freq
    scaled = np.where(wavelen > original / low, freq / factor, freq)
    smooth = (original / wavelen - low) / (high - low)
    smoothed = (1 - smooth) * scaled / factor + smooth * scaled
    medium = ~(wavelen < original / high) & ~(wavelen > original / low)
    return np.where(medium, smoothed, scaled)


def rotated(x: np.ndarray, positions: np.ndarray, freq: np.ndarray) -> np.ndarray:
    """`apply_rotary_pos_emb` over x [rows, heads, dim]: x cos + rotate_half(x) sin, the angles of each position
    `cat(freqs, freqs)` (rotate_half: the second half negated, then the first)."""
    angles = positions[:, None].astype(np.float64) * freq[None, :]
    emb = np.concatenate([angles, angles], axis=-1)[:, None, :]
    half = x.shape[-1] // 2
    turned = np.concatenate([-x[..., half:], x[..., :half]], axis=-1)
    return x * np.cos(emb) + turned * np.sin(emb)


LLAMA3 = {"scaling": "llama3", "factor": 32.0, "low_freq": 1.0, "high_freq": 4.0, "original": 8192}
"""Llama 3.2's rope_scaling (its published config.json)."""


@pytest.mark.parametrize(
    "params, positions, scaled",
    [
        (LLAMA3, [5, 9000, 130000], True),
        ({"scaling": "linear", "factor": 4.0}, [7, 4000, 30000], True),
        ({"scaling": "dynamic", "factor": 2.0, "original": 64}, [100, 150, 200], True),  # the base grows: 201 > 64
        ({"scaling": "dynamic", "factor": 2.0, "original": 64}, [0, 30, 63], False),  # 64 positions: the default's
    ],
    ids=["llama3", "linear", "dynamic-grown", "dynamic-within"],
)
def test_rope_scaling(params, positions, scaled):
    heads, hd, theta = 3, 64, 5e5
    rows = len(positions)
    pos = np.array(positions)
    x = rng(70).standard_normal((rows, heads, hd))
    pt, xt = tensor("pos", [rows], "i32", Role.INPUT), tensor("x", [rows * heads * hd])
    a = setup("rope", [(pt, PLAIN)], [(xt, PLAIN)], {"heads": heads, "theta": theta} | params)
    a.put("pos", pos)
    xs = put_x(a, "x", PLAIN, x).reshape(rows, heads, hd)
    a.run()
    names = {"factor": "factor", "low_freq": "low", "high_freq": "high", "original": "original"}
    kw = {names[k]: v for k, v in params.items() if k in names}
    freq = inv_freq(hd, theta, str(params["scaling"]), seq_len=int(pos.max()) + 1, **kw)
    close("rope scaled", a.get("x"), rotated(xs, pos, freq).reshape(-1), np.abs(xs).max(), tol=1e-6)
    # The scaling matters where the test says it does: away from the default's angles by far more than rounding.
    moved = np.abs(a.get("x").reshape(rows, heads, hd) - rotated(xs, pos, inv_freq(hd, theta, "default"))).max()
    assert moved > 1e-2 if scaled else moved < 1e-5


def test_llama3_bands_are_all_reached():
    """Llama 3.2's head of 64 at theta 5e5 has frequencies in each of llama3's three bands (scaled, blended, kept),
    so the test above reaches every branch of the formula."""
    freq = inv_freq(64, 5e5, "default")
    wavelen = 2 * math.pi / freq
    low, high = 8192 / 1.0, 8192 / 4.0
    assert (wavelen > low).sum() and (wavelen < high).sum() and ((wavelen >= high) & (wavelen <= low)).sum()


@pytest.mark.parametrize(
    "params, message",
    [
        ({"scaling": "llama3", "factor": 8.0}, "needs the original length"),
        ({"scaling": "llama3", "factor": 8.0, "original": 8192, "low_freq": 4.0, "high_freq": 1.0}, "under high_freq"),
        ({"scaling": "linear", "factor": 0.5}, "factor of at least 1"),
        ({"scaling": "dynamic", "factor": 2.0}, "needs the original length"),
    ],
)
def test_rope_scaling_parameters_are_checked(params, message):
    from lanearena.frontend import StepBuilder

    b = StepBuilder("s", "f32")
    pos, x = b.input("pos", 1, "i32"), b.tensor("x", 64)
    with pytest.raises(ValueError, match=message):
        b.launch("rope", [pos], [x], heads=1, **params)


# -- projections with biases ----------------------------------------------------------------------------------------

PRODUCTS = [(Numerics.F32, PLAIN, "f32"), (Numerics.INT8, QUANT, "i8"), (Numerics.INT8X2, QUANT, "i8")]


@pytest.mark.parametrize("numerics,form,elem", PRODUCTS)
@pytest.mark.parametrize("rows,split", [(1, 1), (1, 2), (3, 1), (3, 3)])
def test_gemv_bias(numerics, form, elem, rows, split):
    n, k = 100, 192
    r = rng(71)
    x, w, bias = r.standard_normal((rows, k)), r.standard_normal((n, k)) / np.sqrt(k), r.standard_normal(n)
    xt, ot = tensor("x", [rows * k], forms=(form,)), tensor("o", [rows * n])
    wt, bt = tensor("w", [n, k], elem, Role.WEIGHT), tensor("b", [n], role=Role.WEIGHT)
    a = setup("gemv_bias", [(xt, form), (wt, PLAIN), (bt, PLAIN)], [(ot, PLAIN)], {"split": split}, numerics)
    xs, ws, bs = put_x(a, "x", form, x).reshape(rows, k), a.put_weight("w", w), a.put_weight("b", bias)
    a.output("o")
    a.run()
    # nn.Linear with a bias: x W^T + b.
    close("gemv_bias", a.get("o"), (xs @ ws.T + bs).reshape(-1), np.abs(xs) @ np.abs(ws).T + np.abs(bs))


@pytest.mark.parametrize("numerics,form,elem", PRODUCTS[:2])
@pytest.mark.parametrize("rows,split", [(1, 1), (3, 2)])
def test_glu_bias(numerics, form, elem, rows, split):
    n, k = 70, 128
    r = rng(72)
    x = r.standard_normal((rows, k))
    wg, wu = (r.standard_normal((n, k)) / np.sqrt(k) for _ in range(2))
    bg, bu = r.standard_normal(n), r.standard_normal(n)
    xt, ot = tensor("x", [rows * k], forms=(form,)), tensor("o", [rows * n])
    weights = [tensor(name, [n, k], elem, Role.WEIGHT) for name in ("wg", "wu")]
    biases = [tensor(name, [n], role=Role.WEIGHT) for name in ("bg", "bu")]
    ins = [(xt, form), *((t, PLAIN) for t in (*weights, *biases))]
    a = setup("glu_bias", ins, [(ot, PLAIN)], {"split": split}, numerics)
    xs = put_x(a, "x", form, x).reshape(rows, k)
    gs, us, gb, ub = (a.put_weight(name, v) for name, v in (("wg", wg), ("wu", wu), ("bg", bg), ("bu", bu)))
    a.output("o")
    a.run()
    # LlamaMLP with mlp_bias: act_fn(gate_proj(x)) * up_proj(x), each projection with its bias.
    g, u = xs @ gs.T + gb, xs @ us.T + ub
    silu = g / (1 + np.exp(-g))
    scale = np.abs(u) * (np.abs(xs) @ np.abs(gs).T + np.abs(gb)) + np.abs(silu) * (
        np.abs(xs) @ np.abs(us).T + np.abs(ub)
    )
    close("glu_bias", a.get("o"), (silu * u).reshape(-1), scale)


# -- sliding-window attention ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kind, splits, numerics",
    [
        ("attention", 1, Numerics.F32),
        ("attention", 3, Numerics.F32),
        ("attention_shared", 1, Numerics.F32),
        ("attention_shared", 4, Numerics.F32),
        ("attention_i8x2", 1, Numerics.INT8X2),
    ],
)
@pytest.mark.parametrize("window", [5, 16, 100])
def test_sliding_window_attention(kind, splits, numerics, window):
    heads, kv, hd, length = 4, 2, 32, 48
    pos = np.array([2, 20, 47])
    rows = pos.size
    r = rng(73)
    q, kc, vc = (r.standard_normal(s) for s in ((rows, heads * hd), (length, kv * hd), (length, kv * hd)))
    # Positions no row sees hold NaN: the window must not read them (a NaN read would show in every output).
    seen = np.zeros(length, bool)
    for p in pos:
        seen[max(0, p - window + 1) : p + 1] = True
    if kind != "attention_i8x2":  # it quantizes the whole cache first (its rows' scales are its own)
        kc[~seen], vc[~seen] = np.nan, np.nan
    ins = [
        (tensor("q", [rows, heads * hd]), PLAIN),
        (tensor("kc", [length, kv * hd], role=Role.STATE), PLAIN),
        (tensor("vc", [length, kv * hd], role=Role.STATE), PLAIN),
        (tensor("pos", [rows], "i32"), PLAIN),
    ]
    params = {"heads": heads, "kv_heads": kv, "window": window} | ({"splits": splits} if splits > 1 else {})
    a = setup(kind, ins, [(tensor("o", [rows, heads * hd]), PLAIN)], params, numerics)
    for name, values in (("q", q), ("kc", kc), ("vc", vc), ("pos", pos)):
        a.put(name, values)
    a.output("o")
    a.run()
    want = attention(q, kc, vc, pos, heads, kv, window)
    # Two words keep a row to about 1/127^2 of its largest value.
    tol = 1e-5 if numerics is Numerics.F32 else 1e-3
    close(f"{kind} window", a.get("o"), want.reshape(-1), np.nanmax(np.abs(vc)), tol=tol)
    if window < pos.max():  # the window changes the result: the full causal attention is far from it
        full = attention(q, np.nan_to_num(kc), np.nan_to_num(vc), pos, heads, kv)  # the unseen as 0, not NaN
        assert np.abs(full - want).max() > 1e-2


# -- router gates ---------------------------------------------------------------------------------------------------


def routed(logits: np.ndarray, topk: int, renormalise: bool) -> tuple[np.ndarray, np.ndarray]:
    """A sparse MoE block's router (MixtralSparseMoeBlock, Qwen2MoeSparseMoeBlock): routing_weights =
    softmax(router_logits) over all experts; (weights, experts) = topk(routing_weights, k); weights /= their sum
    where renormalised (Mixtral always, Qwen2-MoE where norm_topk_prob). The experts and their weights, in float64."""
    p = np.exp(logits - logits.max(axis=-1, keepdims=True))
    p /= p.sum(axis=-1, keepdims=True)
    chosen = np.argsort(-p, axis=-1, kind="stable")[..., :topk]
    weights = np.take_along_axis(p, chosen, axis=-1)
    if renormalise:
        weights = weights / weights.sum(axis=-1, keepdims=True)
    return chosen, weights


def silu(x):
    return x / (1 + np.exp(-x))


@pytest.mark.parametrize("gates", ["chosen", "all"])
@pytest.mark.parametrize(
    "kind, rows, router_split",
    [("moe", 1, 1), ("moe", 3, 1), ("moe", 3, 2), ("moe_shared", 1, 1), ("moe_shared", 4, 1)],
)
def test_router_gates(gates, kind, rows, router_split):
    """`gates(chosen)` is Mixtral's router (and Qwen3-MoE's with norm_topk_prob); `gates(all)` Qwen2-MoE's with
    norm_topk_prob false, its shared expert weighed by sigmoid(x . w_shared_gate)."""
    experts, topk, d, f, fs = 8, 3, 64, 64, 96
    r = rng(74 + rows)
    x = r.standard_normal((rows, d))
    router = r.standard_normal((experts, d)) / 4
    wg, wu = (r.standard_normal((experts, f, d)) / np.sqrt(d) for _ in range(2))
    wd = r.standard_normal((experts, d, f)) / np.sqrt(f)
    weights = [("wr", router), ("wg", wg), ("wu", wu), ("wd", wd)]
    if kind == "moe_shared":
        sg, su = (r.standard_normal((fs, d)) / np.sqrt(d) for _ in range(2))
        weights += [
            ("sg", sg),
            ("su", su),
            ("sd", r.standard_normal((d, fs)) / np.sqrt(fs)),
            ("sr", r.standard_normal((1, d))),
        ]
    ins = [(tensor("x", [rows * d]), PLAIN)] + [(tensor(n, w.shape, role=Role.WEIGHT), PLAIN) for n, w in weights]
    params = {"experts": experts, "topk": topk, "gates": gates} | (
        {"router_split": router_split} if router_split > 1 else {}
    )
    a = setup(kind, ins, [(tensor("o", [rows * d]), PLAIN)], params)
    xs = put_x(a, "x", PLAIN, x).reshape(rows, d)
    w = {n: a.put_weight(n, v) for n, v in weights}
    a.output("o")
    a.run()
    chosen, weight = routed(xs @ w["wr"].T, topk, renormalise=gates == "chosen")
    got_ids = a.dev.download(a.scratch("i"), I32, rows * topk).reshape(rows, topk)
    assert (got_ids == chosen).all()
    close(f"router gates({gates})", a.dev.download(a.scratch("g"), F32, rows * topk), weight.reshape(-1), 1.0)
    want = np.zeros((rows, d))
    for i in range(rows):
        for j, e in enumerate(chosen[i]):
            want[i] += weight[i, j] * (w["wd"][e] @ (silu(w["wg"][e] @ xs[i]) * (w["wu"][e] @ xs[i])))
        if kind == "moe_shared":
            shared = w["sd"] @ (silu(w["sg"] @ xs[i]) * (w["su"] @ xs[i]))
            want[i] += shared / (1 + np.exp(-(w["sr"] @ xs[i])[0]))
    close(f"{kind} gates({gates})", a.get("o"), want.reshape(-1), np.abs(want).max())
    if gates == "all":  # not renormalised: the kept weights sum to less than 1
        assert (weight.sum(axis=1) < 1 - 1e-3).all()
