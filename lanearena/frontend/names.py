"""How a Hugging Face checkpoint's tensors make a decoder step's weights: one table per `model_type` (the names its
modules save under, and what its architecture does to them), and `pieces`, which says for each weight of the step
the checkpoint tensors it is made of, their shapes, and where each goes: q, k and v (and their biases) fused into
one projection for a decode row, each of an expert's projections stacked over the experts, Qwen3-Next's projections
that interleave two outputs taken apart, norms that scale by 1 + w given as the gain they multiply by."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from lanearena.frontend.decoder_config import DecoderConfig


@dataclass(frozen=True)
class Table:
    """The checkpoint names of one model_type: its MLP's module (`mlp`, Mixtral's `block_sparse_moe`), its experts'
    gate, up and down projections, its norms' offset (Qwen3-Next's scale by 1 + w), whether its q projection
    interleaves each head's query with its output gate (Qwen3-Next), and the names of tensors transformers itself
    skips on load (`skipped`, patterns)."""

    mlp: str = "mlp"
    experts: tuple[str, str, str] = ("gate_proj", "up_proj", "down_proj")
    norm_offset: float = 0.0
    gated_q: bool = False
    skipped: tuple[str, ...] = (r"\.rotary_emb\.inv_freq$",)


TABLES: dict[str, Table] = {
    "llama": Table(),
    "mistral": Table(),
    "qwen2": Table(),
    "qwen3": Table(),
    "mixtral": Table(mlp="block_sparse_moe", experts=("w1", "w3", "w2")),
    "qwen2_moe": Table(),
    "qwen3_moe": Table(),
    # Qwen3-Next checkpoints carry a multi-token-prediction head (mtp.*) that transformers does not load.
    "qwen3_next": Table(norm_offset=1.0, gated_q=True, skipped=(r"\.rotary_emb\.inv_freq$", r"^mtp\.")),
}
"""The name table of each model_type lanearena reads."""


@dataclass(frozen=True)
class Piece:
    """One checkpoint tensor `name`, of `shape`, put into a step weight at index `at` after `take` (a part of it,
    where the checkpoint interleaves two of the step's weights) and `offset` added."""

    name: str
    shape: tuple[int, ...]
    at: tuple = ()
    take: Callable[[np.ndarray], np.ndarray] | None = field(default=None, compare=False)
    offset: float = 0.0

    def put(self, out: np.ndarray, values: np.ndarray) -> None:
        part = self.take(values) if self.take is not None else values
        out[self.at] = part + np.float32(self.offset) if self.offset else part


_LAYER = re.compile(r"l(\d+)\.(\w+)")


def pieces(model_type: str, c: DecoderConfig, weight: str) -> list[Piece]:
    """The checkpoint tensors step weight `weight` of config `c` is made of, for a checkpoint of `model_type`."""
    t = TABLES[model_type]
    hidden, vocab = c.hidden, c.vocab
    if weight == "embed":
        return [Piece("model.embed_tokens.weight", (vocab, hidden))]
    if weight == "lm_head":
        return [Piece("lm_head.weight", (vocab, hidden))]
    if weight == "final_norm":
        return [Piece("model.norm.weight", (hidden,), offset=t.norm_offset)]
    match = _LAYER.fullmatch(weight)
    if match is None:
        raise KeyError(weight)
    layer, name = int(match[1]), match[2]
    p = f"model.layers.{layer}."
    made = (
        _norms(t, c, p, name)
        or _attention(t, c, p, name)
        or (_linear(c, p, name) if not c.full_attention(layer) else None)
        or _mlp(t, c, p, name, layer)
    )
    if made is None:
        raise KeyError(weight)
    return made


def _norms(t: Table, c: DecoderConfig, p: str, name: str) -> list[Piece] | None:
    norms = {
        "attn_norm": ("input_layernorm.weight", c.hidden),
        "mlp_norm": ("post_attention_layernorm.weight", c.hidden),
        "q_norm": ("self_attn.q_norm.weight", c.head_dim),
        "k_norm": ("self_attn.k_norm.weight", c.head_dim),
    }
    if name not in norms:
        return None
    module, n = norms[name]
    return [Piece(p + module, (n,), offset=t.norm_offset)]


def _attention(t: Table, c: DecoderConfig, p: str, name: str) -> list[Piece] | None:
    """q, k, v (one each, or fused in that order), their biases, Qwen3-Next's output gate, the output projection."""
    a = p + "self_attn."
    q_rows = 2 * c.q_dim if t.gated_q else c.q_dim
    heads, d = c.heads, c.head_dim

    def half(which: int) -> Callable[[np.ndarray], np.ndarray]:
        """Qwen3-Next's q projection holds each head's query then its gate: `which` 0 the queries, 1 the gates."""
        return lambda w: w.reshape(heads, 2, d, *w.shape[1:])[:, which].reshape(c.q_dim, *w.shape[1:])

    def proj(kind: str, what: str, at: tuple = ()) -> Piece:
        shape = {"q": q_rows, "k": c.kv_dim, "v": c.kv_dim}[kind]
        full = (shape, c.hidden) if what == "weight" else (shape,)
        take = half(0) if kind == "q" and t.gated_q else None
        return Piece(f"{a}{kind}_proj.{what}", full, at, take)

    if name in ("wq", "wk", "wv", "bq", "bk", "bv"):
        return [proj(name[1], "weight" if name[0] == "w" else "bias")]
    if name in ("wqkv", "bqkv"):
        what = "weight" if name == "wqkv" else "bias"
        q, kv = c.q_dim, c.kv_dim
        cuts = {"q": slice(0, q), "k": slice(q, q + kv), "v": slice(q + kv, q + 2 * kv)}
        return [proj(kind, what, (cut,)) for kind, cut in cuts.items()]
    if name == "wgate":
        return [Piece(a + "q_proj.weight", (q_rows, c.hidden), take=half(1))]
    if name == "wo":
        return [Piece(a + "o_proj.weight", (c.hidden, c.q_dim))]
    if name == "bo":
        return [Piece(a + "o_proj.bias", (c.hidden,))]
    return None


def _linear(c: DecoderConfig, p: str, name: str) -> list[Piece] | None:
    """Qwen3-Next's delta-rule layer. Its in_proj_qkvz holds, for each key head, that head's q and k and the v and z
    of its value heads; in_proj_ba each key head's b then a. The step takes q, k, v of every head in one projection
    (as the convolution mixes them), z in another, and a of every head then b in a third."""
    hk, hv, d = c.lin_key_heads, c.lin_value_heads, c.lin_head_dim
    assert hk is not None and hv is not None and d is not None  # set wherever there are delta-rule layers
    r = hv // hk
    a = p + "linear_attn."
    qkvz = (a + "in_proj_qkvz.weight", (hk * (2 * d + 2 * r * d), c.hidden))

    def groups(w: np.ndarray, width: int) -> np.ndarray:
        return w.reshape(hk, width, c.hidden)

    def qkv(w: np.ndarray) -> np.ndarray:
        g = groups(w, 2 * d + 2 * r * d)
        parts = (g[:, :d], g[:, d : 2 * d], g[:, 2 * d : 2 * d + r * d])
        return np.concatenate([x.reshape(-1, c.hidden) for x in parts])

    def ab(w: np.ndarray) -> np.ndarray:
        g = groups(w, 2 * r)
        return np.concatenate([g[:, r:].reshape(hv, c.hidden), g[:, :r].reshape(hv, c.hidden)])

    made = {
        "wlqkv": Piece(*qkvz, take=qkv),
        "wz": Piece(*qkvz, take=lambda w: groups(w, 2 * d + 2 * r * d)[:, 2 * d + r * d :].reshape(hv * d, c.hidden)),
        "wab": Piece(a + "in_proj_ba.weight", (2 * hv, c.hidden), take=ab),
        "conv_w": Piece(a + "conv1d.weight", (c.lin_qkv, 1, c.conv_kernel), take=lambda w: w[:, 0]),
        "a_log": Piece(a + "A_log", (hv,)),
        "dt_bias": Piece(a + "dt_bias", (hv,)),
        "lnorm": Piece(a + "norm.weight", (d,)),
        "wlout": Piece(a + "out_proj.weight", (c.hidden, hv * d)),
    }
    return [made[name]] if name in made else None


def _mlp(t: Table, c: DecoderConfig, p: str, name: str, layer: int) -> list[Piece] | None:
    """A dense MLP's projections and biases, or a mixture's router, experts (stacked) and shared expert."""
    d = c.hidden
    if not c.sparse(layer):
        assert c.ffn is not None  # a dense layer has its width
        m, f = p + "mlp.", c.ffn
        shapes = {"gate": (f, d), "up": (f, d), "down": (d, f)}
        if name[:2] in ("w_", "b_") and name[2:] in shapes:
            what = "weight" if name[0] == "w" else "bias"
            shape = shapes[name[2:]] if what == "weight" else shapes[name[2:]][:1]
            return [Piece(f"{m}{name[2:]}_proj.{what}", shape)]
        return None
    e, width = c.experts, c.expert_ffn
    assert e is not None and width is not None  # a mixture layer has them
    m = f"{p}{t.mlp}."
    if name == "w_router":
        return [Piece(m + "gate.weight", (e, d))]
    experts = dict(zip(("w_gate", "w_up", "w_down"), t.experts, strict=True))
    if name in experts:
        shape = (d, width) if name == "w_down" else (width, d)
        return [Piece(f"{m}experts.{i}.{experts[name]}.weight", shape, (i,)) for i in range(e)]
    s = c.shared_ffn or 0  # the shared expert's names are asked for only where it has one
    shared = {"ws_gate": ("gate_proj", (s, d)), "ws_up": ("up_proj", (s, d)), "ws_down": ("down_proj", (d, s))}
    if name in shared:
        proj, shape = shared[name]
        return [Piece(f"{m}shared_expert.{proj}.weight", shape)]
    if name == "ws_router":
        return [Piece(m + "shared_expert_gate.weight", (1, d))]
    return None


def skipped(model_type: str, name: str, c: DecoderConfig) -> bool:
    """Whether checkpoint tensor `name` is one transformers does not load for `model_type` (or, with tied
    embeddings, the lm-head a checkpoint may still hold: the embedding table is the lm-head)."""
    if c.tie_embeddings and name == "lm_head.weight":
        return True
    return any(re.search(pattern, name) for pattern in TABLES[model_type].skipped)
