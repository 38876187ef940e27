"""Hostile model directories, made from a tiny Llama that transformers writes: every one is refused with exit 2
within seconds, naming the file (or the tensor in it), before a step is built, and writes nothing. Each case here
once hung, ran random or corrupt weights with exit 0, read a file outside the directory, or ended in an internal
error."""

from __future__ import annotations

import json
import os
import shutil
import signal
import struct

import numpy as np
import pytest
import torch
from safetensors.torch import load_file, save_file
from tokenizers import Tokenizer, models, pre_tokenizers

import lanearena.cli.run as run_cli
import lanearena.lowering.serving.session as serving_session
from lanearena.cli import main

from ..support.checkpoints import rewrite, safetensors_bytes, tensors, tiny

SECONDS = 20
"""Longer than any refusal here takes (they take well under a second): past it the test fails, not hangs."""


@pytest.fixture(scope="module")
def llama(tmp_path_factory):
    directory = tmp_path_factory.mktemp("llama")
    tiny(directory)
    return directory


@pytest.fixture
def model(llama, tmp_path):
    return shutil.copytree(llama, tmp_path / "model")


@pytest.fixture(autouse=True)
def _bounded():
    """A hang (a FIFO opened for reading, a step of a million layers) fails the test after SECONDS."""

    def late(*_):
        raise TimeoutError(f"no answer within {SECONDS} s")

    old = signal.signal(signal.SIGALRM, late)
    signal.alarm(SECONDS)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


@pytest.fixture
def nothing_built(monkeypatch):
    """Fails a test whose command builds a step: every refusal here comes first."""
    for module in (run_cli, serving_session):  # the session builds generation's steps
        monkeypatch.setattr(module, "decoder_step", lambda *a, **k: pytest.fail("built a step before refusing"))


def _refused(capsys, directory, *args: str) -> str:
    """The one-line error of `lanearena run directory args`, having asserted exit 2 and that nothing was written."""
    before = sorted(os.listdir(directory))
    code = main(["run", str(directory), "--quiet", "--backend", "numpy", *args])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "internal error" not in err and "Traceback" not in err
    assert sorted(os.listdir(directory)) == before
    return err


def _write(directory, header: dict, data: bytes, name: str = "model.safetensors") -> None:
    (directory / name).write_bytes(safetensors_bytes(header, data))


def _f32(*values: float) -> bytes:
    return np.asarray(values, "<f4").tobytes()


# --- Files that are not regular files --------------------------------------------------------------------------


def test_a_fifo_for_weights_is_refused_not_waited_on(model, capsys, nothing_built):
    (model / "model.safetensors").unlink()
    os.mkfifo(model / "model.safetensors")
    assert f"{model}/model.safetensors: is a FIFO, not a regular file" in _refused(capsys, model)


def test_a_link_to_dev_zero_is_refused(model, capsys, nothing_built):
    (model / "model.safetensors").unlink()
    (model / "model.safetensors").symlink_to("/dev/zero")
    assert f"{model}/model.safetensors: is a character device, not a regular file" in _refused(capsys, model)


def test_a_fifo_shard_is_refused(model, capsys, nothing_built):
    _index(model, {"model.embed_tokens.weight": "shard.safetensors"})
    os.mkfifo(model / "shard.safetensors")
    assert f"{model}/shard.safetensors: is a FIFO" in _refused(capsys, model)


def test_a_fifo_config_is_refused(model, capsys, nothing_built):
    (model / "config.json").unlink()
    os.mkfifo(model / "config.json")
    assert f"{model}/config.json: is a FIFO" in _refused(capsys, model)


# --- Headers: every field type-checked, the bytes tiled exactly ------------------------------------------------


