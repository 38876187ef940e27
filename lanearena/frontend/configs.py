"""The decoder configs lanearena ships, and configs read from JSON files or changed by `key=value` settings, with
errors that name the file, line and key."""

from __future__ import annotations

import dataclasses
import difflib
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lanearena.errors import UserError
from lanearena.files import decode
from lanearena.frontend.decoder import FIELD_TYPES, ConfigError, DecoderConfig

# Keyword arguments the tiny configs (and the Qwen3 ones) share, of the fields' several types.
_TINY: dict[str, Any] = dict(
    layers=2,
    hidden=128,
    heads=4,
    kv_heads=2,
    head_dim=32,
    vocab=512,
    max_len=64,
    numerics="int8",
    split=2,
    attn_splits=2,
)
_QWEN3: dict[str, Any] = dict(
    head_dim=128,
    vocab=151936,
    max_len=4096,
    numerics="int8",
    split=4,
    attn_splits=8,
    qk_norm=True,
    norm_eps=1e-6,
    rope_theta=1e6,
)

CONFIGS: dict[str, DecoderConfig] = {
    c.name: c
    for c in (
        DecoderConfig("tiny", ffn=256, **_TINY),
        DecoderConfig("tiny-moe", experts=4, topk=2, expert_ffn=64, **_TINY),
        DecoderConfig("tiny-prefill", ffn=256, rows=4, **_TINY),
        DecoderConfig(
            "qwen3-0.6b", layers=28, hidden=1024, heads=16, kv_heads=8, ffn=3072, tie_embeddings=True, **_QWEN3
        ),
        DecoderConfig(
            "qwen3-30b-a3b", layers=48, hidden=2048, heads=32, kv_heads=4, experts=128, topk=8, expert_ffn=768, **_QWEN3
        ),
    )
}
"""The shipped configs by name: tiny ones for tests and `lanearena run`, and Qwen3's shapes."""

REQUIRED = tuple(f.name for f in dataclasses.fields(DecoderConfig) if f.default is dataclasses.MISSING)


def load(spec: str = "tiny", settings: Sequence[str] = ()) -> DecoderConfig:
    """The config `spec` names (a shipped config, or a JSON file of an object of config keys; its name defaults to
    the file's), changed by `settings` (`key=value`). A ConfigError names the file, line and key at fault."""
    if spec in CONFIGS:
        values = dataclasses.asdict(CONFIGS[spec])
        origin = lambda key: f"config '{spec}'"  # noqa: E731
    elif spec.endswith(".json") or Path(spec).exists():
        values, origin = _read_json(Path(spec))
    else:
        raise ConfigError(f"unknown config '{spec}': shipped configs are {', '.join(CONFIGS)}; or give a .json file")
    given = {setting(s)[0]: s for s in settings}
    values.update(setting(s) for s in settings)
    try:
        return DecoderConfig(**values)
    except ConfigError as e:
        at = f"--set {given[e.key]}" if e.key in given else origin(e.key)
        raise ConfigError(f"{at}: {e}", e.key) from None


def setting(text: str) -> tuple[str, object]:
    """A `key=value` setting as the key and its value in the key's type (`none` clears an optional integer)."""
    key, eq, raw = text.partition("=")
    key = key.strip()
    if not eq:
        raise ConfigError(f"--set {text}: a setting is key=value")
    _check_key(key, f"--set {text}")
    kind, raw = FIELD_TYPES[key], raw.strip()
    value: object
    try:
        if kind is bool:
            value = {"true": True, "1": True, "yes": True, "false": False, "0": False, "no": False}[raw.lower()]
        elif kind == int | None and raw.lower() in ("none", "null", ""):
            value = None
        elif kind is str:
            value = raw
        else:
            value = (float if kind is float else int)(raw)
    except (KeyError, ValueError):
        wants: dict[object, str] = {bool: "true or false", float: "a number", str: "a string"}
        want = wants.get(kind, "an integer")
        raise ConfigError(f"--set {text}: {key} is {want}, not {raw!r}", key) from None
    return key, value


def _read_json(path: Path):
    """The config keys of JSON file `path`, and where each key is written in it (`path:line`)."""
    try:
        text = decode(path.read_bytes(), str(path), "config")
    except OSError as e:
        raise ConfigError(f"cannot read config {path}: {e.strerror or e}") from None
    except UserError as e:
        raise ConfigError(str(e)) from None
    try:
        values = json.loads(text)
    except json.JSONDecodeError as e:
        raise ConfigError(f"{path}:{e.lineno}:{e.colno}: malformed JSON: {e.msg}") from None
    if not isinstance(values, dict):
        raise ConfigError(f"{path}: a config is a JSON object of keys, not {type(values).__name__}")

    def origin(key: str | None) -> str:
        match = re.search(rf'"{re.escape(key)}"\s*:', text) if key else None
        return f"{path}:{text.count(chr(10), 0, match.start()) + 1}" if match else str(path)

    if "model_type" in values or "architectures" in values:
        values, hf_names = hugging_face(values, origin)
        values.setdefault("name", path.stem if path.stem != "config" else values.pop("_model_type"))
        values.pop("_model_type", None)
        plain_origin = origin
        origin = lambda key: plain_origin(key if key is None else hf_names.get(key, key))  # noqa: E731
    for key in values:
        _check_key(key, origin(key))
    values.setdefault("name", path.stem)
    missing = [k for k in REQUIRED if k not in values]
    if missing:
        raise ConfigError(f"{path}: missing key{'s' * (len(missing) > 1)} {', '.join(missing)}", missing[0])
    return values, origin


