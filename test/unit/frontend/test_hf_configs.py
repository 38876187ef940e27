"""Hugging Face config.json files of every model_type lanearena reads (examples/configs: the published key sets and
values of Qwen3-0.6B, Qwen3-30B-A3B, Qwen3-Next-80B-A3B, Llama-3.2-1B, Mistral-7B-v0.3, Qwen2.5-0.5B,
Mixtral-8x7B-v0.1 and Qwen1.5-MoE-A2.7B): read as decoder configs, `--set` over them, keys that cannot be modeled
named with their line; the whole published models placed at their lower bound; and steps built from each, decode
and prefill, placed, verified, lowered and run on the numpy runtime against the unplaced run (CI-sized by
`--set`). test_model_reference.py holds the same steps to a float64 forward of each architecture."""

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
from lanearena.lowering.codegen.lower import lower
from lanearena.lowering.codegen.placed import placed
from lanearena.lowering.runtime.device import NumpyDevice
from lanearena.lowering.runtime.execute import max_abs_err, random_feeds, run_step
from lanearena.lowering.serving.compare import compare
from lanearena.model import Form
from lanearena.options import PlaceOptions

CONFIGS = Path(__file__).resolve().parents[3] / "examples" / "configs"
QWEN3, QWEN3_MOE, QWEN3_NEXT, LLAMA, MISTRAL, QWEN2, MIXTRAL, QWEN2_MOE = (
    str(CONFIGS / f"{n}.json")
    for n in (
        "qwen3-0.6b",
        "qwen3-30b-a3b",
        "qwen3-next-80b-a3b",
        "llama-3.2-1b",
        "mistral-7b-v0.3",
        "qwen2.5-0.5b",
        "mixtral-8x7b-v0.1",
        "qwen1.5-moe-a2.7b",
    )
)
PUBLISHED = {"llama": LLAMA, "mistral": MISTRAL, "qwen2": QWEN2, "mixtral": MIXTRAL, "qwen2_moe": QWEN2_MOE}
"""The five families issue 21 reads, by model_type."""


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


def test_llama_3_2_1b():
    c = load(LLAMA)
    assert (c.layers, c.hidden, c.heads, c.kv_heads, c.head_dim, c.ffn, c.vocab, c.max_len) == (
        16,
        2048,
        32,
        8,
        64,
        8192,
        128256,
        131072,
    )
    assert (c.rope_type, c.rope_factor, c.rope_low, c.rope_high, c.rope_original) == ("llama3", 32.0, 1.0, 4.0, 8192)
    assert c.rope_theta == 5e5 and c.norm_eps == 1e-5 and c.tie_embeddings
    assert not (c.qk_norm or c.qkv_bias or c.o_bias or c.mlp_bias or c.mixture) and c.window is None


def test_mistral_7b_v0_3():
    c = load(MISTRAL)
    assert (c.layers, c.hidden, c.heads, c.kv_heads, c.head_dim, c.ffn, c.vocab, c.max_len) == (
        32,
        4096,
        32,
        8,
        128,  # hidden_size / num_attention_heads: the file gives no head_dim
        14336,
        32768,
        32768,
    )
    assert c.window is None and c.rope_type == "default" and c.rope_theta == 1e6 and not c.tie_embeddings


def test_qwen2_5_0_5b():
    c = load(QWEN2)
    assert (c.layers, c.hidden, c.heads, c.kv_heads, c.head_dim, c.ffn, c.vocab) == (24, 896, 14, 2, 64, 4864, 151936)
    assert c.qkv_bias and not c.o_bias and c.tie_embeddings and not c.qk_norm
    assert c.window is None  # sliding_window is given, but use_sliding_window is false


def test_mixtral_8x7b():
    c = load(MIXTRAL)
    assert (c.layers, c.hidden, c.heads, c.kv_heads, c.experts, c.topk, c.expert_ffn, c.ffn, c.vocab) == (
        32,
        4096,
        32,
        8,
        8,
        2,
        14336,  # Mixtral's intermediate_size is its experts'
        None,
        32000,
    )
    assert c.norm_topk and c.shared_ffn is None and c.window is None and c.norm_eps == 1e-5


