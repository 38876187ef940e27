"""Hugging Face config.json files of qwen3, qwen3_moe and qwen3_next (examples/configs: the published key sets and
values of Qwen3-0.6B, Qwen3-30B-A3B and Qwen3-Next-80B-A3B): read as decoder configs, `--set` over them, keys that
cannot be modeled named; and steps built from each, decode and prefill, placed, verified, lowered and run on the
numpy runtime against the unplaced run (CI-sized by `--set`)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

import lanearena.cli
from lanearena import api
from lanearena.analysis.check import check
from lanearena.frontend import ConfigError, decoder_step, load
from lanearena.lowering.compile import compare
from lanearena.model import Form

CONFIGS = Path(__file__).resolve().parents[2] / "examples" / "configs"
QWEN3, QWEN3_MOE, QWEN3_NEXT = (
    str(CONFIGS / f"{n}.json") for n in ("qwen3-0.6b", "qwen3-30b-a3b", "qwen3-next-80b-a3b")
)


def test_qwen3_0_6b():
    c = load(QWEN3)
    assert (c.name, c.layers, c.hidden, c.heads, c.kv_heads, c.head_dim, c.ffn, c.vocab, c.max_len) == (
        "qwen3-0.6b",
        28,
        1024,
        16,
        8,
        128,
        3072,
        151936,
        40960,
    )
    assert c.tie_embeddings and c.qk_norm and not c.mixture and c.rope_theta == 1e6 and c.norm_eps == 1e-6


def test_qwen3_30b_a3b():
    c = load(QWEN3_MOE)
    assert (c.layers, c.hidden, c.heads, c.kv_heads, c.experts, c.topk, c.expert_ffn, c.ffn) == (
        48,
        2048,
        32,
        4,
        128,
        8,
        768,
        None,
    )
    assert not c.tie_embeddings and c.attn_interval == 1 and c.shared_ffn is None


def test_qwen3_next_80b_a3b():
    c = load(QWEN3_NEXT)
    assert (c.layers, c.hidden, c.heads, c.kv_heads, c.head_dim, c.experts, c.topk, c.expert_ffn) == (
        48,
        2048,
        16,
        2,
        256,
        512,
        10,
        512,
    )
    assert (c.shared_ffn, c.attn_interval, c.lin_key_heads, c.lin_value_heads, c.lin_head_dim, c.conv_kernel) == (
        512,
        4,
        16,
        32,
        128,
        4,
    )
    assert c.rotary_dim == 64 and c.attn_gate and c.rope_theta == 1e7
    assert [c.full_attention(i) for i in range(8)] == [False, False, False, True] * 2


def test_settings_apply_over_a_hugging_face_config():
    c = load(QWEN3_NEXT, ["layers=4", "rows=64", "experts=16", "vocab=4096", "max_len=256", "numerics=f32"])
    assert (c.layers, c.rows, c.experts, c.vocab, c.max_len, c.numerics) == (4, 64, 16, 4096, 256, "f32")


def _written(tmp_path, base: str, **changes) -> str:
    values = json.loads(Path(base).read_text()) | changes
    path = tmp_path / "config.json"
    path.write_text(json.dumps(values, indent=2))
    return str(path)


@pytest.mark.parametrize(
    "base, changes, message",
    [
        (QWEN3, {"rope_scaling": {"type": "yarn", "factor": 4.0}}, "rope_scaling"),
        (QWEN3, {"use_sliding_window": True}, "use_sliding_window"),
        (QWEN3, {"attention_bias": True}, "attention_bias"),
        (QWEN3_MOE, {"norm_topk_prob": False}, "norm_topk_prob"),
        (QWEN3_MOE, {"mlp_only_layers": [3]}, "mlp_only_layers"),
        (QWEN3, {"quantization_config": {"bits": 4}}, "key 'quantization_config' is not one lanearena can model"),
        (QWEN3, {"model_type": "llama"}, "model_type 'llama' is not one lanearena reads"),
        (QWEN3_NEXT, {"linear_value_head_dim": 64}, "linear_key_head_dim and linear_value_head_dim differ"),
        (QWEN3_NEXT, {"layer_types": ["full_attention"] * 48}, "layer_types"),
    ],
)
def test_what_cannot_be_modeled_is_named_with_its_line(tmp_path, base, changes, message):
    path = _written(tmp_path, base, **changes)
    with pytest.raises(ConfigError) as e:
        load(path)
    assert message in str(e.value)
    key = next(iter(changes)) if "differ" not in message and "model_type" not in message else None
    if key:
        line = next(i for i, text in enumerate(Path(path).read_text().splitlines(), 1) if f'"{key}"' in text)
        assert f"{path}:{line}" in str(e.value)


def test_a_config_json_is_named_for_its_model_type(tmp_path):
    assert load(_written(tmp_path, QWEN3_MOE)).name == "qwen3_moe"


def test_build_reads_a_hugging_face_config(monkeypatch, capsys):
    monkeypatch.setattr(lanearena.cli, "SUBCOMMANDS", ("build",))
    code = lanearena.cli.main(["build", QWEN3, "--set", "layers=1", "--set", "vocab=512", "--set", "max_len=16"])
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    assert "lane.step @qwen3-0.6b numerics(int8)" in out or 'lane.step @"qwen3-0.6b"' in out


SMALL = [
    "layers=4",
    "vocab=256",
    "max_len=32",
    "hidden=128",
    "heads=4",
    "kv_heads=2",
    "head_dim=32",
    "split=2",
    "attn_splits=2",
]
"""Settings that keep a step CI-sized: the key sets are the published ones, the widths small."""

SMALL_BY_TYPE = {
    QWEN3: ["ffn=256"],
    QWEN3_MOE: ["experts=8", "topk=2", "expert_ffn=64"],
    QWEN3_NEXT: [
        "experts=8",
        "topk=2",
        "expert_ffn=64",
        "shared_ffn=32",
        "rotary_dim=8",
        "lin_key_heads=2",
        "lin_value_heads=4",
        "lin_head_dim=32",
    ],
}


@pytest.mark.parametrize("rows", [1, 8])
@pytest.mark.parametrize("config", [QWEN3, QWEN3_MOE, QWEN3_NEXT], ids=["qwen3", "qwen3_moe", "qwen3_next"])
def test_steps_of_each_model_type_run_placed_as_unplaced(config, rows):
    c = load(config, [*SMALL, *SMALL_BY_TYPE[config], f"rows={rows}"])
    module = decoder_step(c)
    api.place(module, "best")
    api.verify(module)
    ((step, plan),) = api.placed_steps(module)
    kinds = {launch.kind for launch in step.launches}
    if config == QWEN3_NEXT:
        assert {"conv", "delta", "moe_shared"} <= kinds
    result = compare(step, plan, "numpy", seed=3)
    for name, value in result.placed.items():
        assert not np.isnan(value).any(), name
    assert result.max_abs_err <= 1e-3


def test_qwen3_next_prefill_in_two_chunks():
    c = load(
        QWEN3_NEXT,
        [*SMALL, *SMALL_BY_TYPE[QWEN3_NEXT], "layers=1", "attn_interval=2", "rows=70", "max_len=80", "vocab=128"],
    )
    module = decoder_step(c)
    api.place(module, "greedy")
    api.verify(module)
    ((step, plan),) = api.placed_steps(module)
    delta = next(s for s in plan.scratch if s.tag == "dk")
    assert delta.bytes == 2 * 4 * 64 * 32 * 4  # two chunks of 4 heads of 64 rows of 32
    assert compare(step, plan, "numpy", seed=4).max_abs_err <= 1e-3


@pytest.mark.parametrize(
    "config, settings, want",
    [
        (QWEN3_MOE, ["fuse=true", "numerics=int8x2", "attn_kind=attention_i8x2"], {"gather_norm", "moe_add_norm"}),
        (QWEN3_MOE, ["fuse=true", "attn_kind=attention_shared", "rows=8", "tiles=true"], {"moe_add_norm", "gemm_tc"}),
        (QWEN3_MOE, ["fuse=true", "numerics=f32", "attn_kind=attention_shared", "attn_splits=1"], {"moe_add_norm"}),
        (QWEN3, ["tiles=true", "rows=8", "split=1"], {"gemv", "glu_tc"}),
        (QWEN3, ["tiles=true", "numerics=int8x2"], {"gemm_tc", "glu_tc"}),
    ],
)
def test_fused_tiled_and_other_attention_kinds_run_placed_as_unplaced(config, settings, want):
    c = load(config, [*SMALL, *SMALL_BY_TYPE[config], *settings])
    module = decoder_step(c)
    api.place(module, "best")
    api.verify(module)
    ((step, plan),) = api.placed_steps(module)
    assert want | {c.attn_kind} <= {launch.kind for launch in step.launches}
    result = compare(step, plan, "numpy", seed=5)
    for name, value in result.placed.items():
        assert not np.isnan(value).any(), name
    assert result.max_abs_err <= 1e-3


@pytest.mark.parametrize("rows, tag", [(1, "o"), (8, "o"), (8, "dg")])
def test_delta_scratch_over_its_live_input_corrupts_the_run(rows, tag):
    """The delta rule's scratch laid over the convolved rows it reads while it runs: the checker flags it, and the
    run differs from the reference, so the CPU run is a real test of the new kinds' placement."""
    c = load(QWEN3_NEXT, [*SMALL, *SMALL_BY_TYPE[QWEN3_NEXT], "layers=1", "attn_interval=2", f"rows={rows}"])
    module = decoder_step(c)
    api.place(module, "greedy")
    ((step, plan),) = api.placed_steps(module)
    at = next(i for i, launch in enumerate(step.launches) if launch.kind == "delta")
    convolved = plan.array(step.launches[at].ins[0], Form.PLAIN)
    assert convolved is not None and convolved.first <= at <= convolved.last
    bad = dataclasses.replace(
        plan,
        scratch=[
            dataclasses.replace(s, offset=convolved.offset) if (s.launch, s.tag) == (at, tag) else s
            for s in plan.scratch
        ],
    )
    assert any("overlaps" in p for p in check(step, bad))
    assert compare(step, bad, "numpy", seed=6).max_abs_err > 1e-3


@pytest.mark.parametrize("config", [QWEN3, QWEN3_MOE, QWEN3_NEXT], ids=["qwen3", "qwen3_moe", "qwen3_next"])
def test_steps_print_and_parse_back_placed(config):
    module = decoder_step(load(config, [*SMALL, *SMALL_BY_TYPE[config], "rows=8"]))
    api.place(module, "greedy")
    again = api.parse(str(module))
    assert again.is_structurally_equivalent(module)
    assert str(again) == str(module)