HF_MODEL_TYPES = ("qwen3", "qwen3_moe", "qwen3_next")
"""The Hugging Face `model_type`s whose config.json lanearena reads."""

HF_KEYS = {
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
    "num_experts": "experts",
    "num_experts_per_tok": "topk",
    "moe_intermediate_size": "expert_ffn",
    "shared_expert_intermediate_size": "shared_ffn",
    "full_attention_interval": "attn_interval",
    "linear_num_key_heads": "lin_key_heads",
    "linear_num_value_heads": "lin_value_heads",
    "linear_conv_kernel_dim": "conv_kernel",
}
"""Hugging Face config keys and the decoder config key each is."""

HF_IGNORED = frozenset(
    {
        "architectures",
        "model_type",
        "bos_token_id",
        "eos_token_id",
        "pad_token_id",
        "torch_dtype",
        "dtype",
        "transformers_version",
        "initializer_range",
        "attention_dropout",
        "use_cache",
        "router_aux_loss_coef",
        "output_router_logits",
        "max_window_layers",
        "sliding_window",
        "layer_types",
        "intermediate_size",
        "linear_key_head_dim",
        "linear_value_head_dim",
        "partial_rotary_factor",
    }
)
"""Keys that do not shape the step (token ids, training settings, the weights' type), or that are read apart."""

HF_ONLY = {
    "hidden_act": ("silu", "the MLP's activation is silu"),
    "attention_bias": (False, "projections have no bias"),
    "use_sliding_window": (False, "attention sees the whole cache"),
    "rope_scaling": (None, "positions turn unscaled"),
    "norm_topk_prob": (True, "the chosen experts' gates are a softmax over them"),
    "decoder_sparse_step": (1, "every layer is a mixture"),
    "mlp_only_layers": ([], "every layer is a mixture"),
}
"""Keys lanearena models only at one value: another is an error that names the key."""


def hugging_face(values: dict, origin) -> tuple[dict, dict[str, str]]:
    """The decoder config keys of a Hugging Face config.json (`qwen3`, `qwen3_moe`, `qwen3_next`), and the Hugging
    Face key each came from. A key that does not shape the step is ignored; a key (or a value) the decoder cannot
    model is a ConfigError that names it. Keys of lanearena's own (numerics, split, ...) may be given beside."""
    model_type = values.get("model_type")
    if model_type not in HF_MODEL_TYPES:
        raise ConfigError(
            f"{origin('model_type')}: model_type {model_type!r} is not one lanearena reads "
            f"({', '.join(HF_MODEL_TYPES)})",
            "model_type",
        )
    out = {"numerics": "int8", "split": 4, "attn_splits": 8, "qk_norm": True, "_model_type": model_type}
    names: dict[str, str] = {}

    def put(key: str, value, hf: str) -> None:
        out[key] = value
        names[key] = hf

    for hf, value in values.items():
        if hf in HF_KEYS:
            put(HF_KEYS[hf], value, hf)
        elif hf in HF_ONLY:
            want, why = HF_ONLY[hf]
            if value != want:
                raise ConfigError(
                    f"{origin(hf)}: {hf} {value!r} cannot be modeled: lanearena's decoder takes "
                    f"{json.dumps(want)} ({why})",
                    hf,
                )
        elif hf in FIELD_TYPES and hf != "name":
            put(hf, value, hf)
        elif hf not in HF_IGNORED:
            raise ConfigError(f"{origin(hf)}: {model_type} key '{hf}' is not one lanearena can model", hf)
    if "head_dim" not in out and "hidden" in out and "heads" in out:
        put("head_dim", out["hidden"] // out["heads"], "hidden_size")
    if model_type == "qwen3":
        put("ffn", values.get("intermediate_size"), "intermediate_size")
    if model_type == "qwen3_next":
        out["attn_gate"] = True
        dims = {values.get("linear_key_head_dim"), values.get("linear_value_head_dim")}
        if len(dims) != 1:
            raise ConfigError(
                f"{origin('linear_value_head_dim')}: linear_key_head_dim and linear_value_head_dim "
                f"differ ({', '.join(map(str, dims))}): the delta rule's kernels take one",
                "linear_value_head_dim",
            )
        put("lin_head_dim", dims.pop(), "linear_key_head_dim")
        factor = values.get("partial_rotary_factor", 1.0)
        if isinstance(factor, (int, float)) and "head_dim" in out and factor != 1:
            put("rotary_dim", int(out["head_dim"] * factor), "partial_rotary_factor")
    else:
        for key in ("full_attention_interval", "linear_num_key_heads", "shared_expert_intermediate_size"):
            if key in values:
                raise ConfigError(f"{origin(key)}: {model_type} key '{key}' is a qwen3_next key", key)
    _check_layer_types(values, out, origin)
    return out, names


def _check_layer_types(values: dict, out: dict, origin) -> None:
    """A `layer_types` list must be what the full-attention interval makes of the layers."""
    types = values.get("layer_types")
    if types is None:
        return
    interval = out.get("attn_interval", 1)
    want = [
        "full_attention" if (i + 1) % interval == 0 else "linear_attention"
        for i in range(out.get("layers", len(types)))
    ]
    if types != want:
        raise ConfigError(
            f"{origin('layer_types')}: layer_types is not every {interval}th layer full attention "
            "and the others linear: lanearena's decoder cannot model it",
            "layer_types",
        )


def _check_key(key: str, where: str) -> None:
    if key not in FIELD_TYPES:
        close = difflib.get_close_matches(key, FIELD_TYPES, n=1)
        hint = f" (did you mean '{close[0]}'?)" if close else f" (keys: {', '.join(FIELD_TYPES)})"
        raise ConfigError(f"{where}: unknown key '{key}'{hint}", key)
