"""Whole decoder steps of each family read from its published config.json (CI-sized by `--set`), run on the numpy
runtime as placed, against a float64 forward written from Hugging Face transformers' modeling code for that
architecture (LlamaForCausalLM, MistralForCausalLM, Qwen2ForCausalLM, MixtralForCausalLM, Qwen2MoeForCausalLM):
embedding, RMSNorm, the q/k/v projections (with their biases), rotary embedding (rotate_half, inv_freq of the rope
type), the new key and value written into the cache, grouped-query attention under the causal (and sliding-window)
mask, the output projection, the MLP (silu(gate) * up, down) or the sparse MoE block (router softmax, top k,
renormalised or not, the shared expert gated by a sigmoid), the final norm and the lm-head. Nothing of it comes from
the kernels or their twins: it reads the step's weights by the names the decoder gives them.

Under f32 numerics the logits and caches agree to 1e-4 of the largest logit (relative; measured 1.7e-7 to 3.8e-7);
under int8 numerics the weights are Q8_0 and the activations a projection reads 8-bit words, each in blocks of 32
with a step of 1/127 of the block's largest value, so the logits stand a few parts in a hundred from the float64
forward of the f32 weights (measured 1.1e-2 to 2.8e-2): the test holds Qwen2's chunk to 3e-2."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from lanearena import api
from lanearena.frontend import DecoderConfig, decoder_step, load
from lanearena.lowering import compile as lowering
from lanearena.lowering.device import NumpyDevice
from lanearena.lowering.runtime import load as load_module
from lanearena.lowering.runtime import random_feeds
from lanearena.options import PlaceOptions

from ..support.reference_step import attention

CONFIGS = Path(__file__).resolve().parents[3] / "examples" / "configs"

SMALL = ["layers=1", "vocab=256", "max_len=64", "hidden=128", "heads=4", "kv_heads=2", "head_dim=32", "split=2"]
"""A CI-sized layer: the published key set, small widths."""

FAMILIES = {
    "llama": ("llama-3.2-1b", ["ffn=256"]),
    "mistral": ("mistral-7b-v0.3", ["ffn=256", "window=8"]),
    "qwen2": ("qwen2.5-0.5b", ["ffn=256"]),
    "mixtral": ("mixtral-8x7b-v0.1", ["experts=4", "topk=2", "expert_ffn=64"]),
    "qwen2_moe": ("qwen1.5-moe-a2.7b", ["experts=8", "topk=3", "expert_ffn=64", "shared_ffn=96"]),
}
"""Each family's published config and the settings that make it CI-sized (a window shorter than the positions
reached, for Mistral's sliding window)."""


# --- The architectures, as transformers writes them ----------------------------------------------------------------


def rms_norm(x: np.ndarray, weight: np.ndarray, eps: float) -> np.ndarray:
    """LlamaRMSNorm (and Mistral's, Qwen2's, ...): x * rsqrt(mean(x^2) + eps) * weight."""
    return x / np.sqrt((x * x).mean(axis=-1, keepdims=True) + eps) * weight


def linear(x: np.ndarray, w: np.ndarray, b: np.ndarray | None = None) -> np.ndarray:
    """nn.Linear: x W^T (+ b)."""
    return x @ w.T + (0 if b is None else b)


def silu(x: np.ndarray) -> np.ndarray:
    return x / (1 + np.exp(-x))


def inv_freq(c: DecoderConfig, seq_len: int) -> np.ndarray:
    """ROPE_INIT_FUNCTIONS[rope_type] (modeling_rope_utils) over head_dim: default, linear, dynamic, llama3."""
    dim, theta = c.rotary_dim or c.head_dim, c.rope_theta
    if c.rope_type == "dynamic" and seq_len > c.rope_original:
        theta *= ((c.rope_factor * seq_len / c.rope_original) - (c.rope_factor - 1)) ** (dim / (dim - 2))
    freq = 1.0 / theta ** (np.arange(0, dim, 2) / dim)
    if c.rope_type == "linear":
        return freq / c.rope_factor
    if c.rope_type != "llama3":
        return freq
    wavelen = 2 * math.pi / freq
    low, high, old = c.rope_low, c.rope_high, c.rope_original
    scaled = np.where(wavelen > old / low, freq / c.rope_factor, freq)
    smooth = (old / wavelen - low) / (high - low)
    medium = ~(wavelen < old / high) & ~(wavelen > old / low)
    return np.where(medium, (1 - smooth) * scaled / c.rope_factor + smooth * scaled, scaled)


