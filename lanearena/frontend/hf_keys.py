"""Which keys of a Hugging Face `config.json` transformers itself reads, by `model_type`: a key its config class does
not define is ignored by transformers (published configs carry such keys: SmolLM2's `is_llama_config` and
`rope_interleaved`), so lanearena ignores it too, and says so; a key the class defines that lanearena does not read
changes the computation and is refused. A key ignored that is close to one the family reads is likely a misspelling:
the note says which."""

from __future__ import annotations

import difflib

_EVERY = (
    "vocab_size",
    "hidden_size",
    "intermediate_size",
    "num_hidden_layers",
    "num_attention_heads",
    "num_key_value_heads",
    "hidden_act",
    "max_position_embeddings",
    "initializer_range",
    "rms_norm_eps",
    "use_cache",
    "tie_word_embeddings",
    "rope_theta",
    "rope_scaling",
    "rope_parameters",
    "attention_dropout",
    "bos_token_id",
    "eos_token_id",
    "pad_token_id",
    "quantization_config",
)
"""Keys every family's config class defines (transformers 4.x: rope_theta and rope_scaling; 5.x: rope_parameters),
and quantization_config, which every class reads to load quantized weights."""

_MIXTURE = ("num_experts_per_tok", "output_router_logits", "router_aux_loss_coef")
_QWEN_MIXTURE = (*_MIXTURE, "num_experts", "decoder_sparse_step", "moe_intermediate_size", "norm_topk_prob")
_QWEN_WINDOW = ("use_sliding_window", "sliding_window", "max_window_layers", "layer_types")

TRANSFORMERS_KEYS: dict[str, frozenset[str]] = {
    model_type: frozenset((*_EVERY, *keys))
    for model_type, keys in {
        "llama": ("attention_bias", "mlp_bias", "head_dim", "pretraining_tp"),
        "mistral": ("head_dim", "sliding_window"),
        "qwen2": (*_QWEN_WINDOW, "use_mrope"),
        "mixtral": (*_MIXTURE, "head_dim", "num_local_experts", "router_jitter_noise", "sliding_window"),
        "qwen2_moe": (*_QWEN_MIXTURE, *_QWEN_WINDOW, "mlp_only_layers", "shared_expert_intermediate_size", "qkv_bias"),
        "qwen3": (*_QWEN_WINDOW, "attention_bias", "head_dim"),
        "qwen3_moe": (
            *_QWEN_MIXTURE,
            *_QWEN_WINDOW,
            "attention_bias",
            "head_dim",
            "mlp_only_layers",
            "num_local_experts",
        ),
        "qwen3_next": (
            *_QWEN_MIXTURE,
            "attention_bias",
            "head_dim",
            "layer_types",
            "linear_conv_kernel_dim",
            "linear_key_head_dim",
            "linear_num_key_heads",
            "linear_num_value_heads",
            "linear_value_head_dim",
            "mlp_only_layers",
            "partial_rotary_factor",
            "shared_expert_intermediate_size",
            "full_attention_interval",
            "use_sliding_window",
            "sliding_window",
            "max_window_layers",
        ),
    }.items()
}
"""The keys transformers' config class for each model_type defines (its own, in 4.57 or in 5.x; the base class's
keys are the token ids' and training's, which never change a step's computation). Checked against the installed
transformers by the tests."""


def ignored_note(key: str, read: frozenset[str], where: str) -> str:
    """The note that `key` (at `where`) is ignored, naming the key among `read` it is closest to, where one is
    close enough to be what was meant."""
    close = difflib.get_close_matches(key, sorted(read), n=1, cutoff=0.8)
    hint = f" (did you mean '{close[0]}'?)" if close else ""
    return f"{where}: ignored key '{key}': transformers' config class does not define it{hint}"
