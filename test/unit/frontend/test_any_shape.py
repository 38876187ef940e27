"""Shapes transformers accepts run: widths that 32 does not cut (a hidden size of 100, five heads of 64), under int8
the products over them in f32 (test_int8_widths.py holds such a step's numbers), and heads of 16 values (as tiny
test models have) in every kernel, Qwen3-Next's delta rule among them; each held to transformers' own logits. A
split that cuts a k read int8 into no whole blocks runs the step in f32 where int8 was only the default, and is one
located refusal (exit 2) under int8 asked for, never an internal error."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest
import torch
import transformers

from lanearena.cli import main
from lanearena.frontend.checkpoint import Checkpoint
from lanearena.frontend.configs import CONFIGS, load
from lanearena.lowering.serving.session import Session

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


def test_int8_runs_the_products_over_a_width_32_does_not_cut_in_f32_and_says_so(tmp_path, capsys):
    config = transformers.LlamaConfig(**(LLAMA | SHAPES["hidden 100, five heads of 64"][1])).to_dict()
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config, indent=1))
    # int8 by default (the file names no numerics) or asked for: two layers of q/k/v and gate/up over hidden 100 and
    # the lm-head in f32; the output projection over 5 x 64 = 320 and down over 160 in int8
    for asked in ([], ["--set", "numerics=int8"]):
        assert main(["run", str(path), "--quiet", "--json", "--backend", "numpy", *asked]) == 0
        out, err = capsys.readouterr()
        assert json.loads(out)["numerics"] == "int8" and json.loads(out)["max_abs_err"] == 0.0
        assert json.loads(out)["f32_products"] == {"count": 2 * 2 + 1, "of": 2 * 4 + 1, "k": [100]}
        assert "note: int8: 5 of 9 products run in f32 (k 100 not a multiple of 32)" in err
        assert "internal error" not in err


def test_int8_by_default_runs_a_split_that_cuts_no_whole_blocks_in_f32_and_says_so(tmp_path, capsys):
    """A split must cut a k that products read int8 into whole blocks: split 2 cuts hidden 96 (three blocks) into
    none, but f32 takes it (parts of 64 and 32). Where int8 is only the default the whole step runs in f32; where it
    is asked for, a located refusal."""
    shipped = dataclasses.asdict(CONFIGS["tiny"])
    values = {k: v for k, v in shipped.items() if k != "numerics"} | {"hidden": 96, "split": 2, "ffn": 64}
    path = tmp_path / "split.json"
    path.write_text(json.dumps(values, indent=1))
    assert main(["run", str(path), "--quiet", "--json", "--backend", "numpy"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["numerics"] == "f32"
    assert "split 2 does not cut hidden (96) into whole blocks of 32: the step runs in f32 numerics" in err
    assert main(["run", str(path), "--quiet", "--backend", "numpy", "--set", "numerics=int8"]) == 2
    err = capsys.readouterr().err
    assert f"{path}:" in err and "split 2 does not cut hidden (96)" in err and "internal error" not in err