def apply_rotary(x: np.ndarray, positions: np.ndarray, freq: np.ndarray) -> np.ndarray:
    """apply_rotary_pos_emb on x [rows, heads, head_dim]: x cos + rotate_half(x) sin, emb = cat(freqs, freqs)."""
    angles = positions[:, None] * freq[None, :]
    emb = np.concatenate([angles, angles], axis=-1)[:, None, :]
    half = x.shape[-1] // 2
    return x * np.cos(emb) + np.concatenate([-x[..., half:], x[..., :half]], axis=-1) * np.sin(emb)


def sparse_moe(h: np.ndarray, w: dict, p: str, c: DecoderConfig) -> np.ndarray:
    """MixtralSparseMoeBlock / Qwen2MoeSparseMoeBlock: routing_weights = softmax(gate(h)) over all experts, top k,
    renormalised where norm_topk_prob (Mixtral always); each chosen expert's down(silu(gate(h)) * up(h)) weighed;
    Qwen2-MoE's shared expert added, times sigmoid(shared_expert_gate(h))."""
    logits = linear(h, w[p + "w_router"])
    probs = np.exp(logits - logits.max(axis=-1, keepdims=True))
    probs /= probs.sum(axis=-1, keepdims=True)
    out = np.zeros_like(h)
    for r in range(h.shape[0]):
        chosen = np.argsort(-probs[r], kind="stable")[: c.topk]
        weights = probs[r, chosen] / (probs[r, chosen].sum() if c.norm_topk else 1)
        for e, weight in zip(chosen, weights, strict=True):
            expert = silu(linear(h[r], w[p + "w_gate"][e])) * linear(h[r], w[p + "w_up"][e])
            out[r] += weight * linear(expert, w[p + "w_down"][e])
        if c.shared_ffn is not None:
            shared = linear(silu(linear(h[r], w[p + "ws_gate"])) * linear(h[r], w[p + "ws_up"]), w[p + "ws_down"])
            out[r] += shared / (1 + np.exp(-linear(h[r], w[p + "ws_router"])[0]))
    return out


def sparse(c: DecoderConfig, layer: int) -> bool:
    """Qwen2MoeDecoderLayer's choice: the sparse block where the layer is not in mlp_only_layers and
    (layer + 1) % decoder_sparse_step == 0 (every layer of Mixtral's)."""
    return c.experts is not None and layer not in c.dense_layers and (layer + 1) % c.sparse_step == 0