def test_qwen1_5_moe_a2_7b():
    c = load(QWEN2_MOE)
    assert (c.layers, c.hidden, c.heads, c.kv_heads, c.experts, c.topk, c.expert_ffn, c.shared_ffn) == (
        24,
        2048,
        16,
        16,
        60,
        4,
        1408,
        5632,
    )
    assert not c.norm_topk and c.qkv_bias and (c.sparse_step, c.dense_layers, c.ffn) == (1, (), None)
    assert all(c.sparse(i) for i in range(c.layers)) and c.max_len == 8192


def test_defaults_are_transformers_where_a_key_is_left_out(tmp_path):
    """A config.json may leave out keys its config class has defaults for: lanearena takes transformers' (Mistral's
    sliding window of 4096, rope_theta 10000, num_key_value_heads as num_attention_heads)."""
    values = json.loads(Path(MISTRAL).read_text())
    for key in ("sliding_window", "rope_theta", "num_key_value_heads"):
        del values[key]
    path = tmp_path / "config.json"
    path.write_text(json.dumps(values, indent=2))
    c = load(str(path))
    assert (c.window, c.rope_theta, c.kv_heads) == (4096, 10000.0, 32)


def test_a_dense_model_without_its_mlp_width_is_refused(tmp_path):
    values = json.loads(Path(LLAMA).read_text())
    del values["intermediate_size"]
    path = tmp_path / "config.json"
    path.write_text(json.dumps(values, indent=2))
    with pytest.raises(ConfigError, match=r"config\.json: missing key intermediate_size"):
        load(str(path))


@pytest.mark.parametrize(
    "base, changes, want",
    [
        (QWEN3, {"use_sliding_window": True, "sliding_window": 64, "max_window_layers": 20}, {"window": 64}),
        (QWEN3, {"attention_bias": True}, {"qkv_bias": True, "o_bias": True}),
        (QWEN3_MOE, {"norm_topk_prob": False}, {"norm_topk": False}),
        (QWEN3_MOE, {"mlp_only_layers": [3]}, {"dense_layers": (3,), "ffn": 6144}),
        (QWEN2_MOE, {"decoder_sparse_step": 2}, {"sparse_step": 2, "ffn": 5632}),
        (LLAMA, {"rope_scaling": {"rope_type": "linear", "factor": 2.0}}, {"rope_type": "linear", "rope_factor": 2.0}),
        (
            LLAMA,
            {"rope_scaling": {"type": "dynamic", "factor": 2.0}},
            {"rope_type": "dynamic", "rope_original": 131072},
        ),
        (LLAMA, {"mlp_bias": True}, {"mlp_bias": True}),
        (MISTRAL, {"sliding_window": 4096}, {"window": 4096}),
        (
            QWEN2,
            {"rope_scaling": None, "rope_parameters": {"rope_type": "default", "rope_theta": 5e5}},
            {"rope_theta": 5e5},
        ),
    ],
)
def test_keys_the_decoder_models(tmp_path, base, changes, want):
    c = load(_written(tmp_path, base, **changes))
    assert {k: getattr(c, k) for k in want} == want


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
        (QWEN3, {"rope_scaling": {"type": "yarn", "factor": 4.0}}, "rope_type 'yarn' cannot be modeled"),
        (LLAMA, {"hidden_act": "gelu"}, "hidden_act 'gelu' cannot be modeled"),
        (QWEN2, {"use_mrope": True}, "use_mrope True cannot be modeled"),
        (QWEN2, {"layer_types": ["full_attention"] * 23 + ["sliding_attention"]}, "layer_types is not what"),
        (QWEN2_MOE, {"mlp_only_layers": 3}, "mlp_only_layers is a list of layers"),
        (QWEN3_NEXT, {"attention_bias": True}, "attention_bias True cannot be modeled"),
        (MIXTRAL, {"quantization_config": {"bits": 4}}, "key 'quantization_config' is not one lanearena can model"),
        (QWEN3, {"model_type": "gemma"}, "model_type 'gemma' is not one lanearena reads"),
        (
            QWEN3,
            {"model_type": "qwen3-moe"},
            "lanearena reads (llama, mistral, qwen2, mixtral, qwen2_moe, qwen3, "
            "qwen3_moe, qwen3_next) (did you mean 'qwen3_moe'?)",
        ),
        (QWEN3_NEXT, {"linear_value_head_dim": 64}, "linear_key_head_dim and linear_value_head_dim differ"),
        (QWEN3_NEXT, {"layer_types": ["full_attention"] * 48}, "layer_types"),
    ],
)
def test_what_cannot_be_modeled_is_named_with_its_line(tmp_path, base, changes, message):
    path = _written(tmp_path, base, **changes)
    with pytest.raises(ConfigError) as e:
        load(path)
    assert message in str(e.value)
    key = next(iter(changes)) if "differ" not in message else None
    if key:
        line = next(i for i, text in enumerate(Path(path).read_text().splitlines(), 1) if f'"{key}"' in text)
        assert f"{path}:{line}" in str(e.value)


