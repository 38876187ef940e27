"""A model directory's weights: safetensors read in their own format (f32, f16, bf16 widened exactly; one file or
shards), and every tensor checked against the step before any is read: a missing, misshapen or unused tensor is an
error naming the tensor, its file and the shape the config makes. (The name tables of all eight families are held to
transformers in test_held_to_transformers.py.)"""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
import torch

import lanearena.frontend.checkpoint as checkpoint_module
from lanearena.frontend.checkpoint import Checkpoint, CheckpointError, has_weights
from lanearena.frontend.configs import load
from lanearena.frontend.decoder import decoder_step
from lanearena.frontend.family import FAMILIES
from lanearena.frontend.names import sources
from lanearena.frontend.safetensors_io import entries, read
from lanearena.lowering.session import Session
from lanearena.model import Role
from lanearena.passes.convert import step_of, steps

from ..support.checkpoints import rewrite, tensors, tiny

PROMPT = [5, 9, 2, 77, 31, 8]


@pytest.fixture(scope="module")
def llama(tmp_path_factory):
    directory = tmp_path_factory.mktemp("llama")
    tiny(directory)
    return directory


def _copy(llama, tmp_path):
    return shutil.copytree(llama, tmp_path / "model")


def _session(directory) -> Session:
    c = load(str(directory), ["numerics=f32"])
    return Session(c, Checkpoint(directory, c), chunk=4)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_half_precision_is_widened_exactly(tmp_path, dtype):
    values = {
        "w": torch.randn(7, 96, dtype=torch.float32).to(dtype),
        "b": torch.randn(5, dtype=torch.float32).to(dtype),
    }
    rewrite(tmp_path, values)
    found = entries(tmp_path)
    for name, value in values.items():
        assert np.array_equal(read(found[name]), value.float().numpy()), name


def test_a_sharded_checkpoint_reads_as_one_file(llama, tmp_path):
    sharded = _copy(llama, tmp_path)
    values = tensors(sharded)
    names = sorted(values)
    halves = {"model-00001-of-00002.safetensors": names[::2], "model-00002-of-00002.safetensors": names[1::2]}
    (sharded / "model.safetensors").unlink()
    from safetensors.torch import save_file

    for file, held in halves.items():
        save_file({n: values[n] for n in held}, sharded / file)
    weight_map = {n: file for file, held in halves.items() for n in held}
    (sharded / "model.safetensors.index.json").write_text(json.dumps({"metadata": {}, "weight_map": weight_map}))
    assert has_weights(sharded)
    assert np.array_equal(_session(sharded).forward(PROMPT), _session(llama).forward(PROMPT))


def _refused(directory, monkeypatch) -> str:
    """The error of a session over `directory`, having asserted that no tensor was read before it."""
    monkeypatch.setattr(checkpoint_module, "read", lambda entry: pytest.fail(f"read {entry.name} before checking"))
    with pytest.raises(CheckpointError) as e:
        _session(directory)
    return str(e.value)


def test_a_missing_tensor_is_named_with_its_shape(llama, tmp_path, monkeypatch):
    directory = _copy(llama, tmp_path)
    values = tensors(directory)
    del values["model.layers.1.mlp.down_proj.weight"]
    rewrite(directory, values)
    message = _refused(directory, monkeypatch)
    assert "missing tensor 'model.layers.1.mlp.down_proj.weight' (for l1.w_down, of shape [96, 160])" in message


def test_a_misshapen_tensor_is_named_with_its_file_and_the_shape_expected(llama, tmp_path, monkeypatch):
    directory = _copy(llama, tmp_path)
    values = tensors(directory)
    values["model.layers.0.self_attn.k_proj.weight"] = torch.zeros(64, 96)
    rewrite(directory, values)
    message = _refused(directory, monkeypatch)
    file = directory / "model.safetensors"
    assert (
        f"{file}: tensor 'model.layers.0.self_attn.k_proj.weight' is [64, 96], the config makes it [32, 96]" in message
    )


def test_a_tensor_no_weight_uses_is_named_with_its_file(llama, tmp_path, monkeypatch):
    directory = _copy(llama, tmp_path)
    values = tensors(directory) | {"model.layers.0.self_attn.q_norm.weight": torch.ones(32)}
    rewrite(directory, values)
    message = _refused(directory, monkeypatch)
    file = directory / "model.safetensors"
    assert f"{file}: tensor 'model.layers.0.self_attn.q_norm.weight' is not one a llama step uses" in message


def test_an_index_that_names_the_wrong_shard_is_refused(llama, tmp_path):
    directory = _copy(llama, tmp_path)
    names = sorted(tensors(directory))
    weight_map = {n: "model.safetensors" for n in names} | {"extra.weight": "model.safetensors"}
    (directory / "model.safetensors.index.json").write_text(json.dumps({"weight_map": weight_map}))
    with pytest.raises(CheckpointError, match=r"tensor 'extra\.weight' is listed in model\.safetensors, which does"):
        entries(directory)


def test_a_quantized_checkpoint_is_refused_by_its_dtype(tmp_path):
    rewrite(tmp_path, {"w": torch.zeros(4, 32, dtype=torch.int8)})
    with pytest.raises(CheckpointError, match=r"tensor 'w' is I8: lanearena reads F32, F16, BF16 weights"):
        entries(tmp_path)


def test_a_truncated_file_is_refused(tmp_path):
    (tmp_path / "model.safetensors").write_bytes(b"\x10\x00")
    with pytest.raises(CheckpointError, match="not a safetensors file"):
        entries(tmp_path)


@pytest.mark.parametrize(
    "config",
    sorted(str(p) for p in (Path(__file__).resolve().parents[3] / "examples" / "configs").glob("*.json")),
)
def test_the_name_table_fills_every_weight_of_the_published_shapes_once(config):
    """Each weight of a published config's decode and prefill steps is made of checkpoint tensors that cover it
    exactly once, at the published attention widths (Qwen3-Next's 16 key and 32 value heads regrouped); two layers,
    as few experts as it routes to, MLPs of 256."""
    notes: list[str] = []
    c = load(config, ["layers=2", "vocab=64", "max_len=16"], notes)
    narrow = {k: 256 for k in ("ffn", "expert_ffn", "shared_ffn") if getattr(c, k) is not None}
    c = dataclasses.replace(c, **narrow, **({"experts": c.topk} if c.mixture else {}))
    model_type = json.loads(Path(config).read_text())["model_type"]
    made = sources(FAMILIES[model_type], c)
    for rows in (1, 4):
        (op,) = steps(decoder_step(dataclasses.replace(c, rows=rows)))
        for t in step_of(op)[0].tensors.values():
            if t.role is not Role.WEIGHT:
                continue
            covered = np.zeros(t.shape, np.int8)
            for piece in made[t.name]:
                part = piece.take(np.ones(piece.shape, np.int8)) if piece.take else np.ones(piece.shape, np.int8)
                covered[piece.at] += part
            assert covered.min() == covered.max() == 1, t.name
