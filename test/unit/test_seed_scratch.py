"""Every launch kind's scratch against the seed's `scratch()` (../shared/seed/000_919828e1a8c71d07.txt), ported arm
by arm from the seed's text below, over many shapes and every numerics.

`seed_scratch` is the port: it takes the seed's `Launch` (as the small records here) and returns the seed's list of
`Scratch` (tag, element type, bytes, counter), in the seed's order. Only the helpers the seed calls without showing
them come from the package (`lanearena.seedhelpers`, our documented choices); every formula the seed gives is
written here. `as_seed` says which of the seed's launches each lanearena kind is."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lanearena import seedhelpers as kernels
from lanearena.dialects.kinds import KERNEL_OPS
from lanearena.model import QBLOCK, Form, Numerics, Role, Tensor

from .launches import launch_op

NUMERICS = tuple(Numerics)
TYPES = {"float": "f32", "int": "i32", "signed char": "i8"}
"""The seed's C element types by lanearena's names."""

ARMS_SEEN: set[str] = set()


# --- The seed's launches, as far as scratch() reads them ------------------------------------------------------------


@dataclass
class Delta:
    hv: int
    d: int
    rows: int
    seqs: int


@dataclass
class GemvF32:
    n: int
    m: int
    split: int


@dataclass
class Gemv:
    """`Launch::Gemv` / `GemmParts`: `tail` is Some((whole, split)) or None."""

    n: int
    m: int
    tail: tuple[int, int] | None
    tensor_cores: bool = False

    def gemm_tiles_wide(self) -> int:
        return kernels.gemm_tiles_wide(self.n)

    def gemm_rows(self, numerics: Numerics) -> int:
        return kernels.gemm_rows(self.m, numerics)


@dataclass
class GemvGlu:
    n: int
    m: int
    tail: tuple[int, int] | None
    tensor_cores: bool = False
    batch_tensor_cores: bool = False

    def gemm_tiles_wide(self) -> int:
        return kernels.gemm_tiles_wide(2 * self.n)

    def gemm_rows(self, numerics: Numerics) -> int:
        return kernels.gemm_rows(self.m, numerics)


@dataclass
class Expert:
    dff: int


@dataclass
class Moe:
    d: int
    dff: int
    k: int
    experts: int
    rows: int
    router_split: int
    shared: Expert | None = None
    tensor_cores: bool = False
    paired: bool = False


@dataclass
class ArgMax:
    n: int
    rows: int


@dataclass
class Attention:
    heads: int
    group: int
    hd: int
    vd: int
    len: int
    rows: int
    per_block: int
    splits: int
    parallel: bool
    shared: int | None = None
    two_words: bool = False
    in_tiles: bool = False


@dataclass
class RopeParts:
    sides: list[int]  # each side's heads


@dataclass
class Binary:
    pass


@dataclass
class Gather:
    pass


@dataclass
class Norm:
    pass


@dataclass
class Other:
    """Any launch with no arm of its own (norm, rope, quantize, kv_store, conv, ...)."""


@dataclass
class Fold:
    first: object
    then: object
    finished: object | None = field(default=None)
    """`l.finished_mixture()`: the mixture the fold finishes, if any."""


# --- The port of scratch() -----------------------------------------------------------------------------------------


def seed_scratch(l, numerics: Numerics) -> list[tuple[str, str, int, bool]]:  # noqa: E741 (the seed's name)
    """The seed's `scratch(l, numerics)`, arm by arm; each arm taken is recorded in ARMS_SEEN."""
    m = 0 if numerics is Numerics.F32 else 1  # kernels::mode: 0 for f32 activations
    two = numerics is Numerics.INT8X2
    acc, acc_ty = kernels.accumulator(numerics)
    acc_ty = {"f32": "float"}.get(acc_ty, acc_ty)

    def t(tag, ty, nbytes):
        return (tag, ty, nbytes, False)

    def counter(tag, nbytes):
        return (tag, "int", nbytes, True)

    def quantized(v, tags, n):
        q, lo, sc = tags
        v.append(t(q, "signed char", n))
        if two:
            v.append(t(lo, "signed char", n))
        v.append(t(sc, "float", n // QBLOCK * 4))

    def arm(name):
        ARMS_SEEN.add(name)

    match l:
        case Delta(hv=hv, d=d, rows=rows) if kernels.delta_in_chunks(rows):
            arm("delta in chunks")
            kg, qg, tb, sc, dec = kernels.delta_chunk_scratch(-(-rows // kernels.DELTA_CHUNK), hv, d)
            return [
                t("o", "float", rows * hv * d * 4),
                t("dk", "float", kg * 4),
                t("dq", "float", qg * 4),
                t("dt", "float", tb * 4),
                t("dp", "float", sc * 4),
                t("dg", "float", dec * 4),
            ]
        case Delta(hv=hv, d=d, rows=rows, seqs=seqs):
            arm("delta stepped")
            return [t("o", "float", rows * hv * d * seqs * 4), counter("dc", hv * seqs * 4)]
        case GemvF32(n=n, m=mm, split=split) if split > 1 and kernels.multiplies_in_tiles(numerics):
            arm("f32 gemm cut along k")
            tiles = -(-n // 64) * -(-mm // 64)
            return [t("fp", "float", tiles * split * 256 * 16 * 4), counter("fq", tiles * 4)]
        case Moe(d=d, dff=dff, k=k, experts=experts, rows=rows, router_split=router_split) if rows > 1:
            arm("batched mixture")
            choices = rows * k
            v = [
                t("i", "int", choices * 4),
                t("g", "float", choices * 4),
                t("rl", "float", rows * experts * 4),
                counter("rc", rows * 4),
                t("ec", "int", experts * 4),
                t("eo", "int", (experts + 1) * 4),
                t("el", "int", choices * 4),
                t("ep", "int", choices * 4),
                t("pa", acc_ty, choices * d * acc),
            ]
            if not l.paired:
                v.append(t("h", "float", choices * dff * 4))
            if m == 0:
                v.append(t("gx", "float", choices * d * 4))
            else:
                quantized(v, ["gq", "gl", "gs"], choices * d)
                quantized(v, ["hq", "hl", "hs"], choices * dff)
            if l.tensor_cores and not l.paired:
                arm("batched mixture on the tensor cores")
                v.extend([t("hg", "float", choices * dff * 4), t("hu", "float", choices * dff * 4)])
            if router_split > 1:
                arm("batched mixture, split router")
                tiles = -(-experts // 64) * -(-rows // 64)
                v.extend([t("rp", "float", tiles * router_split * 256 * 16 * 4), counter("rq", tiles * 4)])
            return v
        case Moe(dff=dff, k=k, experts=experts, shared=shared):
            arm("mixture, one row" + (" with a shared expert" if shared else ""))
            hidden = k * dff + (shared.dff if shared else 0)
            v = [
                t("i", "int", k * 4),
                t("g", "float", k * 4),
                t("h", "float", hidden * 4),
                t("rl", "float", experts * 4),
                counter("rc", 4),
            ]
            if m > 0:
                quantized(v, ["hq", "hl", "hs"], hidden)
            return v
        case Gemv(m=mm, tail=(whole, split)) | GemvGlu(m=mm, tail=(whole, split)) if l.tensor_cores:
            arm("tensor-core projection, cut last wave")
            rows = l.gemm_rows(numerics)
            tiles = l.gemm_tiles_wide() * -(-mm // rows)
            parts = (tiles - whole) * split
            return [t("tp", "float", parts * rows * kernels.GEMM_TILE_N * 4), counter("tc", (tiles - whole) * 4)]
        case Fold(first=first, then=then):
            v = seed_scratch(first, numerics)
            match (first, then):
                case (Gather(), _):
                    arm("fold: gather")
                case (_, RopeParts(sides=sides)):
                    arm("fold: rope")
                    v.append(counter("gc", sum(sides) * 4))
                case (_, Binary()):
                    arm("fold: binary")
                case _:
                    if isinstance(l.finished, Moe) and l.finished.rows > 1:
                        arm("fold: a chunk's mixture")
                    else:
                        arm("fold: last block norms")
                        v.append(counter("gc", 4))
            return v
        case GemvGlu(n=n, m=mm) if l.batch_tensor_cores:
            arm("batch's gated pair on the tensor cores")
            return [t("mg", "float", mm * n * 4), t("mu", "float", mm * n * 4)]
        case ArgMax(n=n, rows=rows):
            arm("arg-max")
            blocks = kernels.argmax_blocks(n)
            return [t("av", "float", rows * blocks * 4), t("ai", "int", rows * blocks * 4), counter("ac", rows * 4)]
        case Attention(heads=heads, group=group, hd=hd, vd=vd, len=length) if l.two_words:
            arm("attention in two words")
            k, v, sc = kernels.attn_i8_scratch(length, heads // group, hd, vd)
            return [t("ak", "signed char", k), t("aw", "signed char", v), t("as", "float", sc)]
        case Attention(heads=heads, vd=vd, rows=rows, shared=splits) if splits is not None and splits > 1:
            arm("shared attention, split")
            return [t("ap", "float", rows * heads * splits * (vd + 2) * 4)]
        case Attention(shared=shared) if shared is not None:
            arm("shared attention, unsplit")
            return []
        case Attention(
            heads=heads, vd=vd, rows=rows, per_block=per_block, splits=splits, parallel=True, shared=None
        ) if not l.in_tiles:
            arm("parallel attention")
            return [
                t("ap", acc_ty, rows * heads * splits * (vd + 2) * acc),
                counter("ac", rows * heads // per_block * 4),
            ]
        case _:
            arm("none")
            return []


# --- Which seed launch each lanearena kind is ---------------------------------------------------------------------


def as_seed(kind: str, t: dict[str, Tensor], p: dict, numerics: Numerics):
    """The seed's launch a lanearena launch of `kind` over tensors `t` (by operand) with parameters `p` is."""

    def rows(x: str, width: int) -> int:
        return t[x].length // width

    def product(w: str):
        n, k = t[w].shape[0], t[w].shape[-1]
        return n, rows("x", k)

    def mixture(shared=None):
        _, f, d = t["w_gate"].shape
        return Moe(
            d,
            f,
            p["topk"],
            p["experts"],
            rows("x", d),
            p.get("router_split", 1),
            shared,
            bool(p.get("tc", 0)),
            bool(p.get("paired", 0)),
        )

    def gemv_like():
        n, m = product("w")
        if numerics is Numerics.F32:
            return GemvF32(n, m, p.get("split", 1))
        return OURS  # the seed's quantized projection is cut along k only on the tensor cores

    # A bias is added where a product writes its sums: the seed's projection, with no scratch of its own.
    match kind:
        case "gemv" | "gemv_bias":
            return gemv_like()
        case "glu" | "glu_bias":
            return OURS if p.get("split", 1) > 1 else GemvGlu(*product("w_gate"), None)
        case "gemm_tc":
            n, m = product("w")
            split = p.get("split", 1)
            return Gemv(n, m, (p.get("whole", 0), split) if split > 1 else None, tensor_cores=True)
        case "glu_tc":
            n, m = product("w_gate")
            split = p.get("split", 1)
            return GemvGlu(n, m, (p.get("whole", 0), split) if split > 1 else None, True, m > 1)
        case "attention" | "attention_shared" | "attention_i8x2":
            heads, kv = p["heads"], p["kv_heads"]
            hd = t["q"].shape[-1] // heads
            splits = p.get("splits", 1)
            return Attention(
                heads,
                heads // kv,
                hd,
                hd,
                t["k_cache"].shape[0],
                rows("q", heads * hd),
                1,
                splits,
                parallel=splits > 1,
                shared=splits if kind == "attention_shared" else None,
                two_words=kind == "attention_i8x2",
                in_tiles=kernels.attends_in_tiles(),
            )
        case "moe":
            return mixture()
        case "moe_shared":
            return mixture(Expert(t["w_shared_gate"].shape[0]))
        case "argmax":
            n = t["logits"].shape[-1]
            return ArgMax(n, rows("logits", n))
        case "delta":
            hv, d = t["state"].shape[0], t["state"].shape[-1]
            return Delta(hv, d, rows("z", hv * d), 1)
        case "binary":
            return Binary()
        case "gather":
            return Gather()
        case "gather_norm":
            return Fold(Gather(), Norm())
        case "gemv_rope":
            return Fold(gemv_like(), RopeParts([p["heads"], p["kv_heads"]]))
        case "gemv_norm":
            return Fold(gemv_like(), Norm())
        case "moe_add":
            return Fold(mixture(), Binary())
        case "moe_add_norm":
            mix = mixture()
            return Fold(Fold(mix, Binary()), Norm(), finished=mix)
        case _:
            return Other()


OURS = object()
"""A launch whose scratch the seed's `scratch()` does not give: a quantized product (gemv, glu) cut along k off the
tensor cores, which the seed never makes. lanearena's kernels meet its parts in scratch of their own (`ours`)."""


def ours(kind: str, t: dict[str, Tensor], p: dict, numerics: Numerics) -> list[tuple[str, str, int, bool]]:
    """lanearena's own scratch for the launches of OURS (README, "Launch kinds"): each part's sums (gate and up for
    a gated pair) [copies, split, rows, n] and a count per tile of 64 rows and 64 columns (a gated pair: per row)."""
    w = t.get("w", t.get("w_gate"))
    n, k = w.shape[0], w.shape[-1]
    rows, split = t["x"].length // k, p.get("split", 1)
    if split == 1:
        return []
    if kind in ("glu", "glu_bias"):
        return [("gp", "float", 2 * split * rows * n * 4, False), ("gq", "int", rows * -(-n // 64) * 4, True)]
    return [("fp", "float", split * rows * n * 4, False), ("fq", "int", -(-n // 64) * -(-rows // 64) * 4, True)]


def expected(kind: str, t: dict[str, Tensor], p: dict, numerics: Numerics):
    seed = as_seed(kind, t, p, numerics)
    if seed is OURS:
        return ours(kind, t, p, numerics)
    if isinstance(seed, Fold) and seed.first is OURS:
        tail = seed_scratch(Fold(Other(), seed.then, seed.finished), numerics)
        return ours(kind, t, p, numerics) + tail
    return seed_scratch(seed, numerics)


def package(kind: str, t: dict[str, Tensor], p: dict, numerics: Numerics):
    k = KERNEL_OPS[kind]
    ins = [(t[n], Form.PLAIN) for n in k.ins()]
    outs = [(t[n], Form.PLAIN) for n in k.WRITES]
    op = launch_op(kind, ins, outs, p, numerics)
    return [(s.tag, s.elem, s.bytes, s.counter) for s in op.scratch(numerics)]


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
    if kind in ("glu", "glu_tc", "glu_bias"):
        t |= {"w_gate": W("wg", n, k), "w_up": W("wu", n, k)}
    else:
        t |= {"w": W("w", n, k)}
    if kind == "gemv_bias":
        t |= {"bias": W("b", n)}
    if kind == "glu_bias":
        t |= {"b_gate": W("bg", n), "b_up": W("bu", n)}
    if kind.endswith("_tc"):
        m = rows
        wide = kernels.gemm_tiles_wide(2 * n if kind == "glu_tc" else n)
        tiles = wide * -(-m // kernels.gemm_rows(m, Numerics.F32))
        p["whole"] = draw(st.integers(0, tiles - 1))
    if kind == "gemv_rope":
        heads, kv, hd = draw(st.integers(1, 8)), draw(st.integers(1, 4)), 2 * draw(st.integers(1, 16))
        n = (heads + 2 * kv) * hd
        t |= {"w": W("w", n, k), "out": T("out", rows * n), "pos": T("pos", rows, elem="i32")}
        p |= {"heads": heads, "kv_heads": kv}
    if kind == "gemv_norm":
        t |= {"gain": W("gain", n), "normed": T("normed", rows * n)}
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
    p = {"heads": heads, "kv_heads": kv}
    if kind != "attention_i8x2":
        p["splits"] = draw(st.sampled_from([1, 2, 3, 8, 16]))
    return t, p


@st.composite
def mixtures(draw, kind: str):
    experts = draw(st.integers(1, 200))
    topk, d, f = draw(st.integers(1, min(experts, 8))), draw(dims), draw(dims)
    rows = 1 if kind == "moe_shared" else draw(st.sampled_from([1, 1, 2, 5, 64, 65, 130]))
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
    p = {"experts": experts, "topk": topk}
    tc = draw(st.booleans())
    p |= {
        "router_split": draw(st.sampled_from([1, 2, 4])),
        **({"tc": 1} if tc else {}),
        **({"paired": 1} if tc and draw(st.booleans()) else {}),
    }
    if kind == "moe_shared":
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
    t = {
        "qkv": T("qkv", rows, (2 * hk + hv) * d),
        "z": T("z", rows, hv * d),
        "ab": T("ab", rows, 2 * hv),
        "a_log": W("a", hv),
        "dt_bias": W("dt", hv),
        "gain": W("g", d),
        "state": T("s", hv, d, d, role=Role.STATE),
        "out": T("out", rows, hv * d),
    }
    return t, {"key_heads": hk}


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
        "quantize": ({"x": T("x", rows, d), "out": T("x", rows, d)}, {}),
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


def launches(kind: str):
    if kind in ("gemv", "glu", "gemv_bias", "glu_bias", "gemm_tc", "glu_tc", "gemv_rope", "gemv_norm"):
        return products(kind)
    if kind.startswith("attention"):
        return attentions(kind)
    if kind.startswith("moe"):
        return mixtures(kind)
    if kind == "delta":
        return deltas()
    return others(kind)


@pytest.mark.parametrize("kind", sorted(KERNEL_OPS))
@settings(max_examples=60, deadline=None, derandomize=True)
@given(data=st.data(), numerics=st.sampled_from(NUMERICS))
def test_every_kind_has_the_seeds_scratch(kind, data, numerics):
    t, p = data.draw(launches(kind))
    check(kind, t, p, numerics)


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
    if arm == "f32 gemm cut along k" and numerics is not Numerics.F32:
        pytest.skip("the seed's GemvF32 is the f32 product")
    t, p = _example(kind, variant)
    ARMS_SEEN.clear()
    check(kind, t, p, numerics)
    assert arm in ARMS_SEEN, ARMS_SEEN


def test_a_quantized_split_product_is_ours_and_its_counter_counts_tiles():
    t = {"x": T("x", 70 * 64), "w": W("w", 192, 64), "out": T("out", 70 * 192)}
    got = package("gemv", t, {"split": 4}, Numerics.INT8)
    assert got == [("fp", "f32", 4 * 70 * 192 * 4, False), ("fq", "i32", 3 * 2 * 4, True)]
