"""Tiny model directories written by transformers itself (config.json and safetensors), for the tests that read
checkpoints; and safetensors files rewritten tensor by tensor, for the tests of what a checkpoint gets wrong."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import torch
import transformers
from safetensors.torch import load_file, save_file

torch.set_num_threads(2)

LLAMA = dict(
    vocab_size=160,
    hidden_size=96,
    num_hidden_layers=2,
    num_attention_heads=3,
    num_key_value_heads=1,
    head_dim=32,
    intermediate_size=160,
    max_position_embeddings=64,
    initializer_range=0.1,
)
"""A tiny Llama: widths that are whole Q8_0 blocks, none a multiple of 128."""

MIXTURE = dict(num_experts=4, num_experts_per_tok=2, moe_intermediate_size=64)
"""A tiny mixture of experts."""

FAMILY_CHANGES = {
    "llama": dict(
        attention_bias=True,
        mlp_bias=True,
        tie_word_embeddings=True,
        rope_scaling=dict(
            rope_type="llama3",
            factor=8.0,
            low_freq_factor=1.0,
            high_freq_factor=4.0,
            original_max_position_embeddings=16,
        ),
    ),
    "mistral": dict(sliding_window=8, rope_theta=1e4),
    "qwen2": dict(
        use_sliding_window=True, sliding_window=8, max_window_layers=1, rope_scaling=dict(type="linear", factor=2.0)
    ),
    "qwen3": dict(tie_word_embeddings=True, num_hidden_layers=3),
    "qwen3_moe": dict(MIXTURE, norm_topk_prob=False, mlp_only_layers=[0], num_hidden_layers=3),
    "mixtral": dict(num_local_experts=4, num_experts_per_tok=2, head_dim=None, num_attention_heads=3, hidden_size=96),
    "qwen2_moe": dict(MIXTURE, shared_expert_intermediate_size=96, mlp_only_layers=[1], num_hidden_layers=3),
    "qwen3_next": dict(
        MIXTURE,
        shared_expert_intermediate_size=96,
        linear_num_key_heads=2,
        linear_num_value_heads=4,
        linear_key_head_dim=32,
        linear_value_head_dim=32,
        layer_types=["linear_attention", "full_attention", "linear_attention", "full_attention"],
        num_hidden_layers=4,
        partial_rotary_factor=0.25,
    ),
}
"""Each family's tiny model: what it changes from LLAMA's shapes, reaching its features (biases, rope scaling,
sliding windows, qk norms, shared experts, dense layers among sparse ones, tied embeddings, delta-rule layers)."""


def tiny_config(model_type: str = "llama", **changes) -> transformers.PretrainedConfig:
    """The transformers config of a tiny model of `model_type`: LLAMA's shapes, with `changes`."""
    return transformers.CONFIG_MAPPING[model_type](**(LLAMA | changes))


def tiny(directory: Path, model_type: str = "llama", dtype=torch.float32, **changes) -> transformers.PreTrainedModel:
    """A random model of `model_type` (LLAMA's shapes, with `changes`) saved by transformers in `directory` in
    `dtype`; the model, in f32."""
    torch.manual_seed(0)
    model = transformers.AutoModelForCausalLM.from_config(tiny_config(model_type, **changes)).eval()
    model.to(dtype).save_pretrained(directory)
    return model.to(torch.float32)


def tensors(directory: Path) -> dict[str, torch.Tensor]:
    return load_file(directory / "model.safetensors")


def rewrite(directory: Path, values: dict[str, torch.Tensor]) -> None:
    """`directory`'s model.safetensors holding `values` instead."""
    save_file({k: v.contiguous() for k, v in values.items()}, directory / "model.safetensors")


def safetensors_bytes(header: dict, data: bytes) -> bytes:
    """A safetensors file of `header` (written as given, however wrong) and `data`, in the format's layout."""
    text = json.dumps(header).encode()
    return struct.pack("<Q", len(text)) + text + data
