"""`lanearena run MODEL_DIR`: the directory's weights, compared placed against unshared; with a prompt (token ids, or
text through the directory's tokenizer.json), the tokens a Session generates, printed, in --json, and their logits
saved by --logits."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from tokenizers import Tokenizer, models, pre_tokenizers

from lanearena.cli import main
from lanearena.frontend.checkpoint import Checkpoint
from lanearena.frontend.configs import load
from lanearena.lowering.session import Session

from ..support.checkpoints import tiny

WORDS = ["the", "cat", "sat", "on", "a", "mat", "and", "dog", "ran", "far"]


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    directory = tmp_path_factory.mktemp("llama")
    tiny(directory)
    vocab = {w: i for i, w in enumerate(WORDS)} | {"[UNK]": len(WORDS)}
    tokenizer = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.save(str(directory / "tokenizer.json"))
    return directory


def _json(capsys, *args: str) -> dict:
    assert main(["run", *args, "--json", "--backend", "numpy"]) == 0
    return json.loads(capsys.readouterr().out)


def test_a_model_directory_runs_its_weights_placed_as_unplaced(model, capsys):
    report = _json(capsys, str(model))
    assert report["weights"] == "checkpoint" and report["max_abs_err"] == 0.0


def test_generated_tokens_and_logits_are_the_sessions(model, capsys, tmp_path):
    saved = tmp_path / "logits.npy"
    report = _json(capsys, str(model), "--prompt-ids", "4,8,15,16,23", "--generate", "5", "--logits", str(saved))
    c = load(str(model))
    tokens, logits = Session(c, Checkpoint(model, c), chunk=8).generate([4, 8, 15, 16, 23], 5)
    assert report["prompt"] == [4, 8, 15, 16, 23] and report["tokens"] == tokens
    assert np.array_equal(np.load(saved), logits) and logits.shape == (5, c.vocab)


def test_a_text_prompt_goes_through_the_tokenizer(model, capsys):
    report = _json(capsys, str(model), "--prompt", "the cat sat on a mat", "--generate", "3", "--set", "numerics=f32")
    assert report["prompt"] == [0, 1, 2, 3, 4, 5]
    ids = report["tokens"]
    words = [WORDS[i] if i < len(WORDS) else None for i in ids]
    assert report["text"].split() == [w for w in words if w is not None]


@pytest.mark.parametrize(
    "args, message",
    [
        (["--generate", "3"], "--generate needs a prompt"),
        (["--prompt-ids", "1,x"], "--prompt-ids is token ids separated by commas"),
        (["--prompt-ids", "1,999"], "token ids must be in [0, 160)"),
        (["--prompt", "hi", "--prompt-ids", "1"], "give --prompt or --prompt-ids, not both"),
    ],
)
def test_a_bad_prompt_is_refused(model, capsys, args, message):
    assert main(["run", str(model), "--quiet", "--backend", "numpy", *args]) == 2
    assert message in capsys.readouterr().err


def test_a_text_prompt_needs_a_tokenizer(capsys):
    assert main(["run", "tiny", "--prompt", "hello", "--quiet"]) == 2
    assert "--prompt needs a tokenizer.json in the model directory" in capsys.readouterr().err


def test_a_shipped_config_generates_with_random_weights(capsys):
    report = _json(capsys, "tiny", "--prompt-ids", "1,2,3", "--generate", "2", "--chunk", "2")
    assert report["weights"] == "random" and len(report["tokens"]) == 2


def test_a_model_directory_runs_in_its_checkpoints_numerics(model, tmp_path, capsys):
    """f32 weights run f32, bf16 weights bf16 (as they are: nothing is said), int8 on request; --json says which."""
    bf16 = tmp_path / "bf16"
    tiny(bf16, dtype=torch.bfloat16)
    assert load(str(model)).numerics == "f32" and load(str(bf16)).numerics == "bf16"
    assert load(str(bf16), ["numerics=int8"]).numerics == "int8"
    assert _json(capsys, str(bf16))["numerics"] == "bf16"
    assert _json(capsys, str(model))["numerics"] == "f32"
    report = _json(capsys, str(model), "--set", "numerics=int8", "--prompt-ids", "1,2", "--generate", "2")
    assert report["numerics"] == "int8"


def test_an_f32_checkpoint_run_in_bf16_says_it_is_rounded(model, capsys):
    assert main(["run", str(model), "--set", "numerics=bf16", "--json", "--backend", "numpy"]) == 0
    out = capsys.readouterr()
    assert json.loads(out.out)["numerics"] == "bf16" and json.loads(out.out)["max_abs_err"] == 0.0
    assert f"note: {model}: its F32 weight matrices are rounded to bf16 (to nearest, ties to even)" in out.err