@pytest.mark.parametrize(
    "changes, key, message",
    [
        (
            {"rope_type": "llama3", "factor": 8.0, "attention_factor": 1.0},
            "attention_factor",
            "rope_scaling key 'attention_factor' cannot be modeled by a llama3 rope",
        ),
        ({"rope_type": "llama3", "factor": 8.0}, "rope_scaling", "a llama3 rope_scaling needs low_freq_factor"),
    ],
)
def test_rope_keys_are_named_with_their_line(tmp_path, changes, key, message):
    """A key inside rope_scaling that its rope type does not read, or a rope type's parameter left out, is named with
    the line it is (or would be) on."""
    path = _written(tmp_path, LLAMA, rope_scaling=changes)
    with pytest.raises(ConfigError) as e:
        load(path)
    line = next(i for i, text in enumerate(Path(path).read_text().splitlines(), 1) if f'"{key}"' in text)
    assert f"{path}:{line}: {message}" in str(e.value)


def test_a_config_json_is_named_for_its_model_type(tmp_path):
    assert load(_written(tmp_path, QWEN3_MOE)).name == "qwen3_moe"


def test_models_lists_each_model_type_and_what_it_refuses(monkeypatch, capsys):
    monkeypatch.setattr(lanearena.cli, "SUBCOMMANDS", ("models",))
    assert lanearena.cli.main(["models"]) == 0
    out = capsys.readouterr().out
    for model_type, arch in (("llama", "LlamaForCausalLM"), ("qwen2_moe", "Qwen2MoeForCausalLM")):
        assert f"{model_type} ({arch})" in out
    assert "use_mrope other than false" in out and "hidden_act other than silu" in out
    assert "rope types other than default, linear, dynamic, llama3" in out


@pytest.mark.parametrize("model_type", PUBLISHED)
def test_published_models_place_at_their_lower_bound(model_type):
    """The whole published model's decode step (every layer, the published vocabulary and cache length) places at its
    lower bound, and has a decode step's launches, fused: 3 (gather, final norm and lm-head, arg-max) and 5 a dense
    layer (norm and q/k/v projection; ropes, cache store and attention; output projection and add; norm, gated pair
    and quantize; down projection and add) or 4 a mixture layer (output projection, add and the mixture's norm; the
    mixture and its add, with its shared expert where it has one)."""
    c = load(PUBLISHED[model_type])
    module = decoder_step(c)
    api.place(module, PlaceOptions("best"))
    api.verify(module)
    ((step, plan),) = api.placed_steps(module)
    assert plan.bytes == plan.lower_bound
    assert len(step.launches) == 3 + sum(4 if c.sparse(i) else 5 for i in range(c.layers))


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
    LLAMA: ["ffn=256", "qkv_bias=true", "o_bias=true", "mlp_bias=true"],
    MISTRAL: ["ffn=256", "window=12"],
    QWEN2: ["ffn=256", "window=12", "window_from=2"],
    MIXTRAL: ["experts=8", "topk=2", "expert_ffn=64"],
    QWEN2_MOE: ["experts=8", "topk=4", "expert_ffn=64", "shared_ffn=96", "dense_layers=1", "ffn=256"],
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


