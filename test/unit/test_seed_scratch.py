"""Every launch kind's scratch against the seed's `scratch()` (../shared/seed/000_919828e1a8c71d07.txt), ported arm
by arm in `seed_scratch` (which imports nothing from the package), over many shapes and every numerics.

The package's scratch is read only through its stable paths: a launch built as plain data (`model.Launch`, its
kind, operands and parameters), turned into IR (`support.from_model`) and back (`passes.convert.step_of`), whose
`Launch.scratch` is what the placement sees. The helpers the seed does not show are the port's own; a test holds
them to the package's `kernel_shapes`."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lanearena import kernel_shapes
from lanearena.model import QBLOCK, Form, Launch, Numerics, Role, Step, Tensor, Touch, Write
from lanearena.passes.convert import step_of, steps

from .support import seed_scratch as port
from .support.from_model import module_of
from .support.reference_step import OPERANDS
from .support.seed_scratch import ARMS_SEEN, expected

NUMERICS = tuple(Numerics)
TYPES = {"float": "f32", "int": "i32", "signed char": "i8"}
"""The seed's C element types by lanearena's names."""

KINDS = sorted(OPERANDS)


def package(kind: str, t: dict[str, Tensor], p: dict, numerics: Numerics) -> list[tuple[str, str, int, bool]]:
    """The scratch the package gives a launch of `kind` over `t` (tensors by operand) with parameters `p`: the
    launch as plain data, through the IR and back. What it reads and does not write is the step's input."""
    ins, outs = OPERANDS[kind]
    written = {t[o].name for o in outs}
    tensors = {}
    for operand in (*ins, *outs):
        x = t[operand]
        computed_input = x.role is Role.COMPUTED and x.name not in written
        tensors[x.name] = Tensor(x.name, x.shape, x.elem, Role.INPUT) if computed_input else x
    form = Form.QUANT if kind == "quantize" else Form.PLAIN
    if kind == "quantize":
        tensors[t["out"].name] = Tensor(t["out"].name, t["out"].shape, "f32", Role.COMPUTED, frozenset({form}))
    launch = Launch(
        kind,
        tuple(t[o].name for o in ins),
        tuple(dict.fromkeys(t[o].name for o in outs)),
        dict(p),
        reads=tuple(Touch(t[o].name, Form.PLAIN) for o in ins),
        writes=tuple(Write(t[o].name, form) for o in outs),
    )
    (got,) = step_of(steps(module_of(Step("s", numerics, tensors, [launch])))[0])[0].launches
    return [(s.tag, s.elem, s.bytes, s.counter) for s in got.scratch]


def check(kind: str, t: dict[str, Tensor], p: dict, numerics: Numerics) -> None:
    want = [(tag, TYPES[ty], n, c) for tag, ty, n, c in expected(kind, t, p, numerics)]
    assert package(kind, t, p, numerics) == want, (kind, p, numerics)


# --- Launches of every kind over drawn shapes ----------------------------------------------------------------------


def T(name: str, *shape: int, role: Role = Role.COMPUTED, elem: str = "f32") -> Tensor:
    return Tensor(name, tuple(shape), elem, role)


def W(name: str, *shape: int) -> Tensor:
    return T(name, *shape, role=Role.WEIGHT)


dims = st.integers(1, 12).map(lambda b: b * QBLOCK)


