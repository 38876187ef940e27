"""The readers of a Hugging Face `config.json`: each reads a group of keys into decoder keys, or refuses a value
the decoder cannot model with a ConfigError that names the file, line and key (`family.FAMILIES` lists which readers
each model_type has)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from lanearena.dialects.attrs import ScalingKind
from lanearena.frontend.decoder_config import ROPE_TYPES, ConfigError

Origin = Callable[[str | None], str]
"""Where a Hugging Face key is written (`path:line`)."""


class Out:
    """The decoder keys read so far, and the Hugging Face key each came from (for the errors that name it)."""

    def __init__(self, values: dict):
        self.values = values
        self.names: dict[str, str] = {}

    def put(self, key: str, value: object, hf: str) -> None:
        self.values[key] = value
        self.names[key] = hf


def refuse(origin: Origin, hf: str, message: str) -> ConfigError:
    return ConfigError(f"{origin(hf)}: {message}", hf)


@dataclass(frozen=True)
class Reader:
    """A group of keys read together: `keys`, the Hugging Face keys it reads; `read(values, out, origin)` puts the
    decoder keys they make; `says` and `refuses`, what it reads and refuses, for `lanearena models`."""

    keys: tuple[str, ...]
    read: Callable[[dict, Out, Origin], None]
    says: str
    refuses: str = ""


# --- Readers -------------------------------------------------------------------------------------------------------

_SHAPE_KEYS = {
    "num_hidden_layers": "layers",
    "hidden_size": "hidden",
    "num_attention_heads": "heads",
    "num_key_value_heads": "kv_heads",
    "head_dim": "head_dim",
    "vocab_size": "vocab",
    "max_position_embeddings": "max_len",
    "rms_norm_eps": "norm_eps",
    "rope_theta": "rope_theta",
    "tie_word_embeddings": "tie_embeddings",
}


def _shapes(values: dict, out: Out, origin: Origin) -> None:
    """The shapes every family shares. A head_dim not given (or null) is hidden_size / num_attention_heads, and
    num_key_value_heads not given is num_attention_heads, as transformers' config classes make them."""
    for hf, key in _SHAPE_KEYS.items():
        if values.get(hf) is not None:
            out.put(key, values[hf], hf)
    if "kv_heads" not in out.values and "heads" in out.values:
        out.put("kv_heads", out.values["heads"], "num_attention_heads")
    if "head_dim" not in out.values and "hidden" in out.values and "heads" in out.values:
        hidden, heads = out.values["hidden"], out.values["heads"]
        if isinstance(hidden, int) and isinstance(heads, int) and heads > 0:
            out.put("head_dim", hidden // heads, "hidden_size")
    act = values.get("hidden_act", "silu")
    if act != "silu":
        raise refuse(origin, "hidden_act", f"hidden_act {act!r} cannot be modeled: lanearena's MLPs gate with silu")


SHAPES = Reader(
    (*_SHAPE_KEYS, "hidden_act"),
    _shapes,
    ", ".join(f"{hf} -> {key}" for hf, key in _SHAPE_KEYS.items()) + ", hidden_act (silu)",
    "hidden_act other than silu",
)

_ROPE_KEYS = {
    "factor": "rope_factor",
    "low_freq_factor": "rope_low",
    "high_freq_factor": "rope_high",
    "original_max_position_embeddings": "rope_original",
}
_ROPE_NEEDS = {
    "default": (),
    "linear": ("factor",),
    "dynamic": ("factor",),
    "llama3": ("factor", "low_freq_factor", "high_freq_factor", "original_max_position_embeddings"),
}


def _rope(values: dict, out: Out, origin: Origin) -> None:
    """`rope_scaling` (or transformers 5's `rope_parameters`, which holds rope_theta too): its rope type and the
    parameters that type reads. A dynamic scaling's original length is the config's max_position_embeddings where
    the scaling gives none, as transformers takes it."""
    for hf in ("rope_scaling", "rope_parameters"):
        scaling = values.get(hf)
        if scaling is None:
            continue
        if not isinstance(scaling, dict):
            raise refuse(origin, hf, f"{hf} is an object of rope parameters, not {scaling!r}")
        rope_type = scaling.get("rope_type", scaling.get("type", "default"))
        if not isinstance(rope_type, str) or rope_type not in ROPE_TYPES:
            raise refuse(
                origin, hf, f"{hf} rope_type {rope_type!r} cannot be modeled: lanearena turns {', '.join(ROPE_TYPES)}"
            )
        read = {"rope_type", "type", "rope_theta", "partial_rotary_factor", *_ROPE_NEEDS[rope_type]}
        if rope_type == ScalingKind.DYNAMIC:
            read.add("original_max_position_embeddings")
        for key in scaling:
            if key not in read:
                raise refuse(origin, key, f"{hf} key '{key}' cannot be modeled by a {rope_type} rope")
        missing = [k for k in _ROPE_NEEDS[rope_type] if k not in scaling]
        if missing:
            raise refuse(origin, hf, f"a {rope_type} {hf} needs {', '.join(missing)}")
        out.put("rope_type", rope_type, hf)
        if "rope_theta" in scaling:
            out.put("rope_theta", scaling["rope_theta"], "rope_theta")
        for key, value in scaling.items():
            if key in _ROPE_KEYS:
                out.put(_ROPE_KEYS[key], value, key)
        _partial_rotary(scaling.get("partial_rotary_factor", 1.0), out)
        grows = rope_type == ScalingKind.DYNAMIC and "rope_original" not in out.values
        if grows and "max_position_embeddings" in values:
            out.put("rope_original", values["max_position_embeddings"], "max_position_embeddings")


def _partial_rotary(factor: object, out: Out) -> None:
    """`partial_rotary_factor` (at the top level in transformers 4.x, inside rope_parameters in 5.x): the share of
    each head the rotation turns."""
    if isinstance(factor, (int, float)) and "head_dim" in out.values and factor != 1:
        out.put("rotary_dim", int(out.values["head_dim"] * factor), "partial_rotary_factor")


ROPE = Reader(
    ("rope_scaling", "rope_parameters"),
    _rope,
    "rope_scaling or rope_parameters: rope_type (or type) -> rope_type, factor -> rope_factor, low_freq_factor -> "
    "rope_low, high_freq_factor -> rope_high, original_max_position_embeddings -> rope_original, "
    "partial_rotary_factor -> rotary_dim",
    f"rope types other than {', '.join(ROPE_TYPES)} (yarn, longrope, ...), and rope keys the type does not read",
)


def _key(hf: str, key: str, required: bool = False) -> Reader:
    """A reader of one key, `hf`, as decoder key `key` (a ConfigError where it is `required` and not given)."""

    def read(values: dict, out: Out, origin: Origin) -> None:
        if hf in values:
            out.put(key, values[hf], hf)
        elif required:
            raise ConfigError(f"{origin(None)}: missing key {hf}", hf)

    return Reader((hf,), read, f"{hf} -> {key}")


DENSE_FFN = _key("intermediate_size", "ffn", required=True)
MLP_BIAS = _key("mlp_bias", "mlp_bias")
SHARED = _key("shared_expert_intermediate_size", "shared_ffn")


def _attention_bias(values: dict, out: Out, origin: Origin) -> None:
    if "attention_bias" in values:
        for key in ("qkv_bias", "o_bias"):
            out.put(key, values["attention_bias"], "attention_bias")


ATTENTION_BIAS = Reader(("attention_bias",), _attention_bias, "attention_bias -> qkv_bias, o_bias")


def _qkv_bias(values: dict, out: Out, origin: Origin) -> None:
    out.values["qkv_bias"] = True


QKV_BIAS = Reader((), _qkv_bias, "q, k and v projections with biases (always, in this architecture)")


def _window(values: dict, out: Out, origin: Origin) -> None:
    if values.get("sliding_window") is not None:
        out.put("window", values["sliding_window"], "sliding_window")


WINDOW = Reader(("sliding_window",), _window, "sliding_window -> window (every layer; null: none)")


def _window_layers(values: dict, out: Out, origin: Origin) -> None:
    """Qwen2's window: sliding_window where use_sliding_window, on the layers from max_window_layers on; a
    layer_types list must say the same."""
    window = values.get("sliding_window") if values.get("use_sliding_window", False) else None
    start = values.get("max_window_layers", 0)
    if window is not None:
        out.put("window", window, "sliding_window")
        out.put("window_from", start, "max_window_layers")
    types = values.get("layer_types")
    layers = values.get("num_hidden_layers")
    if types is None or not isinstance(layers, int) or not isinstance(start, int):
        return
    want = ["sliding_attention" if window is not None and i >= start else "full_attention" for i in range(layers)]
    if types != want:
        raise refuse(
            origin,
            "layer_types",
            "layer_types is not what use_sliding_window and max_window_layers make (every layer from "
            "max_window_layers on sliding where use_sliding_window): lanearena's decoder cannot model it",
        )


WINDOW_LAYERS = Reader(
    ("use_sliding_window", "sliding_window", "max_window_layers", "layer_types"),
    _window_layers,
    "sliding_window -> window where use_sliding_window, max_window_layers -> window_from (the first layer with the "
    "window), layer_types (checked against them)",
    "layer_types other than what use_sliding_window and max_window_layers make",
)


def mixture(expert_keys: tuple[str, ...], expert_ffn: str) -> Reader:
    """A mixture of experts: `expert_keys` (num_experts or num_local_experts, or both where transformers takes
    either: 5.x writes qwen3_moe's as num_local_experts) and `expert_ffn` (moe_intermediate_size, or Mixtral's
    intermediate_size) name its keys; norm_topk_prob, decoder_sparse_step and mlp_only_layers where the family has
    them; intermediate_size, where it is not the experts', is the dense layers' width (read where some layer is
    dense)."""

    def read(values: dict, out: Out, origin: Origin) -> None:
        given = {hf: values[hf] for hf in expert_keys if hf in values}
        if len(set(map(repr, given.values()))) > 1:
            raise refuse(
                origin, expert_keys[-1], f"{' and '.join(given)} differ ({', '.join(map(str, given.values()))})"
            )
        for hf, value in given.items():
            out.put("experts", value, hf)
        for hf, key in (("num_experts_per_tok", "topk"), (expert_ffn, "expert_ffn")):
            if hf in values:
                out.put(key, values[hf], hf)
        if "norm_topk_prob" in values:
            out.put("norm_topk", values["norm_topk_prob"], "norm_topk_prob")
        if "decoder_sparse_step" in values:
            out.put("sparse_step", values["decoder_sparse_step"], "decoder_sparse_step")
        dense = values.get("mlp_only_layers") or []
        if not isinstance(dense, list):
            raise refuse(origin, "mlp_only_layers", f"mlp_only_layers is a list of layers, not {dense!r}")
        if dense:
            out.put("dense_layers", dense, "mlp_only_layers")
        if expert_ffn != "intermediate_size" and (dense or values.get("decoder_sparse_step", 1) != 1):
            out.put("ffn", values.get("intermediate_size"), "intermediate_size")

    if expert_ffn == "intermediate_size":
        keys: tuple[str, ...] = (*expert_keys, "num_experts_per_tok", expert_ffn)
        says = f"{' or '.join(expert_keys)} -> experts, num_experts_per_tok -> topk, {expert_ffn} -> expert_ffn"
    else:
        keys = (*expert_keys, "num_experts_per_tok", expert_ffn, "norm_topk_prob", "decoder_sparse_step")
        keys += ("mlp_only_layers", "intermediate_size")
        says = (
            f"{' or '.join(expert_keys)} -> experts, num_experts_per_tok -> topk, {expert_ffn} -> expert_ffn, "
            "norm_topk_prob -> "
            "norm_topk, decoder_sparse_step -> sparse_step, mlp_only_layers -> dense_layers, intermediate_size -> "
            "ffn (the dense layers')"
        )
    return Reader(keys, read, says)


def _next(values: dict, out: Out, origin: Origin) -> None:
    """Qwen3-Next's delta-rule layers: every full_attention_interval-th layer full attention (its output gated),
    the others linear; one head width for the delta rule's keys and values; partial rotary heads."""
    out.values["attn_gate"] = True
    for hf, key in (
        ("full_attention_interval", "attn_interval"),
        ("linear_num_key_heads", "lin_key_heads"),
        ("linear_num_value_heads", "lin_value_heads"),
        ("linear_conv_kernel_dim", "conv_kernel"),
    ):
        if hf in values:
            out.put(key, values[hf], hf)
    dims = {values.get("linear_key_head_dim"), values.get("linear_value_head_dim")}
    if len(dims) != 1:
        raise refuse(
            origin,
            "linear_value_head_dim",
            f"linear_key_head_dim and linear_value_head_dim differ ({', '.join(map(str, dims))}): the delta rule's "
            "kernels take one",
        )
    out.put("lin_head_dim", dims.pop(), "linear_key_head_dim")
    if "partial_rotary_factor" in values:
        _partial_rotary(values["partial_rotary_factor"], out)
    types = values.get("layer_types")
    if types is None:
        return
    if "attn_interval" not in out.values and isinstance(types, list) and "full_attention" in types:
        # transformers 5 writes layer_types alone: the interval is where the first full attention layer is
        out.put("attn_interval", types.index("full_attention") + 1, "layer_types")
    interval = out.values.get("attn_interval", 1)
    want = [
        "full_attention" if (i + 1) % interval == 0 else "linear_attention"
        for i in range(out.values.get("layers", len(types)))
    ]
    if types != want:
        raise refuse(
            origin,
            "layer_types",
            f"layer_types is not every {interval}th layer full attention and the others linear: lanearena's decoder "
            "cannot model it",
        )


NEXT = Reader(
    (
        "full_attention_interval",
        "linear_num_key_heads",
        "linear_num_value_heads",
        "linear_key_head_dim",
        "linear_value_head_dim",
        "linear_conv_kernel_dim",
        "partial_rotary_factor",
        "layer_types",
    ),
    _next,
    "full_attention_interval -> attn_interval, linear_num_key_heads -> lin_key_heads, linear_num_value_heads -> "
    "lin_value_heads, linear_key_head_dim and linear_value_head_dim -> lin_head_dim, linear_conv_kernel_dim -> "
    "conv_kernel, partial_rotary_factor -> rotary_dim, layer_types (checked)",
    "layer_types other than every full_attention_interval-th layer full attention, key and value head widths "
    "that differ",
)
