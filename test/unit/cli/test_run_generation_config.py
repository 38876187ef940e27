"""`lanearena run DIR` generates as transformers' `generate` does by the directory's generation_config.json: on a
tiny checkpoint of each of the eight families, with the sampling defaults of a published model's file (Qwen3's,
Llama-3.2's, Qwen2.5's with its repetition penalty, one with a min-p), it samples by them (each token the one the
documented procedure chooses from the logits read back), the same tokens on every run of a seed, and where each
value came from said in --json; greedy flags give `generate(do_sample=False)`'s tokens (the directory's repetition
penalty applied, as transformers applies it greedy too). A directory's values out of type or range are refused,
naming the file, line and key."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
import torch
import transformers
from tokenizers import Tokenizer

from lanearena.cli import main
from lanearena.decoding import Sampling, next_token, uniform
from lanearena.lowering.serving import session as session_module

from ..support.bpe import byte_level_bpe
from ..support.checkpoints import FAMILY_CHANGES, tiny
from ..support.devices import CountingDevice

QWEN3 = {"do_sample": True, "temperature": 0.6, "top_k": 20, "top_p": 0.95}
LLAMA_3_2 = {"do_sample": True, "temperature": 0.6, "top_p": 0.9}
QWEN2_5 = {"do_sample": True, "repetition_penalty": 1.05, "temperature": 0.7, "top_p": 0.8, "top_k": 20}
MIN_P = {"do_sample": True, "temperature": 0.8, "min_p": 0.05, "top_k": 0}
"""Published generation_config.json sampling defaults (Qwen3, Llama-3.2-Instruct, Qwen2.5-Instruct), and a min-p."""

FILES = {
    "llama": LLAMA_3_2,
    "mistral": LLAMA_3_2,
    "qwen2": QWEN2_5,
    "qwen3": QWEN3,
    "qwen3_moe": QWEN3,
    "mixtral": MIN_P,
    "qwen2_moe": QWEN2_5,
    "qwen3_next": QWEN3,
}

PROMPT = [3, 17, 42, 5, 99, 7]
NEW = 8
"""The file's max_new_tokens."""


@pytest.fixture(scope="module", params=list(FAMILY_CHANGES))
def family(request, tmp_path_factory):
    """A tiny checkpoint of the family with a generation_config.json of published defaults (and the end token
    save_pretrained wrote, where it wrote one)."""
    directory = tmp_path_factory.mktemp(request.param)
    tiny(directory, request.param, **FAMILY_CHANGES[request.param])
    path = directory / "generation_config.json"
    written = json.loads(path.read_text())
    eos = {"eos_token_id": written["eos_token_id"]} if "eos_token_id" in written else {}
    path.write_text(json.dumps({**FILES[request.param], "max_new_tokens": NEW, **eos}, indent=2))
    return request.param, directory


def _run(capsys, directory, *args: str) -> dict:
    assert (
        main(["run", str(directory), "--prompt-ids", ",".join(map(str, PROMPT)), "--json", "--backend", "numpy", *args])
        == 0
    )
    return json.loads(capsys.readouterr().out)


def test_it_samples_by_the_directorys_defaults_the_same_tokens_every_run_of_a_seed(family, capsys, tmp_path):
    model_type, directory = family
    saved = tmp_path / "logits.npy"
    report = _run(capsys, directory, "--seed", "7", "--logits", str(saved))
    file = FILES[model_type]
    got = report["generation"]
    assert {k: got[k] for k in file} == file
    assert all(got["sources"][k] == "generation_config.json" for k in file)
    assert got["top_k"] == file.get("top_k", 50) and got["sources"]["max_new_tokens"] == "generation_config.json"
    tokens = report["tokens"]
    assert len(tokens) == NEW or report["stopped"] == "eos"
    s = Sampling(file["temperature"], got["top_k"], got["top_p"], 7, got["min_p"], got["repetition_penalty"])
    chosen = [next_token(row, PROMPT + tokens[:i], s, uniform(7, i)) for i, row in enumerate(np.load(saved))]
    assert tokens == chosen
    assert _run(capsys, directory, "--seed", "7")["tokens"] == tokens
    others = {tuple(_run(capsys, directory, "--seed", str(seed))["tokens"]) for seed in (1, 2, 3)}
    assert len(others | {tuple(tokens)}) > 1


