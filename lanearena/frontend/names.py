"""How a Hugging Face checkpoint's tensors make a decoder step's weights: `sources` says, for each weight a decoder
step of a config can have, the checkpoint tensors it is made of (named by the model_type's `Family`), their shapes,
and where each goes: q, k and v (and their biases) fused into one projection for a decode row, each of an expert's
projections stacked over the experts, Qwen3-Next's projections that interleave two outputs taken apart, norms that
scale by 1 + w given as the gain they multiply by. The step weights are named as the decoder names them
(`decoder.layer_prefix`): the map is made forward, from the config, never by reading a weight's name back."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from lanearena.frontend.decoder import layer_prefix
from lanearena.frontend.decoder_config import DecoderConfig
from lanearena.frontend.family import CheckpointNames, Family


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


Sources = dict[str, list[Piece]]
"""Step weights by name, each with the checkpoint tensors it is made of."""


def sources(family: Family, c: DecoderConfig) -> Sources:
    """Every weight a decoder step of config `c` can have (a decode row's fused projections and a chunk's separate
    ones both), with the checkpoint tensors of `family` it is made of."""
    n = family.checkpoint
    hidden, vocab = c.hidden, c.vocab
    out: Sources = {
        "embed": [Piece("model.embed_tokens.weight", (vocab, hidden))],
        "lm_head": [Piece("lm_head.weight", (vocab, hidden))],
        "final_norm": [Piece("model.norm.weight", (hidden,), offset=n.norm_offset)],
    }
    for layer in range(c.layers):
        p = f"model.layers.{layer}."
        mixing = _attention(n, c, p) if c.full_attention(layer) else _linear(c, p)
        made = _norms(n, c, p) | mixing | _mlp(n, c, p, layer)
        out |= {layer_prefix(layer) + name: made[name] for name in made}
    return out


def _norms(n: CheckpointNames, c: DecoderConfig, p: str) -> Sources:
    norms = {
        "attn_norm": ("input_layernorm.weight", c.hidden),
        "mlp_norm": ("post_attention_layernorm.weight", c.hidden),
        "q_norm": ("self_attn.q_norm.weight", c.head_dim),
        "k_norm": ("self_attn.k_norm.weight", c.head_dim),
    }
    return {name: [Piece(p + module, (width,), offset=n.norm_offset)] for name, (module, width) in norms.items()}


def _attention(n: CheckpointNames, c: DecoderConfig, p: str) -> Sources:
    """q, k, v (one each, or fused in that order), their biases, Qwen3-Next's output gate, the output projection."""
    a = p + "self_attn."
    q_rows = 2 * c.q_dim if n.gated_q else c.q_dim
    heads, d = c.heads, c.head_dim

    def half(which: int) -> Callable[[np.ndarray], np.ndarray]:
        """Qwen3-Next's q projection holds each head's query then its gate: `which` 0 the queries, 1 the gates."""
        return lambda w: w.reshape(heads, 2, d, *w.shape[1:])[:, which].reshape(c.q_dim, *w.shape[1:])

    def proj(kind: str, what: str, at: tuple = ()) -> Piece:
        shape = {"q": q_rows, "k": c.kv_dim, "v": c.kv_dim}[kind]
        full = (shape, c.hidden) if what == "weight" else (shape,)
        take = half(0) if kind == "q" and n.gated_q else None
        return Piece(f"{a}{kind}_proj.{what}", full, at, take)

    q, kv = c.q_dim, c.kv_dim
    cuts = {"q": slice(0, q), "k": slice(q, q + kv), "v": slice(q + kv, q + 2 * kv)}
    out: Sources = {}
    for prefix, what in (("w", "weight"), ("b", "bias")):
        out |= {prefix + kind: [proj(kind, what)] for kind in cuts}
        out[prefix + "qkv"] = [proj(kind, what, (cut,)) for kind, cut in cuts.items()]
    return out | {
        "wgate": [Piece(a + "q_proj.weight", (q_rows, c.hidden), take=half(1))],
        "wo": [Piece(a + "o_proj.weight", (c.hidden, c.q_dim))],
        "bo": [Piece(a + "o_proj.bias", (c.hidden,))],
    }


def _linear(c: DecoderConfig, p: str) -> Sources:
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
    return {name: [piece] for name, piece in made.items()}


def _mlp(n: CheckpointNames, c: DecoderConfig, p: str, layer: int) -> Sources:
    """A dense MLP's projections and biases, or a mixture's router, experts (stacked) and shared expert."""
    d = c.hidden
    if not c.sparse(layer):
        assert c.ffn is not None  # a dense layer has its width
        m, f = p + "mlp.", c.ffn
        shapes = {"gate": (f, d), "up": (f, d), "down": (d, f)}
        return {
            f"{prefix}_{proj}": [Piece(f"{m}{proj}_proj.{what}", shape if what == "weight" else shape[:1])]
            for proj, shape in shapes.items()
            for prefix, what in (("w", "weight"), ("b", "bias"))
        }
    e, width = c.experts, c.expert_ffn
    assert e is not None and width is not None  # a mixture layer has them
    m = f"{p}{n.mlp}."
    out: Sources = {"w_router": [Piece(m + "gate.weight", (e, d))]}
    for name, proj in zip(("w_gate", "w_up", "w_down"), n.experts, strict=True):
        shape = (d, width) if name == "w_down" else (width, d)
        out[name] = [Piece(f"{m}experts.{i}.{proj}.weight", shape, (i,)) for i in range(e)]
    s = c.shared_ffn
    if s is not None:
        shared = {"ws_gate": ("gate_proj", (s, d)), "ws_up": ("up_proj", (s, d)), "ws_down": ("down_proj", (d, s))}
        out |= {name: [Piece(f"{m}shared_expert.{proj}.weight", shape)] for name, (proj, shape) in shared.items()}
        out["ws_router"] = [Piece(m + "shared_expert_gate.weight", (1, d))]
    return out


def skipped(family: Family, name: str, c: DecoderConfig) -> bool:
    """Whether checkpoint tensor `name` is one transformers does not load for `family` (or, with tied embeddings,
    the lm-head a checkpoint may still hold: the embedding table is the lm-head)."""
    if c.tie_embeddings and name == "lm_head.weight":
        return True
    return any(re.search(pattern, name) for pattern in family.checkpoint.skipped)