@pytest.mark.parametrize(
    "header, data, message",
    [
        ({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0.0, 8.0]}}, _f32(1, 2), "data_offsets [0.0, 8.0]"),
        ({"a": {"dtype": "F32", "shape": [2], "data_offsets": ["0", "8"]}}, _f32(1, 2), "not two non-negative"),
        ({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8, 9]}}, _f32(1, 2), "not two non-negative"),
        ({"a": {"dtype": "F32", "shape": [2], "data_offsets": [8, 0]}}, _f32(1, 2), "end before they start"),
        ({"a": {"dtype": ["F32"], "shape": [2], "data_offsets": [0, 8]}}, _f32(1, 2), "not a safetensors dtype"),
        ({"a": {"dtype": "F31", "shape": [2], "data_offsets": [0, 8]}}, _f32(1, 2), "not a safetensors dtype"),
        ({"a": {"dtype": "F32", "shape": [-2], "data_offsets": [0, 8]}}, _f32(1, 2), "not a list of non-negative"),
        ({"a": {"dtype": "F32", "shape": [True, 2], "data_offsets": [0, 8]}}, _f32(1, 2), "not a list of non-"),
        ({"a": {"dtype": "F32", "shape": 2, "data_offsets": [0, 8]}}, _f32(1, 2), "not a list of non-negative"),
        ({"a": {"dtype": "F32", "shape": [2]}}, _f32(1, 2), "tensor 'a' has no data_offsets"),
        ({"a": [1, 2]}, _f32(1, 2), "tensor 'a' is described by list, not an object"),
        ({"a": {"dtype": "F32", "shape": [3], "data_offsets": [0, 8]}}, _f32(1, 2), "takes 12 bytes, not the 8"),
        (
            {
                "a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
                "b": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]},
            },
            _f32(1, 2, 3),
            "tensor 'b' overlaps tensor 'a'",
        ),
        (
            {
                "a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
                "b": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
            },
            _f32(1, 2),
            "overlaps tensor 'a'",
        ),
        ({"a": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}}, _f32(1, 2), "bytes [0, 4) belong to no"),
        ({"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}, _f32(1, 2), "followed by bytes of no"),
        ({"a": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}}, _f32(1, 2), "past the end of the file"),
        ({"__metadata__": {"format": 3}}, b"", "__metadata__ is {'format': 3}, not an object of strings"),
        ({"__metadata__": ["pt"]}, b"", "not an object of strings"),
    ],
)
def test_a_malformed_header_is_refused_naming_the_file(model, capsys, nothing_built, header, data, message):
    _write(model, header, data)
    err = _refused(capsys, model)
    assert f"{model}/model.safetensors: " in err and message in err, err


def test_a_header_past_the_format_or_the_file_is_refused(model, capsys, nothing_built):
    (model / "model.safetensors").write_bytes(struct.pack("<Q", 1 << 62) + b"{}")
    assert "not a safetensors file (a header of" in _refused(capsys, model)


def test_a_header_that_is_not_json_is_refused_with_its_line(model, capsys, nothing_built):
    text = b'{"a":\n {"dtype": "F32",, }}'
    (model / "model.safetensors").write_bytes(struct.pack("<Q", len(text)) + text)
    assert f"{model}/model.safetensors:2:18: malformed JSON" in _refused(capsys, model)


def test_a_header_nested_past_the_parser_is_refused(model, capsys, nothing_built):
    text = b'{"a":' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    (model / "model.safetensors").write_bytes(struct.pack("<Q", len(text)) + text)
    assert "JSON nested too deep to read" in _refused(capsys, model)


def test_a_tensor_named_twice_is_refused(model, capsys, nothing_built):
    entry = '{"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}'
    text = f'{{"a": {entry}, "a": {entry}}}'.encode()
    (model / "model.safetensors").write_bytes(struct.pack("<Q", len(text)) + text + _f32(1))
    assert "key 'a' is given twice" in _refused(capsys, model)


# --- The index: a map of tensors to file names inside the directory --------------------------------------------


def _index(directory, weight_map) -> None:
    (directory / "model.safetensors").unlink()
    (directory / "model.safetensors.index.json").write_text(json.dumps({"weight_map": weight_map}))


@pytest.mark.parametrize("weight_map", [["a.safetensors"], 3, None, {"a": 3}, {"a": None}])
def test_an_index_whose_weight_map_is_not_a_map_of_files_is_refused(model, capsys, nothing_built, weight_map):
    _index(model, weight_map)
    assert f"{model}/model.safetensors.index.json: not a safetensors index" in _refused(capsys, model)


@pytest.mark.parametrize("shard", ["../outside.safetensors", "/abs/outside.safetensors", "sub/x.safetensors", ".."])
def test_an_index_naming_a_file_outside_the_directory_is_refused(model, capsys, nothing_built, shard):
    if shard.startswith("/abs"):
        shard = str(model.parent / "outside.safetensors")
    shutil.copy(model / "model.safetensors", model.parent / "outside.safetensors")
    _index(model, dict.fromkeys(tensors(model), shard))
    err = _refused(capsys, model)
    assert f"{model}/model.safetensors.index.json: shard '{shard}' is not a file name in {model}" in err


