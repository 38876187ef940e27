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


def tiny(directory: Path, model_type: str = "llama", dtype=torch.float32, **changes) -> transformers.PreTrainedModel:
    """A random model of `model_type` (LLAMA's shapes, with `changes`) saved by transformers in `directory` in
    `dtype`; the model, in f32."""
    torch.manual_seed(0)
    config = transformers.CONFIG_MAPPING[model_type](**(LLAMA | changes))
    model = transformers.AutoModelForCausalLM.from_config(config).eval()
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