@pytest.mark.parametrize("penalty", [None, 1.5])
def test_greedy_flags_give_transformers_greedy_tokens(family, capsys, penalty):
    """Greedy by --temperature 0, with the directory's repetition penalty or --repetition-penalty 1.5 (which
    changes the tokens of these tiny models, given to repeating themselves)."""
    _, directory = family
    flags = ["--repetition-penalty", str(penalty)] if penalty is not None else []
    report = _run(capsys, directory, "--temperature", "0", *flags)
    assert report["sampling"] == "greedy" and report["generation"]["sources"]["do_sample"] == "flag"
    model = transformers.AutoModelForCausalLM.from_pretrained(directory, dtype=torch.float32).eval()
    given = {"repetition_penalty": penalty} if penalty is not None else {}
    with torch.no_grad():
        want = model.generate(torch.tensor([PROMPT]), do_sample=False, **given)[0, len(PROMPT) :].tolist()
    assert report["tokens"] == want


@pytest.fixture
def llama(tmp_path):
    tiny(tmp_path / "llama")
    return tmp_path / "llama"


def _write(directory, values: dict) -> None:
    (directory / "generation_config.json").write_text(json.dumps(values, indent=2))


def test_without_a_generation_config_config_jsons_legacy_keys_count(llama, capsys):
    """As transformers' `from_model_config`; and where a generation_config.json is, config.json's count for
    nothing."""
    (llama / "generation_config.json").unlink()
    path = llama / "config.json"
    path.write_text(json.dumps(json.loads(path.read_text()) | {"do_sample": True, "top_k": 7, "max_new_tokens": 3}))
    report = _run(capsys, llama)
    assert report["generation"]["top_k"] == 7 and report["generation"]["sources"]["top_k"] == "config.json"
    assert report["generation"]["do_sample"] and len(report["tokens"]) == 3
    _write(llama, {"temperature": 0.5})
    report = _run(capsys, llama)
    assert report["sampling"] == "greedy" and report["generation"]["sources"]["top_k"] == "default"
    assert len(report["tokens"]) == 16


def test_flags_win_over_the_file(llama, capsys):
    _write(llama, QWEN3 | {"max_new_tokens": 5})
    report = _run(capsys, llama, "--top-k", "3", "--generate", "2", "--min-p", "0.1")
    got = report["generation"]
    assert (got["top_k"], got["min_p"], len(report["tokens"])) == (3, 0.1, 2)
    assert [got["sources"][k] for k in ("top_k", "min_p", "max_new_tokens", "top_p")] == [
        "flag",
        "flag",
        "flag",
        "generation_config.json",
    ]


def test_a_max_new_tokens_past_the_positions_is_cut_to_them(llama, capsys):
    _write(llama, {"max_new_tokens": 10**9})
    report = _run(capsys, llama, "--ignore-eos")
    assert len(report["tokens"]) == 64 - len(PROMPT) and report["generation"]["max_new_tokens"] == 64 - len(PROMPT)


@pytest.mark.parametrize(
    "values, key, message",
    [
        ({"temperature": "hot"}, "temperature", "temperature is a finite number from 0, not 'hot'"),
        ({"top_k": -1}, "top_k", "top_k is a count of tokens from 0 (0: every token), not -1"),
        ({"top_p": 0}, "top_p", "top_p is a number in (0, 1], not 0"),
        ({"min_p": 2}, "min_p", "min_p is a number in [0, 1], not 2"),
        ({"repetition_penalty": 0}, "repetition_penalty", "repetition_penalty is a finite number above 0"),
        ({"max_new_tokens": 1.5}, "max_new_tokens", "max_new_tokens is a count of tokens from 0, not 1.5"),
        ({"do_sample": "yes"}, "do_sample", "do_sample is true or false, not 'yes'"),
        ({"stop_strings": [""]}, "stop_strings", "stop_strings is a string or a list of strings, none empty"),
        ({"do_sample": True, "temperature": 0}, "temperature", "temperature 0 with do_sample true"),
    ],
)
def test_a_value_out_of_type_or_range_is_refused_naming_file_line_and_key(llama, capsys, values, key, message):
    _write(llama, {"bos_token_id": 1, **values})
    path = llama / "generation_config.json"
    line = next(i for i, text in enumerate(path.read_text().splitlines(), 1) if f'"{key}"' in text)
    assert main(["run", str(llama), "--prompt-ids", "1,2", "--quiet", "--backend", "numpy"]) == 2
    assert f"{path}:{line}: {message}" in capsys.readouterr().err