def test_a_shard_linked_from_inside_is_followed_as_the_hugging_face_cache_lays_out(model, capsys):
    """The Hub's cache keeps each file in blobs/ and links it from the snapshot's directory."""
    blobs = model.parent / "blobs"
    blobs.mkdir()
    names = list(tensors(model))
    shutil.move(model / "model.safetensors", blobs / "0123abcd")
    (model / "model-00001-of-00001.safetensors").symlink_to(blobs / "0123abcd")
    (model / "model.safetensors.index.json").write_text(
        json.dumps({"weight_map": dict.fromkeys(names, "model-00001-of-00001.safetensors")})
    )
    assert main(["run", str(model), "--quiet", "--backend", "numpy", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["weights"] == "checkpoint"


# --- Weights that are not finite: refused naming the tensor and where ------------------------------------------


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf")])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16])
def test_a_weight_that_is_not_finite_is_refused_naming_the_tensor_and_index(model, capsys, bad, dtype):
    values = {k: v.to(dtype) for k, v in tensors(model).items()}
    values["model.layers.1.mlp.up_proj.weight"][7, 3] = bad
    rewrite(model, values)
    err = _refused(capsys, model, "--prompt-ids", "1,2", "--generate", "2")
    assert f"{model}/model.safetensors: tensor 'model.layers.1.mlp.up_proj.weight' holds {bad} at [7, 3]" in err


@pytest.mark.parametrize("numerics", ["f32", "int8"])
@pytest.mark.parametrize("sampled", [[], ["--temperature", "0.7"]])
def test_weights_whose_products_overflow_are_refused_at_the_first_position_they_overflow(
    model, capsys, numerics, sampled
):
    """Finite weights (3e38, f32's largest is 3.4e38) whose sums overflow: the step finds NaN or Inf in the logits
    (its arg-max or its draw gives no token) and the run says so, where before it printed the token 0."""
    values = tensors(model)
    values["model.layers.0.mlp.up_proj.weight"][:] = 3e38
    rewrite(model, values)
    err = _refused(capsys, model, "--prompt-ids", "1,2", "--generate", "3", "--set", f"numerics={numerics}", *sampled)
    said = f"error: {model}: llama: the logits at position 1 hold NaN or Inf: the weights or the {numerics} numerics"
    assert said in err


def test_a_finite_weight_past_bf16s_largest_is_refused_where_it_is_rounded(model, capsys):
    values = tensors(model)
    values["model.layers.1.mlp.up_proj.weight"][7, 3] = 3.4e38  # finite in f32; bf16's largest is 3.3895e38
    rewrite(model, values)
    err = _refused(capsys, model, "--prompt-ids", "1,2", "--generate", "2", "--set", "numerics=bf16")
    held = f"error: {model}/model.safetensors: tensor 'model.layers.1.mlp.up_proj.weight', for step weight 'l1.w_up',"
    assert f"{held} holds 3.4e+38 at [7, 3], which rounds to infinity in bf16" in err


def test_a_weight_past_bf16s_largest_is_refused_naming_its_shard_and_tensor(tmp_path, capsys):
    """Shards of about 100 kB: the value is in the last layer's v projection, in a later shard than the first, and
    joined with q and k in the decode step's weight: the message names the shard and the tensor that hold it."""
    made = tiny(tmp_path / "whole")
    sharded = tmp_path / "sharded"
    made.save_pretrained(sharded, max_shard_size="100KB")
    index = json.loads((sharded / "model.safetensors.index.json").read_text())["weight_map"]
    name = "model.layers.1.self_attn.v_proj.weight"
    shard = sharded / index[name]
    assert index[name] != sorted(set(index.values()))[0]
    values = load_file(shard)
    values[name][5, 2] = -3.4e38
    save_file(values, shard, metadata={"format": "pt"})
    err = _refused(capsys, sharded, "--prompt-ids", "1,2", "--generate", "2", "--set", "numerics=bf16")
    assert f"error: {shard}: tensor '{name}', for step weight 'l1.wqkv', holds -3.4e+38 at [" in err


# --- Configs typed as transformers types them ------------------------------------------------------------------


def _config(directory, **changes) -> None:
    path = directory / "config.json"
    path.write_text(json.dumps(json.loads(path.read_text()) | changes))


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"hidden_size": True}, "hidden is an integer, not True"),
        ({"num_hidden_layers": 2.0}, "layers is an integer, not 2.0"),
        ({"vocab_size": "160"}, "vocab is an integer, not '160'"),
        ({"tie_word_embeddings": 0}, "tie_embeddings is true or false, not 0"),
    ],
)
def test_a_config_value_of_the_wrong_type_is_refused(model, capsys, nothing_built, changes, message):
    _config(model, **changes)
    err = _refused(capsys, model)
    assert f"{model}/config.json:" in err and message in err


def test_a_config_nested_past_the_parser_is_refused(model, capsys, nothing_built):
    (model / "config.json").write_text('{"a":' + "[" * 100_000 + "]" * 100_000 + "}")
    assert f"{model}/config.json: JSON nested too deep to read" in _refused(capsys, model)