@st.composite
def products(draw, kind: str):
    rows, n, k = draw(st.integers(1, 150)), draw(st.integers(1, 300)), draw(dims)
    split = draw(st.sampled_from([1, 2, 3, 4, 8]))
    t = {"x": T("x", rows * k), "out": T("out", rows * n)}
    p = {"split": split}
    if kind in ("glu", "glu_tc", "glu_bias", "norm_glu"):
        t |= {"w_gate": W("wg", n, k), "w_up": W("wu", n, k)}
    else:
        t |= {"w": W("w", n, k)}
    if kind == "gemv_bias":
        t |= {"bias": W("b", n)}
    if kind == "glu_bias":
        t |= {"b_gate": W("bg", n), "b_up": W("bu", n)}
    if kind.endswith("_tc"):
        m = rows
        wide = port.gemm_tiles_wide(2 * n if kind == "glu_tc" else n)
        tiles = wide * -(-m // port.gemm_rows(m))
        p["whole"] = draw(st.integers(0, tiles - 1))
    if kind == "gemv_rope":
        heads, kv, hd = draw(st.integers(1, 8)), draw(st.integers(1, 4)), 2 * draw(st.integers(1, 16))
        n = (heads + 2 * kv) * hd
        t |= {"w": W("w", n, k), "out": T("out", rows * n), "pos": T("pos", rows, elem="i32")}
        p |= {"heads": heads, "kv_heads": kv}
    if kind == "gemv_norm":
        t |= {"gain": W("gain", n), "normed": T("normed", rows * n)}
    if kind.startswith("norm_"):  # lane-fuse's: the prologue's norm and its gain, the bias where it has one
        t |= {"gain": W("gain", k), "bias": W("b", n)}
    if kind.startswith("gemv_add"):  # the residual the epilogue adds, and the norm after it
        t |= {"residual": T("res", rows * n), "gain": W("gain", n), "normed": T("normed", rows * n)}
    return t, p


@st.composite
def attentions(draw, kind: str):
    kv, group, hd = draw(st.integers(1, 4)), draw(st.integers(1, 4)), 2 * draw(st.integers(1, 64))
    heads, rows, length = kv * group, draw(st.integers(1, 70)), draw(st.integers(1, 4096))
    t = {
        "q": T("q", rows, heads * hd),
        "k_cache": T("kc", length, kv * hd),
        "v_cache": T("vc", length, kv * hd),
        "pos": T("pos", rows, elem="i32"),
        "out": T("out", rows, heads * hd),
    }
    # A sliding window changes which positions a row reads, not the scratch.
    p = {"heads": heads, "kv_heads": kv, "window": draw(st.sampled_from([0, 1, 17, length]))}
    if kind != "attention_i8x2":
        p["splits"] = draw(st.sampled_from([1, 2, 3, 8, 16]))
    return t, p


@st.composite
def mixtures(draw, kind: str):
    experts = draw(st.integers(1, 200))
    topk, d, f = draw(st.integers(1, min(experts, 8))), draw(dims), draw(dims)
    rows = 1 if kind in ("moe_shared", "moe_shared_add") else draw(st.sampled_from([1, 1, 2, 5, 64, 65, 130]))
    t = {
        "x": T("x", rows * d),
        "w_router": W("wr", experts, d),
        "w_gate": W("wg", experts, f, d),
        "w_up": W("wu", experts, f, d),
        "w_down": W("wd", experts, d, f),
        "out": T("out", rows * d),
        "residual": T("res", rows * d),
        "gain": W("gain", d),
        "normed": T("normed", rows * d),
    }
    p = {"experts": experts, "topk": topk, "gates": draw(st.sampled_from(["chosen", "all"]))}  # no scratch of its own
    tc = draw(st.booleans())
    p |= {
        "router_split": draw(st.sampled_from([1, 2, 4])),
        **({"tc": 1} if tc else {}),
        **({"paired": 1} if tc and draw(st.booleans()) else {}),
    }
    if kind in ("moe_shared", "moe_shared_add"):
        fs = draw(dims)
        t |= {
            "w_shared_gate": W("sg", fs, d),
            "w_shared_up": W("su", fs, d),
            "w_shared_down": W("sd", d, fs),
            "w_shared_router": W("sr", 1, d),
        }
    return t, p


@st.composite
def deltas(draw):
    hk, ratio, d = draw(st.integers(1, 4)), draw(st.integers(1, 3)), draw(st.sampled_from([8, 32, 64, 128]))
    hv, rows = hk * ratio, draw(st.sampled_from([1, 1, 2, 63, 64, 65, 200]))
    seqs = draw(st.sampled_from([1, 2, 9])) if rows == 1 else 1  # a batched decode step's: a row a sequence
    rows *= seqs
    slots = (seqs,) if seqs > 1 else ()
    t = {
        "qkv": T("qkv", rows, (2 * hk + hv) * d),
        "z": T("z", rows, hv * d),
        "ab": T("ab", rows, 2 * hv),
        "a_log": W("a", hv),
        "dt_bias": W("dt", hv),
        "gain": W("g", d),
        "state": T("s", *slots, hv, d, d, role=Role.STATE),
        "out": T("out", rows, hv * d),
    }
    return t, {"key_heads": hk, **({"seqs": seqs} if seqs > 1 else {})}


@st.composite
def others(draw, kind: str):
    rows, d = draw(st.integers(1, 9)), draw(dims)
    v = draw(st.integers(1, 5000))
    table = {
        "argmax": ({"logits": T("l", rows, v), "out": T("tok", rows, elem="i32")}, {}),
        "gather": ({"table": W("e", v, d), "ids": T("ids", rows, elem="i32"), "out": T("x", rows, d)}, {}),
        "gather_norm": (
            {
                "table": W("e", v, d),
                "ids": T("ids", rows, elem="i32"),
                "gain": W("g", d),
                "x": T("x", rows, d),
                "out": T("h", rows, d),
            },
            {},
        ),
        "norm": ({"x": T("x", rows, d), "gain": W("g", d), "out": T("h", rows, d)}, {}),
        "quantize": ({"x": T("x", rows, d), "out": T("q", rows, d)}, {}),
        "binary": ({"a": T("a", rows * d), "b": T("b", rows * d), "out": T("c", rows * d)}, {}),
        "rope": ({"pos": T("pos", rows, elem="i32"), "x": T("q", rows, d)}, {"heads": 1}),
        "kv_store": (
            {
                "k": T("k", rows, d),
                "v": T("v", rows, d),
                "pos": T("pos", rows, elem="i32"),
                "k_cache": T("kc", 64, d, role=Role.STATE),
                "v_cache": T("vc", 64, d, role=Role.STATE),
            },
            {},
        ),
        "conv": (
            {"x": T("x", rows, d), "w": W("w", d, 4), "state": T("s", 3, d, role=Role.STATE), "out": T("y", rows, d)},
            {},
        ),
    }
    return table[kind]


PRODUCTS = ("gemv", "glu", "gemv_bias", "glu_bias", "gemm_tc", "glu_tc", "gemv_rope", "gemv_norm")
PRODUCTS += ("norm_gemv", "norm_gemv_bias", "norm_glu", "gemv_add", "gemv_add_norm")  # lane-fuse's
"""The kinds `products` draws."""


@st.composite
def fused_attentions(draw, kind: str):
    """A decode row's attention group in one launch (the seed shows no chunk's), its q/k-norms' gains where the kind
    norms."""
    kv, group, hd = draw(st.integers(1, 8)), draw(st.integers(1, 8)), 2 * draw(st.integers(1, 64))
    heads, length = kv * group, draw(st.integers(1, 4096))
    t = {
        "q": T("q", heads * hd),
        "k": T("k", kv * hd),
        "v": T("v", kv * hd),
        "pos": T("pos", 1, elem="i32"),
        "k_cache": T("kc", length, kv * hd, role=Role.STATE),
        "v_cache": T("vc", length, kv * hd, role=Role.STATE),
        "out": T("out", heads * hd),
    }
    if kind == "norm_rope_attention":
        t |= {"q_gain": W("qg", hd), "k_gain": W("kg", hd)}
    p = {"heads": heads, "kv_heads": kv, "splits": draw(st.sampled_from([1, 2, 3, 8, 16, 64]))}
    return t, p


def launches(kind: str):
    if kind.endswith("rope_attention"):
        return fused_attentions(kind)
    if kind in PRODUCTS:
        return products(kind)
    if kind.startswith("attention"):
        return attentions(kind)
    if kind.startswith("moe"):
        return mixtures(kind)
    if kind == "delta":
        return deltas()
    return others(kind)


def runs_under(kind: str) -> list[Numerics]:
    """The numerics a launch of `kind` verifies under: quantize quantizes, attention_i8x2 is int8x2's."""
    return [
        n
        for n in NUMERICS
        if (kind != "quantize" or n.quantized) and (kind != "attention_i8x2" or n is Numerics.INT8X2)
    ]


@pytest.mark.parametrize("kind", KINDS)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_every_kind_has_the_seeds_scratch(kind, data):
    t, p = data.draw(launches(kind))
    check(kind, t, p, data.draw(st.sampled_from(runs_under(kind))))


# --- Every arm, by a launch that takes it --------------------------------------------------------------------------

ARMS = {
    "delta in chunks": ("delta", 70),
    "delta stepped": ("delta", 1),
    "f32 gemm cut along k": ("gemv", 0),
    "batched mixture": ("moe", 0),
    "batched mixture on the tensor cores": ("moe", 1),
    "batched mixture, split router": ("moe", 2),
    "mixture, one row": ("moe", 3),
    "mixture, one row with a shared expert": ("moe_shared", 0),
    "tensor-core projection, cut last wave": ("gemm_tc", 0),
    "fold: gather": ("gather_norm", 0),
    "fold: rope": ("gemv_rope", 0),
    "fold: binary": ("moe_add", 0),
    "fold: a chunk's mixture": ("moe_add_norm", 0),
    "fold: last block norms": ("moe_add_norm", 1),
    "batch's gated pair on the tensor cores": ("glu_tc", 0),
    "arg-max": ("argmax", 0),
    "attention in two words": ("attention_i8x2", 0),
    "shared attention, split": ("attention_shared", 4),
    "shared attention, unsplit": ("attention_shared", 1),
    "parallel attention": ("attention", 4),
    "none": ("norm", 0),
}


def _example(kind: str, variant: int):
    """A launch of `kind` that takes one arm (`variant` picks rows, splits or flags)."""
    if kind == "delta":
        rows = variant
        hk, hv, d = 2, 4, 32
        return {
            "qkv": T("qkv", rows, (2 * hk + hv) * d),
            "z": T("z", rows, hv * d),
            "ab": T("ab", rows, 2 * hv),
            "a_log": W("a", hv),
            "dt_bias": W("dt", hv),
            "gain": W("g", d),
            "state": T("s", hv, d, d, role=Role.STATE),
            "out": T("o", rows, hv * d),
        }, {"key_heads": hk}
    if kind in ("gemv", "gemm_tc", "glu_tc", "gemv_rope"):
        rows = 3 if kind == "glu_tc" else 70
        t = {
            "x": T("x", rows * 64),
            "out": T("out", rows * 192),
            "w": W("w", 192, 64),
            "w_gate": W("wg", 192, 64),
            "w_up": W("wu", 192, 64),
            "pos": T("pos", rows, elem="i32"),
        }
        p = {"split": 1 if kind == "glu_tc" else 4} | ({"whole": 1} if kind == "gemm_tc" else {})
        if kind == "gemv_rope":
            p |= {"heads": 2, "kv_heads": 1}
        if kind == "glu_tc":
            t = {k: v for k, v in t.items() if k != "w"}
        return t, p
    if kind.startswith("moe"):
        rows = 1 if (kind == "moe" and variant == 3) or kind == "moe_shared" or variant == 1 else 6
        t = {
            "x": T("x", rows * 64),
            "w_router": W("wr", 8, 64),
            "w_gate": W("wg", 8, 96, 64),
            "w_up": W("wu", 8, 96, 64),
            "w_down": W("wd", 8, 64, 96),
            "out": T("out", rows * 64),
            "residual": T("res", rows * 64),
            "gain": W("g", 64),
            "normed": T("n", rows * 64),
            "w_shared_gate": W("sg", 32, 64),
            "w_shared_up": W("su", 32, 64),
            "w_shared_down": W("sd", 64, 32),
            "w_shared_router": W("sr", 1, 64),
        }
        p = {"experts": 8, "topk": 2} | ({"tc": 1} if kind == "moe" and variant == 1 else {})
        if kind == "moe" and variant == 1:
            t |= {"x": T("x", 6 * 64), "out": T("out", 6 * 64)}
        p |= {"router_split": 2} if kind == "moe" and variant == 2 else {}
        return t, p
    if kind.startswith("attention"):
        t = {
            "q": T("q", 2, 4 * 16),
            "k_cache": T("kc", 32, 2 * 16),
            "v_cache": T("vc", 32, 2 * 16),
            "pos": T("pos", 2, elem="i32"),
            "out": T("o", 2, 4 * 16),
        }
        return t, {"heads": 4, "kv_heads": 2} | ({} if kind == "attention_i8x2" else {"splits": variant})
    if kind == "gather_norm":
        return {
            "table": W("e", 10, 32),
            "ids": T("ids", 2, elem="i32"),
            "gain": W("g", 32),
            "x": T("x", 2, 32),
            "out": T("h", 2, 32),
        }, {}
    if kind == "argmax":
        return {"logits": T("l", 2, 3000), "out": T("tok", 2, elem="i32")}, {}
    return {"x": T("x", 2, 32), "gain": W("g", 32), "out": T("h", 2, 32)}, {}


@pytest.mark.parametrize("arm", sorted(ARMS))
@pytest.mark.parametrize("numerics", NUMERICS)
def test_every_arm_of_the_seed_is_taken_and_agrees(arm, numerics):
    kind, variant = ARMS[arm]
    if arm == "f32 gemm cut along k" and numerics.quantized:
        pytest.skip("the seed's GemvF32 is the f32 product")
    if numerics not in runs_under(kind):
        pytest.skip(f"{kind} runs under {', '.join(n.value for n in runs_under(kind))} only")
    t, p = _example(kind, variant)
    ARMS_SEEN.clear()
    check(kind, t, p, numerics)
    assert arm in ARMS_SEEN, ARMS_SEEN


def test_a_quantized_split_product_is_ours_and_its_counter_counts_tiles():
    t = {"x": T("x", 70 * 64), "w": W("w", 192, 64), "out": T("out", 70 * 192)}
    got = package("gemv", t, {"split": 4}, Numerics.INT8)
    assert got == [("fp", "f32", 4 * 70 * 192 * 4, False), ("fq", "i32", 3 * 2 * 4, True)]


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 5000), st.integers(1, 64), st.integers(1, 512), st.sampled_from(NUMERICS))
def test_the_helpers_the_seed_does_not_show_are_the_packages(n, heads, d, numerics):
    """The port's own helpers (from the seed's comments and docs/placement.md) against the package's `kernel_shapes`."""
    constants = ("DELTA_CHUNK", "GEMM_TILE_N", "GEMM_ROWS", "ARGMAX_BLOCK")
    assert [getattr(port, c) for c in constants] == [getattr(kernel_shapes, c) for c in constants]
    assert port.delta_chunk_scratch(n, heads, d) == kernel_shapes.delta_chunk_scratch(n, heads, d)
    assert port.attn_i8_scratch(n, heads, d, d + 2) == kernel_shapes.attn_i8_scratch(n, heads, d, d + 2)
    assert port.argmax_blocks(n) == kernel_shapes.argmax_blocks(n)
    assert port.gemm_rows(n) == kernel_shapes.gemm_rows(n, numerics)
    assert port.gemm_tiles_wide(n) == kernel_shapes.gemm_tiles_wide(n)
    assert port.delta_in_chunks(n) == kernel_shapes.delta_in_chunks(n)
    assert port.multiplies_in_tiles(numerics) == kernel_shapes.multiplies_in_tiles(numerics)
    assert port.attends_in_tiles() == kernel_shapes.attends_in_tiles()
    nbytes, elem = port.accumulator(numerics)
    assert (nbytes, TYPES[elem]) == kernel_shapes.accumulator(numerics)
