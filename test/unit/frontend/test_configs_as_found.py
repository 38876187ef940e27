"""Hugging Face configs as they are found: keys transformers' config class does not define are ignored (with a note
that names a near miss of a key lanearena reads), keys it defines and lanearena does not read stay refusals, the
forms transformers 4.x publishes and 5.x writes both read, the split chosen to fit, an f32 step of any width."""

from __future__ import annotations

import inspect
import json
from pathlib import Path

import pytest
import transformers

from lanearena.frontend import ConfigError, decoder_step, load
from lanearena.frontend.family import FAMILIES
from lanearena.model import Form
from lanearena.passes.convert import step_of, steps

SMOLLM2 = str(Path(__file__).resolve().parents[3] / "examples" / "configs" / "smollm2-135m.json")


def _written(tmp_path, values: dict) -> str:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(values, indent=2))
    return str(path)


def test_smollm2_builds_as_published():
    notes: list[str] = []
    c = load(SMOLLM2, notes=notes)
    assert (c.layers, c.hidden, c.heads, c.kv_heads, c.head_dim, c.ffn, c.vocab) == (30, 576, 9, 3, 64, 1536, 49152)
    assert c.tie_embeddings and c.rope_theta == 1e5 and c.norm_eps == 1e-5 and c.max_len == 8192
    # 576 is not 4 whole blocks of 32 a part: the split chosen is the largest that fits.
    assert c.split == 2 and c.numerics == "int8"
    assert [n.split("ignored key ")[1].split(":")[0] for n in notes] == ["'is_llama_config'", "'rope_interleaved'"]
    assert all(f"{SMOLLM2}:" in n for n in notes)
    decoder_step(c)


def test_a_near_miss_of_a_key_is_said(tmp_path):
    values = json.loads(Path(SMOLLM2).read_text()) | {"rope_thetta": 5.0}
    notes: list[str] = []
    load(_written(tmp_path, values), notes=notes)
    assert any("ignored key 'rope_thetta'" in n and "(did you mean 'rope_theta'?)" in n for n in notes)


def test_a_key_transformers_reads_and_lanearena_does_not_is_refused(tmp_path):
    values = json.loads(Path(SMOLLM2).read_text()) | {"quantization_config": {"bits": 4}}
    with pytest.raises(ConfigError, match="llama key 'quantization_config' is not one lanearena can model"):
        load(_written(tmp_path, values))


@pytest.mark.parametrize("model_type", FAMILIES)
def test_the_table_of_transformers_keys_is_the_installed_transformers(model_type):
    """Every key transformers' config class for the family defines (beyond the base class's, which never change a
    step's computation) is in the table, so that a key it reads is never ignored."""
    cls = transformers.CONFIG_MAPPING[model_type]
    base = set(inspect.signature(transformers.PretrainedConfig.__init__).parameters)
    own = set(inspect.signature(cls.__init__).parameters) - base - {"kwargs"}
    assert own <= FAMILIES[model_type].transformers_keys, sorted(own - FAMILIES[model_type].transformers_keys)


@pytest.mark.parametrize("model_type", FAMILIES)
def test_configs_transformers_5_writes_are_read(tmp_path, model_type):
    """transformers 5 writes rope_parameters (Qwen3-Next's partial_rotary_factor inside), qwen3_moe's expert count
    as num_local_experts, Qwen3-Next's layer_types without full_attention_interval."""
    transformers.CONFIG_MAPPING[model_type]().save_pretrained(tmp_path)
    c = load(str(tmp_path / "config.json"))
    want = transformers.CONFIG_MAPPING[model_type]()
    assert (c.layers, c.hidden, c.vocab) == (want.num_hidden_layers, want.hidden_size, want.vocab_size)
    if model_type in ("qwen3_moe", "qwen2_moe", "mixtral", "qwen3_next"):
        assert c.experts == getattr(want, "num_experts", None) or c.experts == want.num_local_experts
    if model_type == "qwen3_next":
        assert c.rotary_dim == int(want.head_dim * want.rope_parameters["partial_rotary_factor"])
        assert c.attn_interval == want.layer_types.index("full_attention") + 1


def test_expert_counts_that_disagree_are_refused(tmp_path):
    transformers.CONFIG_MAPPING["qwen3_moe"]().save_pretrained(tmp_path)
    values = json.loads((tmp_path / "config.json").read_text()) | {"num_experts": 64}
    with pytest.raises(ConfigError, match=r"num_experts and num_local_experts differ \(64, 128\)"):
        load(_written(tmp_path, values))


def test_any_width_builds_and_under_int8_no_product_over_it_reads_int8(tmp_path):
    odd = ["hidden=72", "heads=3", "kv_heads=1", "head_dim=24", "ffn=100", "layers=1", "vocab=64", "max_len=16"]
    for numerics in ("f32", "int8"):
        c = load("tiny", [*odd, f"numerics={numerics}"])
        assert c.split == 2 and c.hidden == 72  # the shipped config's split, which fits f32 parts
        step = step_of(steps(decoder_step(c))[0])[0]
        # every k (72, 72, 100) is no whole number of 32-value blocks: every weight f32, every read plain
        assert {t.elem for t in step.tensors.values()} == {"f32", "i32"}
        assert all(touch.form is Form.PLAIN for launch in step.launches for touch in launch.reads)