def test_without_a_model_directory_the_defaults_are_neutral(capsys):
    report = _run(capsys, "tiny", "--temperature", "1.2")
    got = report["generation"]
    assert (got["top_k"], got["top_p"], got["min_p"]) == (0, 1.0, 0.0) and got["sources"]["top_k"] == "default"


@pytest.fixture(scope="module")
def talking(tmp_path_factory):
    """A tiny Llama of 300 tokens with a byte-level BPE tokenizer of 300 trained here (as Qwen's and Llama-3's are
    byte-level): its greedy text is bytes at random, ASCII among them."""
    directory = tmp_path_factory.mktemp("bpe")
    tiny(directory, vocab_size=300)
    tok = byte_level_bpe()
    assert tok.get_vocab_size() == 300
    tok.save(str(directory / "tokenizer.json"))
    return directory


def test_stop_strings_stop_where_transformers_generate_stops(talking, capsys):
    """Each stop string two ASCII characters of the free greedy text (ASCII bytes decode as themselves wherever
    the bytes around them are not UTF-8), the first five such: some in the prompt alone (which stop nothing),
    some generated."""
    free = _run(capsys, talking, "--ignore-eos", "--generate", "16")
    text = Tokenizer.from_file(str(talking / "tokenizer.json")).decode(PROMPT + free["tokens"])
    strings = [text[i : i + 2] for i in range(len(text) - 1) if all(" " <= c <= "~" for c in text[i : i + 2])]
    assert len(strings) >= 3
    model = transformers.AutoModelForCausalLM.from_pretrained(talking, dtype=torch.float32).eval()
    fast = transformers.PreTrainedTokenizerFast(tokenizer_file=str(talking / "tokenizer.json"))
    early = 0
    for stop in strings[:5]:
        report = _run(capsys, talking, "--ignore-eos", "--generate", "16", "--stop", stop)
        with torch.no_grad():
            out = model.generate(
                torch.tensor([PROMPT]), do_sample=False, max_new_tokens=16, stop_strings=[stop], tokenizer=fast
            )
        assert report["tokens"] == out[0, len(PROMPT) :].tolist(), stop
        if len(report["tokens"]) < 16:
            assert report["stopped"] == "stop"
            early += 1
    assert early >= 2


def test_a_choice_on_the_host_reads_back_the_logits_and_one_on_the_device_the_token(llama, capsys, monkeypatch):
    made: list[CountingDevice] = []
    monkeypatch.setattr(session_module, "new_device", lambda backend: made.append(CountingDevice()) or made[-1])
    flags = ["--generate", "3", "--ignore-eos", "--seed", "1"]
    _run(capsys, llama, "--temperature", "0.8", *flags)
    assert made[-1].reads == [4] * 3
    for host in (["--temperature", "0.8", "--min-p", "0.1"], ["--repetition-penalty", "1.2"]):
        _run(capsys, llama, *host, *flags)
        assert made[-1].reads == [4, 4 * 160] * 3, host


@pytest.mark.parametrize("flag", [["--min-p", "0.1"], ["--repetition-penalty", "1.1"], ["--stop", "x"]])
def test_a_generation_flag_without_a_prompt_is_refused(capsys, flag):
    assert main(["run", "tiny", "--quiet", *flag]) == 2
    assert f"{flag[0]} is a flag of generation: give a prompt" in capsys.readouterr().err


@pytest.mark.parametrize(
    "flag, message",
    [
        (["--min-p", "1.5"], "--min-p must be in [0, 1]"),
        (["--repetition-penalty", "0"], "--repetition-penalty must be a finite number above 0"),
        (["--stop", ""], "--stop takes a text to stop at, not ''"),
        (["--top-k", "-2"], "--top-k must be at least 0"),
    ],
)
def test_a_generation_flag_out_of_range_is_refused(capsys, flag, message):
    assert main(["run", "tiny", "--quiet", "--prompt-ids", "1", *flag]) == 2
    assert message in capsys.readouterr().err


def test_stop_without_a_tokenizer_is_refused(llama, capsys):
    assert main(["run", str(llama), "--prompt-ids", "1", "--stop", "x", "--quiet"]) == 2
    assert "--stop matches text: it needs a tokenizer.json" in capsys.readouterr().err
    shutil.rmtree(llama)