def test_a_million_layers_are_refused_before_a_step_is_built(model, capsys, nothing_built):
    _config(model, num_hidden_layers=10**6)
    err = _refused(capsys, model)
    assert f"{model}/config.json:1: layers 1000000 are more than the 1024 a step is built with" in err


@pytest.mark.parametrize(
    "key, value, read_as",
    [
        ("max_position_embeddings", 10**12, "max_len"),
        ("intermediate_size", 2**40, "ffn"),
        ("vocab_size", 2**25, "vocab"),
        ("num_attention_heads", 2**31, "heads"),
    ],
)
def test_a_size_past_any_step_is_refused_naming_its_line_and_key(model, capsys, nothing_built, key, value, read_as):
    """Once a max_position_embeddings of 10^12 ran with exit 0 (the caches are sized to the run, not to it)."""
    path = model / "config.json"
    config = json.loads(path.read_text()) | {key: value}
    path.write_text(json.dumps(config, indent=2))
    line = next(i for i, text in enumerate(path.read_text().splitlines(), 1) if f'"{key}"' in text)
    err = _refused(capsys, model, "--prompt-ids", "1,2", "--generate", "2")
    assert f"{path}:{line}: {read_as} {value} is more than 16777216 (2^24)" in err and f"(the file's {key})" in err


def test_a_million_layers_of_random_weights_are_refused_before_a_step_is_built(tmp_path, capsys, nothing_built):
    """A config file alone, whose 10^6 layers of width 32 fit in memory: refused by the layer count, not built."""
    path = tmp_path / "deep.json"
    shape = {"hidden_size": 32, "intermediate_size": 32, "num_attention_heads": 2, "num_key_value_heads": 1}
    counts = {"num_hidden_layers": 10**6, "vocab_size": 64, "max_position_embeddings": 64}
    path.write_text(json.dumps({"model_type": "llama", **counts, **shape}))
    assert main(["run", str(path), "--quiet", "--backend", "numpy", "--random-weights"]) == 2
    assert f"{path}:1: layers 1000000 are more than the 1024 a step is built with" in capsys.readouterr().err


# --- A directory without safetensors weights: refused, naming what it holds --------------------------------------


@pytest.mark.parametrize(
    "keep, message",
    [
        ({"pytorch_model.bin"}, "(it holds config.json, pytorch_model.bin)"),
        (set(), "(it holds config.json)"),
        ({"Model.safetensors"}, "(Model.safetensors: names are case-sensitive)"),
    ],
)
def test_a_directory_without_safetensors_is_refused_unless_random_weights_are_asked(
    model, capsys, nothing_built, keep, message
):
    (model / "generation_config.json").unlink()
    if "Model.safetensors" in keep:
        (model / "model.safetensors").rename(model / "Model.safetensors")
    else:
        (model / "model.safetensors").unlink()
    if "pytorch_model.bin" in keep:
        (model / "pytorch_model.bin").write_bytes(b"PK\x03\x04")
    err = _refused(capsys, model)
    assert f"{model}: no model.safetensors nor model.safetensors.index.json" in err and message in err
    assert "--random-weights" in err


def test_random_weights_run_when_asked(model, capsys):
    (model / "model.safetensors").unlink()
    assert main(["run", str(model), "--quiet", "--backend", "numpy", "--json", "--random-weights"]) == 0
    assert json.loads(capsys.readouterr().out)["weights"] == "random"


@pytest.mark.parametrize(
    "name, args",
    [
        ("tokenizer.json", ["--prompt", "the cat"]),
        ("tokenizer_config.json", ["--chat", "the cat"]),
        ("chat_template.jinja", ["--chat", "the cat"]),
        ("generation_config.json", ["--prompt-ids", "1"]),
    ],
)
def test_a_fifo_among_the_text_files_is_refused(model, capsys, nothing_built, name, args):
    if name == "chat_template.jinja":
        (model / "tokenizer_config.json").write_text("{}")
    words = Tokenizer(models.WordLevel({"the": 0, "cat": 1, "[UNK]": 2}, unk_token="[UNK]"))
    words.pre_tokenizer = pre_tokenizers.Whitespace()
    words.save(str(model / "tokenizer.json"))
    path = model / name
    path.unlink(missing_ok=True)
    os.mkfifo(path)
    assert f"{path}: is a FIFO, not a regular file" in _refused(capsys, model, *args)


def test_a_tokenizer_the_library_cannot_read_is_refused_naming_it(model, capsys, nothing_built):
    (model / "tokenizer.json").write_text('{"version": "1.0"}')
    assert f"{model}/tokenizer.json: not a tokenizer the tokenizers library reads" in _refused(
        capsys, model, "--prompt", "the cat"
    )
