"""`lanearena run MODEL_DIR`: the directory's weights, compared placed against unshared; with a prompt (token ids,
text through the directory's tokenizer.json, or a chat message through its chat template), the tokens a Session
generates, printed, in --json, and their logits saved by --logits; stopped at the end token, sampled from a seed,
streamed, in the checkpoint's own numerics, the caches sized to the run; every flag checked before a step is
built."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
import torch
import transformers
from tokenizers import AddedToken, Tokenizer, models, pre_tokenizers

import lanearena.cli.generation as generation_cli
import lanearena.cli.run as run_cli
from lanearena.cli import main
from lanearena.decoding import Sampling, choose, uniform
from lanearena.frontend.checkpoint import Checkpoint
from lanearena.frontend.configs import load
from lanearena.lowering.serving import session as session_module
from lanearena.lowering.serving.session import Session

from ..support.checkpoints import tiny
from ..support.devices import CountingDevice

WORDS = ["the", "cat", "sat", "on", "a", "mat", "and", "dog", "ran", "far"]
SPECIAL = ["<|im_start|>", "<|im_end|>"]
CHAT_TEMPLATE = (
    "{% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}"
    "{{ '<|im_start|>system\\nYou are a cat<|im_end|>\\n' }}{% endif %}"
    "{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n'}}{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
)
"""SmolLM2-Instruct's chat template (its system line shortened)."""


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    directory = tmp_path_factory.mktemp("llama")
    tiny(directory)
    words = [*WORDS, "[UNK]", "system", "user", "assistant", "You", "are", "hi", "there"]
    tokenizer = Tokenizer(models.WordLevel({w: i for i, w in enumerate(words)}, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.add_special_tokens([AddedToken(t, special=True) for t in SPECIAL])
    tokenizer.save(str(directory / "tokenizer.json"))
    config = {"chat_template": CHAT_TEMPLATE, "eos_token": "<|im_end|>", "tokenizer_class": "PreTrainedTokenizerFast"}
    (directory / "tokenizer_config.json").write_text(json.dumps(config))
    _set(directory / "config.json", eos_token_id=None)
    _set(directory / "generation_config.json", eos_token_id=None)
    return directory


def _set(path, **changes) -> None:
    path.write_text(json.dumps(json.loads(path.read_text()) | changes))


@pytest.fixture
def own(model, tmp_path):
    """A copy of the model directory, for a test to change."""
    return shutil.copytree(model, tmp_path / "model")


@pytest.fixture
def nothing_built(monkeypatch):
    monkeypatch.setattr(run_cli, "decoder_step", lambda *a, **k: pytest.fail("built a step before refusing"))
    monkeypatch.setattr(generation_cli, "Session", lambda *a, **k: pytest.fail("built a session before refusing"))


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
        (["--prompt", "hi", "--prompt-ids", "1"], "give one of --prompt, --prompt-ids and --chat, not"),
    ],
)
def test_a_bad_prompt_is_refused(model, capsys, nothing_built, args, message):
    assert main(["run", str(model), "--quiet", "--backend", "numpy", *args]) == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize(
    "args, message",
    [
        (["--prompt-ids", "1,2", "--generate", "1000000000"], "the prompt and --generate: 1000000002 positions, more "),
        (["--prompt-ids", "1", "--generate", "64"], "65 positions, more than llama's max_len 64"),
        (["--prompt-ids", "1", "--chunk", "0"], "--chunk is the prefill step's rows, at least 1, not 0"),
        (["--prompt-ids", "1", "--chunk", "-3"], "--chunk is the prefill step's rows, at least 1, not -3"),
        (
            ["--prompt-ids", "1", "--logits", "no/such/folder/x.npy"],
            "--logits no/such/folder/x.npy: there is no folder",
        ),
        (["--prompt-ids", "1", "--logits", "."], "--logits . is a folder"),
        (["--logits", "x.npy"], "--logits is a flag of generation: give a prompt"),
        (["--temperature", "0.5"], "--temperature is a flag of generation"),
        (["--ignore-eos"], "--ignore-eos is a flag of generation"),
        (["--debug-poison"], "--debug-poison is a flag of generation"),
        (["--prompt-ids", "1," + "1" + "0" * 20], "--prompt-ids: token ids must be in [0, 160), not 1000000000000"),
        (["--prompt-ids", "-1"], "token ids must be in [0, 160), not -1"),
        (["--prompt", ""], "--prompt '' makes no token"),
        (["--prompt", "   "], "--prompt '   ' makes no token"),
        (["--prompt-ids", "1", "--max-len", "65"], "--max-len 65: 65 positions, more than llama's max_len 64"),
        (["--prompt-ids", "1,2", "--generate", "8", "--max-len", "9"], "--max-len 9 is fewer positions than the"),
        (["--prompt-ids", "1", "--max-len", "0"], "--max-len is the positions the caches hold, at least 1, not 0"),
        (["--prompt-ids", "1", "--top-p", "0"], "--top-p must be in (0, 1]"),
        (["--prompt-ids", "1", "--generate", "-1"], "--generate takes a count of tokens, not -1"),
        (["--seed", "-1"], "--seed must be at least 0, not -1"),
        (["--max-len", "1"], "--max-len 1 is fewer positions than the attention's splits (attn_splits 8)"),
    ],
)
def test_flags_are_checked_before_a_step_is_built(model, capsys, nothing_built, tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    assert main(["run", str(model), "--quiet", "--backend", "numpy", *args]) == 2
    err = capsys.readouterr().err
    assert message in err and "internal error" not in err, err
    assert list(tmp_path.iterdir()) == []


def test_a_text_prompt_needs_a_tokenizer(capsys):
    assert main(["run", "tiny", "--prompt", "hello", "--quiet"]) == 2
    assert "--prompt needs a tokenizer.json in the model directory" in capsys.readouterr().err


def test_a_shipped_config_generates_with_random_weights(capsys):
    report = _json(capsys, "tiny", "--prompt-ids", "1,2,3", "--generate", "2", "--chunk", "2")
    assert report["weights"] == "random" and len(report["tokens"]) == 2


# --- Stopping at the end token ---------------------------------------------------------------------------------


def _greedy(capsys, directory, n: int, *args: str) -> dict:
    return _json(capsys, str(directory), "--prompt-ids", "4,8,15", "--generate", str(n), *args)


@pytest.mark.parametrize("where", ["config.json", "generation_config.json"])
@pytest.mark.parametrize("as_list", [False, True])
def test_generation_stops_at_the_end_token_of_either_file(own, capsys, where, as_list):
    """The end token is one this model is known to produce: the fourth of its greedy tokens."""
    free = _greedy(capsys, own, 8)["tokens"]
    eos = free[3]
    _set(own / where, eos_token_id=[999, eos] if as_list else eos)
    report = _greedy(capsys, own, 8)
    first = free.index(eos)
    assert report["tokens"] == free[: first + 1] and report["stopped"] == "eos"
    ignored = _greedy(capsys, own, 8, "--ignore-eos")
    assert ignored["tokens"] == free and ignored["stopped"] == "length"


@pytest.mark.parametrize("value", ["2", True, [1, "x"], {"id": 2}, -1])
def test_an_end_token_that_is_not_an_id_is_refused_naming_the_file(own, capsys, nothing_built, value):
    _set(own / "generation_config.json", eos_token_id=value)
    assert main(["run", str(own), "--quiet", "--prompt-ids", "1", "--backend", "numpy"]) == 2
    assert f"{own}/generation_config.json: eos_token_id is {value!r}, not a token id" in capsys.readouterr().err


# --- Sampling ----------------------------------------------------------------------------------------------------


def test_a_seed_reproduces_its_sampled_tokens_chosen_by_the_stated_procedure(model, capsys, tmp_path):
    saved = tmp_path / "logits.npy"
    flags = ["--temperature", "1.5", "--top-k", "20", "--top-p", "0.9", "--seed", "11", "--logits", str(saved)]
    first = _greedy(capsys, model, 12, *flags)
    again = _greedy(capsys, model, 12, *flags)
    assert first["tokens"] == again["tokens"]
    s = Sampling(1.5, 20, 0.9, 11)
    logits = np.load(saved)
    assert first["tokens"] == [choose(row, s, uniform(11, i)) for i, row in enumerate(logits)]
    greedy = _greedy(capsys, model, 12)["tokens"]
    others = {tuple(_greedy(capsys, model, 12, *flags[:-2], "--seed", str(seed))["tokens"]) for seed in (1, 2, 3)}
    assert len(others | {tuple(greedy)}) > 1  # sampling at 1.5 does not always pick the arg-max


def test_a_configs_own_sampling_is_the_default_and_the_report_names_it(model, capsys):
    flags = _greedy(capsys, model, 8, "--temperature", "1.5", "--top-k", "20", "--top-p", "0.9", "--seed", "4")
    own = _greedy(
        capsys, model, 8, "--set", "temperature=1.5", "--set", "top_k=20", "--set", "top_p=0.9", "--seed", "4"
    )
    assert own["tokens"] == flags["tokens"]
    assert own["sampling"] == {
        "temperature": 1.5,
        "top_k": 20,
        "top_p": 0.9,
        "seed": 4,
        "min_p": 0.0,
        "repetition_penalty": 1.0,
    }
    sources = own["generation"]["sources"]
    assert [sources[k] for k in ("temperature", "top_k", "top_p", "do_sample")] == ["--set"] * 4
    assert flags["generation"]["sources"]["temperature"] == "flag" and sources["min_p"] == "default"
    assert _greedy(capsys, model, 2)["sampling"] == "greedy"


def test_top_k_1_is_greedy(model, capsys):
    assert (
        _greedy(capsys, model, 6, "--temperature", "3", "--top-k", "1", "--seed", "5")["tokens"]
        == (_greedy(capsys, model, 6)["tokens"])
    )


# --- Chat, streaming, numerics, the caches' length ---------------------------------------------------------------


def test_a_chat_message_goes_through_the_chat_template_as_transformers_renders_it(model, capsys):
    tok = transformers.PreTrainedTokenizerFast(
        tokenizer_file=str(model / "tokenizer.json"), chat_template=CHAT_TEMPLATE, eos_token="<|im_end|>"
    )
    messages = [{"role": "user", "content": "the cat sat"}]
    want = tok.apply_chat_template(messages, add_generation_prompt=True, tokenize=True, return_dict=False)
    report = _json(capsys, str(model), "--chat", "the cat sat", "--generate", "2")
    assert report["prompt"] == list(want)


def test_a_chat_without_a_template_is_refused(own, capsys, nothing_built):
    (own / "tokenizer_config.json").write_text("{}")
    assert main(["run", str(own), "--quiet", "--chat", "hi"]) == 2
    assert f"{own}/tokenizer_config.json: no chat_template" in capsys.readouterr().err


def test_text_is_streamed_before_the_report(model, capsys):
    assert main(["run", str(model), "--quiet", "--backend", "numpy", "--prompt", "the cat", "--generate", "4"]) == 0
    out = capsys.readouterr().out
    report = _json(capsys, str(model), "--prompt", "the cat", "--generate", "4")
    first, table = out.split("\n", 1)
    assert first == report["text"] and table.startswith("config")


def test_a_model_directory_runs_in_its_checkpoints_own_numerics(tmp_path, capsys):
    """f32 weights run f32, bf16 weights bf16 (as they are: nothing is said), int8 on request; --json says which."""
    for dtype, numerics in ((torch.float32, "f32"), (torch.bfloat16, "bf16")):
        directory = tmp_path / str(dtype)
        tiny(directory, dtype=dtype)
        assert load(str(directory)).numerics == numerics
        assert _json(capsys, str(directory), "--prompt-ids", "1,2", "--generate", "1")["numerics"] == numerics
        assert _json(capsys, str(directory))["numerics"] == numerics
        asked = _json(capsys, str(directory), "--set", "numerics=int8", "--prompt-ids", "1", "--generate", "1")
        assert asked["numerics"] == "int8"


def test_an_f32_checkpoint_run_in_bf16_says_it_is_rounded(model, capsys):
    assert main(["run", str(model), "--set", "numerics=bf16", "--json", "--backend", "numpy"]) == 0
    out = capsys.readouterr()
    assert json.loads(out.out)["numerics"] == "bf16" and json.loads(out.out)["max_abs_err"] == 0.0
    assert f"note: {model}: its F32 weight matrices are rounded to bf16 (to nearest, ties to even)" in out.err


def test_the_caches_hold_the_run_not_the_models_longest_context(capsys, monkeypatch):
    """A 3-token prompt to Llama-3.2-1B's config (131072 positions): caches of 64 positions, 3 + 16 rounded up."""
    made = []

    class Refused(Exception):
        pass

    def session(c, *args, **kwargs):
        made.append(c)
        raise Refused

    monkeypatch.setattr(generation_cli, "Session", session)
    with pytest.raises(Refused):
        main(
            [
                "--debug",
                "run",
                "examples/configs/llama-3.2-1b.json",
                "--quiet",
                "--prompt-ids",
                "1,2,3",
                "--backend",
                "numpy",
            ]
        )
    assert made[0].max_len == 64
    with pytest.raises(Refused):
        main(
            [
                "--debug",
                "run",
                "examples/configs/llama-3.2-1b.json",
                "--prompt-ids",
                "1,2,3",
                "--generate",
                "100",
                "--quiet",
            ]
        )
    assert made[1].max_len == 128
    with pytest.raises(Refused):
        main(
            [
                "--debug",
                "run",
                "examples/configs/llama-3.2-1b.json",
                "--prompt-ids",
                "1",
                "--max-len",
                "1000",
                "--quiet",
            ]
        )
    assert made[2].max_len == 1000


def test_a_step_file_runs_as_a_step(tmp_path, capsys):
    step = tmp_path / "step.mlir"
    assert main(["build", "tiny", "-o", str(step)]) == 0
    report = _json(capsys, str(step))
    assert report["step"] == str(step) and report["max_abs_err"] == 0.0
    assert main(["run", str(step), "--prompt-ids", "1", "--quiet"]) == 2
    assert "is a step: it runs as it is, with no prompt" in capsys.readouterr().err


def test_a_chat_stops_at_the_instruct_models_end_token(own, capsys):
    """An instruct model's end token (here one this tiny model is known to answer the chat with, its third)."""
    free = _json(capsys, str(own), "--chat", "the cat sat", "--generate", "8")["tokens"]
    _set(own / "generation_config.json", eos_token_id=[free[2]])
    report = _json(capsys, str(own), "--chat", "the cat sat", "--generate", "8")
    assert report["tokens"] == free[: free.index(free[2]) + 1] and report["stopped"] == "eos"


def test_standard_mlir_is_pointed_to_the_command_that_runs_it(tmp_path, capsys):
    step = tmp_path / "f.mlir"
    step.write_text("func.func @f() {\n  func.return\n}\n")
    assert main(["run", str(step), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert f"{step}:1:1" in err and "lanearena-run runs func and memref MLIR" in err


def test_a_step_the_kernels_refuse_names_the_config_it_came_from(capsys):
    shape = ["--set", "heads=65536", "--set", "kv_heads=1", "--set", "head_dim=2", "--set", "numerics=f32"]
    unfused = ["--set", "lane_fuse=false"]  # the attention a launch of its own
    assert main(["run", "tiny", "--quiet", "--backend", "numpy", "--set", "layers=1", *shape, *unfused]) == 2
    err = capsys.readouterr().err
    assert "tiny: the config's step cannot run: lane.attention: " in err and "past CUDA's" in err


# --- Speed and what is read back ---------------------------------------------------------------------------------


def test_the_speed_fields_are_consistent_and_the_numpy_runtime_has_no_bound(model, capsys):
    """One gap between two tokens: tokens_per_s is 1000 / decode_ms (up to their rounding); the first token and the
    gap fit in the generation's time; no bandwidth on the numpy runtime, so no bound, and the report says why."""
    report = _greedy(capsys, model, 2)
    assert len(report["tokens"]) == 2 and report["ttft_ms"] > 0 and report["decode_ms"] > 0
    assert report["tokens_per_s"] == pytest.approx(1000 / report["decode_ms"], rel=1e-3)
    # generate_s is rounded to 0.1 ms (4 decimals of a second), the two times to 0.0001 ms: the sum may pass the
    # rounded total by up to half of its last place.
    assert report["ttft_ms"] + report["decode_ms"] <= report["generate_s"] * 1e3 + 0.05 + 1e-3
    assert report["bound_ms"] is None and report["bound_share"] is None
    assert report["bandwidth"] == "none (the numpy runtime)"
    one = _greedy(capsys, model, 1)
    assert one["ttft_ms"] > 0 and one["decode_ms"] is None and one["tokens_per_s"] is None


def test_generation_reads_back_four_bytes_a_token_sampled_or_not_and_logits_only_where_asked(
    model, capsys, monkeypatch, tmp_path
):
    made: list[CountingDevice] = []
    monkeypatch.setattr(session_module, "new_device", lambda backend: made.append(CountingDevice()) or made[-1])
    vocab = load(str(model)).vocab
    _greedy(capsys, model, 4)
    assert made[-1].reads == [4] * 4  # the prompt's last token, then each decode step's
    _greedy(capsys, model, 4, "--logits", str(tmp_path / "logits.npy"))
    assert made[-1].reads == [4, 4 * vocab] * 4
    _greedy(capsys, model, 4, "--temperature", "0.8")
    assert made[-1].reads == [4] * 4  # the step draws the token on the device