def forward(c: DecoderConfig, feeds: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The causal LM's forward over the step's rows (ids at positions, the caches holding the earlier positions):
    the logits and the caches it leaves, in float64. The biases the architecture has must be among the feeds."""
    w = {name: np.asarray(v, np.float64) for name, v in feeds.items()}
    positions = feeds["pos"].astype(np.int64)
    x = w["embed"][feeds["ids"]]
    out = {}
    for layer in range(c.layers):
        p = f"l{layer}."
        bias = lambda name, has, p=p: w[p + name] if has else None  # noqa: E731  # the layer's, where it has one
        h = rms_norm(x, w[p + "attn_norm"], c.norm_eps)
        if c.rows > 1:
            q, k, v = (linear(h, w[p + "w" + n], bias("b" + n, c.qkv_bias)) for n in "qkv")
        else:  # the decode step projects q, k and v as one [q; k; v] weight (and bias)
            qkv = linear(h, w[p + "wqkv"], bias("bqkv", c.qkv_bias))
            q, k, v = np.split(qkv, [c.q_dim, c.q_dim + c.kv_dim], axis=-1)
        freq = inv_freq(c, int(positions.max()) + 1)
        q = apply_rotary(q.reshape(c.rows, c.heads, -1), positions, freq)
        k = apply_rotary(k.reshape(c.rows, c.kv_heads, -1), positions, freq).reshape(c.rows, -1)
        k_cache, v_cache = w[p + "k_cache"].copy(), w[p + "v_cache"].copy()
        k_cache[positions], v_cache[positions] = k, v
        out[p + "k_cache"], out[p + "v_cache"] = k_cache, v_cache
        # Qwen2's layers from max_window_layers on slide; Mistral's every layer (window_from 0).
        window = c.window if c.window is not None and layer >= c.window_from else 0
        a = attention(q, k_cache, v_cache, positions, c.heads, c.kv_heads, window)
        x = x + linear(a, w[p + "wo"], bias("bo", c.o_bias))
        h = rms_norm(x, w[p + "mlp_norm"], c.norm_eps)
        if sparse(c, layer):
            x = x + sparse_moe(h, w, p, c)
        else:
            gate, up = (linear(h, w[p + n], bias(b, c.mlp_bias)) for n, b in (("w_gate", "b_gate"), ("w_up", "b_up")))
            x = x + linear(silu(gate) * up, w[p + "w_down"], bias("b_down", c.mlp_bias))
    head = w["embed"] if c.tie_embeddings else w["lm_head"]
    out["logits"] = linear(rms_norm(x, w["final_norm"], c.norm_eps), head)
    return out


# --- The runs ------------------------------------------------------------------------------------------------------


def run(c: DecoderConfig, seed: int, start: int | None = None) -> tuple[dict, dict]:
    """`c`'s step placed and run on the numpy runtime, and the feeds it ran on (positions from `start` where
    given); the placed run equals the unplaced one."""
    module = decoder_step(c)
    api.place(module, PlaceOptions("best"))
    p = lowering.placed(module)
    feeds = random_feeds(p.step, seed)
    if start is not None:
        feeds["pos"] = (start + np.arange(c.rows)).astype(np.int32)
    got = lowering.run(p, NumpyDevice(), feeds)
    unplaced = load_module(p.unshared_source()).run(NumpyDevice(), feeds)
    for name, value in got.items():
        assert np.array_equal(value, unplaced[name]), name
    return got, feeds


def relative(got: np.ndarray, want: np.ndarray) -> float:
    return float(np.abs(got.astype(np.float64).reshape(want.shape) - want).max() / np.abs(want).max())


def config(family: str, *settings: str) -> DecoderConfig:
    name, extra = FAMILIES[family]
    return load(str(CONFIGS / f"{name}.json"), [*SMALL, *extra, *settings])


@pytest.mark.parametrize("rows", [1, 4])
@pytest.mark.parametrize("family", FAMILIES)
def test_one_layer_against_the_architecture(family, rows):
    c = config(family, "numerics=f32", f"rows={rows}")
    got, feeds = run(c, seed=11, start=40)  # positions past Mistral's window of 8
    want = forward(c, feeds)
    assert relative(got["logits"], want["logits"]) <= 1e-4
    for cache in ("l0.k_cache", "l0.v_cache"):
        assert relative(got[cache], want[cache]) <= 1e-5


def test_int8_numerics_stay_within_their_quantization():
    c = config("qwen2", "numerics=int8", "rows=4")
    got, feeds = run(c, seed=12)
    err = relative(got["logits"], forward(c, feeds)["logits"])
    assert 1e-4 < err <= 3e-2  # quantized weights and activations: worse than f32 rounding, within a few 8-bit steps


@pytest.mark.parametrize(
    "family, settings",
    [
        ("llama", ["qkv_bias=true", "o_bias=true", "mlp_bias=true"]),  # Llama's attention_bias and mlp_bias
        ("llama", ["rope_type=linear", "rope_factor=4"]),
        ("llama", ["rope_type=dynamic", "rope_factor=2", "rope_original=16"]),  # positions 40+ grow the base
        ("qwen2", ["window=6", "window_from=1", "layers=2"]),  # max_window_layers 1: the second slides
        ("qwen2_moe", ["layers=2", "dense_layers=1", "ffn=256", "norm_topk=true"]),
        ("mixtral", ["tie_embeddings=true"]),
    ],
)
def test_variants_against_the_architecture(family, settings):
    c = config(family, "numerics=f32", "rows=4", *settings)
    got, feeds = run(c, seed=13, start=40)
    assert relative(got["logits"], forward(c, feeds)["logits"]) <= 1e-4


def test_the_reference_tells_the_variants_apart():
    """Each variant changes the logits by far more than the tolerance, so agreeing with the reference means the
    step computed that variant (and not the plain model)."""
    plain = config("llama", "numerics=f32", "rows=4")
    _, feeds = run(plain, seed=13, start=40)
    base = forward(plain, feeds)["logits"]
    for setting in (["rope_type=linear", "rope_factor=4"], ["window=6"]):
        other = forward(config("llama", "numerics=f32", "rows=4", *setting), feeds)["logits"]
        assert relative(other, base) > 1e-2, setting
