"""A port of the seed's `scratch()` (../shared/seed/000_919828e1a8c71d07.txt) arm by arm, sharing nothing with the
package: it imports nothing from `lanearena`. `seed_scratch` takes the seed's `Launch` (as the small records here)
and returns the seed's list of `Scratch` (tag, C element type, bytes, counter), in the seed's order; `as_seed` says
which of the seed's launches a lanearena launch is (its kind, its tensors by operand, read by attribute, and its
parameters); `expected` is the scratch a lanearena launch must ask for.

The seed calls helpers it does not show (`kernels::delta_chunk_scratch`, `attn_i8_scratch`, `argmax_blocks`,
`accumulator`, `GEMM_TILE_N`, `DELTA_CHUNK`, `Launch::gemm_rows`, `gemm_tiles_wide` and the predicates). The port
writes its own from the seed's comments ("each chunk's decayed keys and queries, `T·diag(β)`, masked scores and
decays", "every key and value row the attention reads, its high and low words, and each row's two scales", "the
arg-max's block maxima", "a tensor-core projection's parts of the tiles its last wave cuts along `k`") and the
choices docs/placement.md states for lanearena's kernels; `test_seed_scratch` holds them to the package's
`kernel_shapes`."""

from __future__ import annotations

from dataclasses import dataclass, field

QBLOCK = 32
"""Values per scale of a quantized array (GGML's Q8_0)."""

DELTA_CHUNK = 64
"""Rows of a chunk of the gated delta rule in chunks (flash-linear-attention's chunk)."""

GEMM_TILE_N = 64
"""Output columns of a tile of a projection on the tensor cores."""

GEMM_ROWS = 64
"""The most activation rows a tile of a projection on the tensor cores covers."""

ARGMAX_BLOCK = 1024
"""Values of a row one arg-max block reduces."""


def value(e) -> str:
    """An enumeration's value (numerics), or the string given."""
    return getattr(e, "value", e)


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


def delta_chunk_scratch(chunks: int, hv: int, d: int) -> list[int]:
    """Values of each chunk's decayed keys and decayed queries ([chunks, hv, DELTA_CHUNK, d] each), `T·diag(β)` and
    masked scores ([chunks, hv, DELTA_CHUNK, DELTA_CHUNK] each) and decays ([chunks, hv, DELTA_CHUNK])."""
    rows = chunks * hv * DELTA_CHUNK
    return [rows * d, rows * d, rows * DELTA_CHUNK, rows * DELTA_CHUNK, rows]


def attn_i8_scratch(length: int, kv_heads: int, hd: int, vd: int) -> list[int]:
    """Bytes of every key row's high and low words, every value row's, and each row and head's two f32 scales."""
    return [2 * length * kv_heads * hd, 2 * length * kv_heads * vd, length * kv_heads * 2 * 4]


def argmax_blocks(n: int) -> int:
    """Blocks an arg-max over a row of `n` values takes."""
    return cdiv(n, ARGMAX_BLOCK)


def accumulator(numerics) -> tuple[int, str]:
    """Bytes and C type of a partial sum: lanearena's kernels keep f32 under every numerics."""
    return 4, "float"


def gemm_rows(rows: int) -> int:
    """Rows a tile on the tensor cores covers: the batch, at most GEMM_ROWS."""
    return min(rows, GEMM_ROWS)


def gemm_tiles_wide(n: int) -> int:
    """Tiles across `n` columns of sums (a gated pair's are its gate and up sums, twice its outputs)."""
    return cdiv(n, GEMM_TILE_N)


def delta_in_chunks(rows: int) -> bool:
    """The delta rule runs in chunks over more than one row."""
    return rows > 1


def f32_activations(numerics) -> bool:
    """Whether the step's activations are f32 (the seed's mode 0): under f32, and under bf16 (bf16 weights only)."""
    return value(numerics) in ("f32", "bf16")


def multiplies_in_tiles(numerics) -> bool:
    """The f32 product cut along k meets its parts in 64 x 64 tiles."""
    return f32_activations(numerics)


def attends_in_tiles() -> bool:
    """No attention of lanearena's works in tiles."""
    return False


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
        return gemm_tiles_wide(self.n)

    def gemm_rows(self, numerics) -> int:
        return gemm_rows(self.m)


@dataclass
class GemvGlu:
    n: int
    m: int
    tail: tuple[int, int] | None
    tensor_cores: bool = False
    batch_tensor_cores: bool = False

    def gemm_tiles_wide(self) -> int:
        return gemm_tiles_wide(2 * self.n)

    def gemm_rows(self, numerics) -> int:
        return gemm_rows(self.m)


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


