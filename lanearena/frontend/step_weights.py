"""The weights a decoder step of a config has, by name, with their shapes: plain data from the config alone, so that a
model directory's checkpoint is checked against the whole step before any step is built (a test holds it equal to
the weights of the step `decoder.decoder_step` builds, for every shipped config and model_type)."""

from __future__ import annotations

from lanearena.frontend.decoder import layer_prefix
from lanearena.frontend.decoder_config import DecoderConfig

Shapes = dict[str, tuple[int, ...]]
"""Step weights by name, each with its shape."""


def step_weights(c: DecoderConfig) -> Shapes:
    """The weights of the step of config `c`: the embedding, each layer's norms, attention (or delta rule) and MLP
    (or mixture), the final norm, and the lm-head where the embedding is not tied to it."""
    out: Shapes = {"embed": (c.vocab, c.hidden)}
    for layer in range(c.layers):
        mixing = _attention(c) if c.full_attention(layer) else _linear(c)
        mlp = _mixture(c) if c.sparse(layer) else _dense(c)
        made = {"attn_norm": (c.hidden,), **mixing, "mlp_norm": (c.hidden,), **mlp}
        out |= {layer_prefix(layer) + name: shape for name, shape in made.items()}
    out["final_norm"] = (c.hidden,)
    if not c.tie_embeddings:
        out["lm_head"] = (c.vocab, c.hidden)
    return out


def _attention(c: DecoderConfig) -> Shapes:
    """q, k and v projected in one (a decode row) or each alone (a chunk's rows), with their biases; q and k normed
    per head (Qwen3); Qwen3-Next's output gate; the output projection and its bias."""
    d = c.hidden
    widths = {"q": c.q_dim, "k": c.kv_dim, "v": c.kv_dim} if c.rows > 1 else {"qkv": c.q_dim + 2 * c.kv_dim}
    out: Shapes = {}
    for name, n in widths.items():
        out["w" + name] = (n, d)
        if c.qkv_bias:
            out["b" + name] = (n,)
    if c.qk_norm:
        out |= {"q_norm": (c.head_dim,), "k_norm": (c.head_dim,)}
    if c.attn_gate:
        out["wgate"] = (c.q_dim, d)
    out["wo"] = (d, c.q_dim)
    if c.o_bias:
        out["bo"] = (d,)
    return out


def _linear(c: DecoderConfig) -> Shapes:
    """Qwen3-Next's delta-rule layer: the q, k and v projection, z's, the gates' inputs, the convolution, the
    gates, the gated norm and the output projection."""
    hv, d = c.lin_value_heads, c.lin_head_dim
    assert hv is not None and d is not None  # set wherever there are delta-rule layers
    return {
        "wlqkv": (c.lin_qkv, c.hidden),
        "wz": (hv * d, c.hidden),
        "wab": (2 * hv, c.hidden),
        "conv_w": (c.lin_qkv, c.conv_kernel),
        "a_log": (hv,),
        "dt_bias": (hv,),
        "lnorm": (d,),
        "wlout": (c.hidden, hv * d),
    }


def _dense(c: DecoderConfig) -> Shapes:
    """A dense MLP's gate, up and down projections, and their biases with `mlp_bias`."""
    f, d = c.ffn, c.hidden
    assert f is not None  # a dense layer has its width
    out: Shapes = {"w_gate": (f, d), "w_up": (f, d), "w_down": (d, f)}
    if c.mlp_bias:
        out |= {"b_gate": (f,), "b_up": (f,), "b_down": (d,)}
    return out


def _mixture(c: DecoderConfig) -> Shapes:
    """A mixture's router and its experts' projections (stacked over the experts), and its shared expert's."""
    e, f, d = c.experts, c.expert_ffn, c.hidden
    assert e is not None and f is not None  # a mixture layer has them
    out: Shapes = {"w_router": (e, d), "w_gate": (e, f, d), "w_up": (e, f, d), "w_down": (e, d, f)}
    s = c.shared_ffn
    if s is not None:
        out |= {"ws_gate": (s, d), "ws_up": (s, d), "ws_down": (d, s), "ws_router": (1, d)}
    return out
