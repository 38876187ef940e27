"""`lanearena run CONFIG --prompt-ids A --prompt-ids B ... --json`: the sequences generated together, a row a
sequence, each equal to its prompt run alone (dense and mixture configs, int8 and f32); bad input (an empty prompt,
more prompts than --set batch, caches of a batch past the memory here) exits 2 with a located message before any
step is built."""

from __future__ import annotations

import json

import pytest

import lanearena.cli.run as run_cli
from lanearena.cli import main

from .test_run_generate import model  # noqa: F401 (the fixture: a tiny Llama with a tokenizer)


def _run(capsys, *args: str) -> dict:
    assert main(["run", *args, "--json", "--quiet", "--backend", "numpy"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize(("config", "numerics"), [("tiny", "int8"), ("tiny-moe", "int8"), ("tiny", "f32")])
def test_several_prompts_generate_what_each_generates_alone(capsys, config, numerics):
    prompts = ["1,2,3", "42", "7,7,7,7,7,7,7,7,7"]
    flags = [a for p in prompts for a in ("--prompt-ids", p)]
    report = _run(capsys, config, *flags, "--generate", "6", "--set", f"numerics={numerics}")
    alone = [
        _run(capsys, config, "--prompt-ids", p, "--generate", "6", "--set", f"numerics={numerics}") for p in prompts
    ]
    assert report["batch"] == 3 and len(report["sequences"]) == 3
    for got, one, p in zip(report["sequences"], alone, prompts, strict=True):
        assert got["prompt"] == [int(t) for t in p.split(",")]
        assert got["tokens"] == one["tokens"] and got["stopped"] == one["stopped"] == "length"
    assert report["arena_bytes"] > 0 and report["arena_bytes"] != report["decode_arena_bytes"]


def test_a_batch_may_be_larger_than_the_prompts(capsys):
    report = _run(capsys, "tiny", "--prompt-ids", "1,2", "--prompt-ids", "3", "--set", "batch=4", "--generate", "3")
    assert report["batch"] == 4 and [len(s["tokens"]) for s in report["sequences"]] == [3, 3]


def test_several_prompts_print_a_line_a_sequence(capsys):
    assert main(["run", "tiny", "--quiet", "--prompt-ids", "1,2", "--prompt-ids", "3", "--generate", "2"]) == 0
    out = capsys.readouterr().out
    assert "sequence 1" in out and "sequence 2" in out and "(length)" in out


@pytest.fixture
def nothing_built(monkeypatch):
    monkeypatch.setattr(run_cli, "generate_batch", lambda *a, **k: pytest.fail("a step was built"))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--prompt-ids", "1,2", "--prompt-ids", ","], "--prompt-ids ',' gives no token"),
        (["--prompt-ids", "1", "--prompt-ids", "2", "--prompt-ids", "3", "--set", "batch=2"], "3 prompts, more than"),
        (["--prompt-ids", "1", "--set", "batch=0"], "batch"),
        (["--prompt-ids", "1", "--prompt-ids", "2", "--logits", "x.npy"], "--logits saves the logits of one"),
        (["--prompt-ids", "1", "--prompt-ids", "2", "--set", "batch=5000"], "batch"),
    ],
)
def test_bad_input_exits_2_before_a_step_is_built(capsys, nothing_built, args, message):
    assert main(["run", "tiny", "--quiet", "--backend", "numpy", *args]) == 2
    assert message in capsys.readouterr().err


def test_a_batch_whose_caches_do_not_fit_the_memory_here_is_refused(capsys, nothing_built):
    flags = ["--prompt-ids", "1", "--prompt-ids", "2", "--set", "batch=4096", "--max-len", "1024"]
    assert main(["run", "qwen3-0.6b", "--quiet", "--backend", "numpy", *flags]) == 2
    err = capsys.readouterr().err
    assert "qwen3-0.6b needs about" in err and "GB" in err


def test_a_batch_whose_caches_do_not_fit_the_gpu_is_refused(capsys, nothing_built, monkeypatch):
    """On a GPU, the weights and caches against its memory (here a GPU of 8 GB, faked: none is needed to refuse)."""
    monkeypatch.setattr(run_cli, "_backend", lambda name: "cuda")
    monkeypatch.setattr(run_cli.cuda, "device_memory", lambda: 8 * 10**9)
    flags = ["--prompt-ids", "1", "--prompt-ids", "2", "--set", "batch=64", "--max-len", "4096"]
    assert main(["run", "qwen3-0.6b", "--quiet", *flags]) == 2
    assert "on the GPU" in capsys.readouterr().err


def test_text_prompts_with_a_stop_string_stop_as_each_alone(model, capsys):  # noqa: F811 (the fixture)
    """Several --prompt through the directory's tokenizer, with --stop: each sequence stops where its prompt run
    alone stops, and its text is its tokens'."""
    base = ["--generate", "6", "--ignore-eos"]
    first = _run(capsys, str(model), "--prompt", "the cat", *base)
    word = first["text"].split()[-1]  # a word the first sequence writes (its other tokens decode to no text)
    prompts = ["the cat", "a dog ran", "sat"]
    report = _run(capsys, str(model), *[a for p in prompts for a in ("--prompt", p)], *base, "--stop", word)
    for got, p in zip(report["sequences"], prompts, strict=True):
        alone = _run(capsys, str(model), "--prompt", p, *base, "--stop", word)
        assert (got["tokens"], got["stopped"], got["text"]) == (alone["tokens"], alone["stopped"], alone["text"])
    assert report["sequences"][0]["stopped"] == "stop"