def seed_scratch(l, numerics: str) -> list[tuple[str, str, int, bool]]:  # noqa: E741 (the seed's name)
    """The seed's `scratch(l, numerics)`, arm by arm; each arm taken is recorded in ARMS_SEEN."""
    m = 0 if f32_activations(numerics) else 1  # kernels::mode: 0 for f32 activations
    two = value(numerics) == "int8x2"
    acc, acc_ty = accumulator(numerics)

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
        case Delta(hv=hv, d=d, rows=rows) if delta_in_chunks(rows):
            arm("delta in chunks")
            kg, qg, tb, sc, dec = delta_chunk_scratch(-(-rows // DELTA_CHUNK), hv, d)
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
        case GemvF32(n=n, m=mm, split=split) if split > 1 and multiplies_in_tiles(numerics):
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
            return [t("tp", "float", parts * rows * GEMM_TILE_N * 4), counter("tc", (tiles - whole) * 4)]
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
            blocks = argmax_blocks(n)
            return [t("av", "float", rows * blocks * 4), t("ai", "int", rows * blocks * 4), counter("ac", rows * 4)]
        case Attention(heads=heads, group=group, hd=hd, vd=vd, len=length) if l.two_words:
            arm("attention in two words")
            k, v, sc = attn_i8_scratch(length, heads // group, hd, vd)
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


def as_seed(kind: str, t: dict, p: dict, numerics: str):
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
        if f32_activations(numerics):
            return GemvF32(n, m, p.get("split", 1))
        return OURS  # the seed's quantized projection is cut along k only on the tensor cores

    # A bias is added where a product writes its sums: the seed's projection, with no scratch of its own.
    match kind:
        case "gemv" | "gemv_bias" | "norm_gemv" | "norm_gemv_bias":  # a prologue's norm asks for no scratch
            return gemv_like()
        case "gemv_add":
            return Fold(gemv_like(), Binary())
        case "gemv_add_norm":  # the add as gemv_add's, then gemv_norm's fold into a norm
            return Fold(gemv_like(), Norm())
        case "glu" | "glu_bias" | "norm_glu":
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
                in_tiles=attends_in_tiles(),
            )
        case "rope_attention" | "norm_rope_attention":
            # A decode row's: the seed's parallel attention, a kv group's q heads a block; the norms, ropes and the
            # cache append folded in ask for no scratch (a chunk's rows made first into `aq` are lanearena's own).
            heads, kv, splits = p["heads"], p["kv_heads"], p.get("splits", 1)
            hd = t["q"].shape[-1] // heads
            group = heads // kv
            return Attention(heads, group, hd, hd, t["k_cache"].shape[0], 1, group, splits, parallel=splits > 1)
        case "moe":
            return mixture()
        case "moe_shared":
            return mixture(Expert(t["w_shared_gate"].shape[0]))
        case "argmax":
            n = t["logits"].shape[-1]
            return ArgMax(n, rows("logits", n))
        case "delta":
            seqs = p.get("seqs", 1)  # the seed's rows are a sequence's, of `seqs` sequences
            hv, d = t["state"].shape[1 if seqs > 1 else 0], t["state"].shape[-1]
            return Delta(hv, d, rows("z", hv * d) // seqs, seqs)
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
        case "moe_shared_add":
            return Fold(mixture(Expert(t["w_shared_gate"].shape[0])), Binary())
        case "moe_add_norm":
            mix = mixture()
            return Fold(Fold(mix, Binary()), Norm(), finished=mix)
        case _:
            return Other()


OURS = object()
"""A launch whose scratch the seed's `scratch()` does not give: a quantized product (gemv, glu) cut along k off the
tensor cores, which the seed never makes. lanearena's kernels meet its parts in scratch of their own (`ours`)."""


def ours(kind: str, t: dict, p: dict, numerics: str) -> list[tuple[str, str, int, bool]]:
    """lanearena's own scratch for the launches of OURS (docs/placement.md, "What the reference does not show"):
    each part's sums (gate and up for a gated pair) [copies, split, rows, n] and a count per tile of 64 rows and 64
    columns (a gated pair: per row)."""
    w = t.get("w", t.get("w_gate"))
    n, k = w.shape[0], w.shape[-1]
    rows, split = t["x"].length // k, p.get("split", 1)
    if split == 1:
        return []
    if kind in ("glu", "glu_bias", "norm_glu"):
        return [("gp", "float", 2 * split * rows * n * 4, False), ("gq", "int", rows * -(-n // 64) * 4, True)]
    return [("fp", "float", split * rows * n * 4, False), ("fq", "int", -(-n // 64) * -(-rows // 64) * 4, True)]


def expected(kind: str, t: dict, p: dict, numerics: str):
    seed = as_seed(kind, t, p, numerics)
    if seed is OURS:
        return ours(kind, t, p, numerics)
    if isinstance(seed, Fold) and seed.first is OURS:
        tail = seed_scratch(Fold(Other(), seed.then, seed.finished), numerics)
        return ours(kind, t, p, numerics) + tail
    return seed_scratch(seed, numerics)
