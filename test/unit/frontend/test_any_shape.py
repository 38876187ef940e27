"""Shapes transformers accepts run: widths that 32 does not cut (a hidden size of 100, five heads of 64) in f32
where int8 was only the default, and heads of 16 values (as tiny test models have) in every kernel, Qwen3-Next's
delta rule among them; each held to transformers' own logits. Under int8 asked for, such a width is one located
refusal (exit 2), never an internal error."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
import transformers

from lanearena.cli import main
from lanearena.frontend.checkpoint import Checkpoint
from lanearena.frontend.configs import load
from lanearena.lowering.session import Session

from ..support.checkpoints import LLAMA, tiny

PROMPT = [3, 17, 42, 5, 99, 7, 150, 64, 1, 33]
TOLERANCE = 1e-4
"""The largest difference from transformers' logits, as a share of the largest logit (test_held_to_transformers')."""

SHAPES = {
    "hidden 100, five heads of 64": ("llama", dict(hidden_size=100, num_attention_heads=5, head_dim=64)),
    "heads of 16": ("llama", dict(hidden_size=64, num_attention_heads=4, num_key_value_heads=2, head_dim=16)),
    "qwen3_next, heads of 16": (
        "qwen3_next",
        dict(
            hidden_size=64,
            num_attention_heads=4,
            num_key_value_heads=2,
            head_dim=16,
            num_experts=4,
            num_experts_per_tok=2,
            moe_intermediate_size=32,
            shared_expert_intermediate_size=32,
            linear_num_key_heads=2,
            linear_num_value_heads=4,
            linear_key_head_dim=16,
            linear_value_head_dim=16,
            layer_types=["linear_attention", "full_attention"],
            partial_rotary_factor=0.5,
        ),
    ),
}


@pytest.mark.parametrize("shape", SHAPES)
def test_the_shape_runs_as_transformers_runs_it(tmp_path, shape):
    model_type, changes = SHAPES[shape]
    model = tiny(tmp_path, model_type, **changes)
    with torch.no_grad():
        want = model(torch.tensor([PROMPT])).logits[0].numpy()
    c = load(str(tmp_path))
    assert c.numerics == "f32"
    got = Session(c, Checkpoint(tmp_path, c), chunk=4).forward(PROMPT)
    assert np.abs(got - want).max() <= TOLERANCE * np.abs(want).max()


def test_int8_by_default_runs_a_width_32_does_not_cut_in_f32_and_says_so(tmp_path, capsys):
    config = transformers.LlamaConfig(**(LLAMA | SHAPES["hidden 100, five heads of 64"][1])).to_dict()
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config, indent=1))
    assert main(["run", str(path), "--quiet", "--json", "--backend", "numpy"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["numerics"] == "f32" and json.loads(out)["max_abs_err"] == 0.0
    assert "hidden 100 is not a multiple of 32 (a quantized block): the step runs in f32 numerics" in err
    assert main(["run", str(path), "--quiet", "--backend", "numpy", "--set", "numerics=int8"]) == 2
    err = capsys.readouterr().err
    assert f"{path}:" in err and "hidden 100 is not a multiple of 32" in err and "internal error" not in err