ALL_TYPES = {"qwen3": QWEN3, "qwen3_moe": QWEN3_MOE, "qwen3_next": QWEN3_NEXT} | PUBLISHED


@pytest.mark.parametrize("rows", [1, 8])
@pytest.mark.parametrize("config", ALL_TYPES.values(), ids=ALL_TYPES.keys())
def test_steps_of_each_model_type_run_placed_as_unplaced(config, rows):
    c = load(config, [*SMALL, *SMALL_BY_TYPE[config], f"rows={rows}"])
    module = decoder_step(c)
    api.place(module, PlaceOptions("best"))
    p = placed(module)
    kinds = {launch.kind for launch in p.step.launches}
    want = {  # as fused (lane-fuse): the norms in the products, the residual adds in the products and mixtures
        QWEN3_NEXT: {"conv", "delta", "moe_shared_add", "gemv_add_norm"},
        LLAMA: {"norm_gemv_bias", "glu_bias"},
        QWEN2: {"norm_gemv_bias"},
        QWEN2_MOE: {"norm_gemv_bias", "moe_shared_add", "norm_glu"},
    }
    assert want.get(config, set()) <= kinds
    result = compare(p, "numpy", seed=3)
    for name, value in result.placed.items():
        assert not np.isnan(value).any(), name
    assert result.max_abs_err <= 1e-3


def test_qwen3_next_prefill_in_two_chunks():
    c = load(
        QWEN3_NEXT,
        [*SMALL, *SMALL_BY_TYPE[QWEN3_NEXT], "layers=1", "attn_interval=2", "rows=70", "max_len=80", "vocab=128"],
    )
    module = decoder_step(c)
    api.place(module, PlaceOptions("greedy"))
    p = placed(module)
    delta = next(s for s in p.plan.scratch if s.tag == "dk")
    assert delta.bytes == 2 * 4 * 64 * 32 * 4  # two chunks of 4 heads of 64 rows of 32
    assert compare(p, "numpy", seed=4).max_abs_err <= 1e-3


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
    # The builder's kinds, unfused: lane-fuse would fold the attention kinds into its own.
    c = load(config, [*SMALL, *SMALL_BY_TYPE[config], *settings, "lane_fuse=false"])
    module = decoder_step(c)
    api.place(module, PlaceOptions("best"))
    p = placed(module)
    assert want | {c.attn_kind} <= {launch.kind for launch in p.step.launches}
    result = compare(p, "numpy", seed=5)
    for name, value in result.placed.items():
        assert not np.isnan(value).any(), name
    assert result.max_abs_err <= 1e-3


@pytest.mark.parametrize("rows, tag", [(1, "o"), (8, "o"), (8, "dg")])
def test_delta_scratch_over_its_live_input_corrupts_the_run(rows, tag):
    """The delta rule's scratch laid over the convolved rows it reads while it runs: the checker flags it, and the
    run differs from the reference, so the CPU run is a real test of the new kinds' placement."""
    c = load(QWEN3_NEXT, [*SMALL, *SMALL_BY_TYPE[QWEN3_NEXT], "layers=1", "attn_interval=2", f"rows={rows}"])
    module = decoder_step(c)
    api.place(module, PlaceOptions("greedy"))
    p = placed(module)
    step, plan = p.step, p.plan
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
    feeds = random_feeds(step, 6)
    run_bad = run_step(NumpyDevice(), lower(p.op, step, bad), feeds)  # as the unverified lowering lays it out
    assert max_abs_err(run_bad, run_step(NumpyDevice(), p.unshared, feeds)) > 1e-3


@pytest.mark.parametrize("config", ALL_TYPES.values(), ids=ALL_TYPES.keys())
def test_steps_print_and_parse_back_placed(config):
    module = decoder_step(load(config, [*SMALL, *SMALL_BY_TYPE[config], "rows=8"]))
    api.place(module, PlaceOptions("greedy"))
    again = api.parse(str(module))
    assert again.is_structurally_equivalent(module)
    assert str(again) == str(module)
