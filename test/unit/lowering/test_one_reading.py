"""The IR is read into the plain model once a pass run: `lanearena run` reads the step twice (the placement, then
the lowering's verification, whose reading the lowering and both runs use), `lanearena compile` likewise, and no
step is built again from plain data on the way (the unshared reference is another layout of the same launches).
Generation builds each step it runs once: a prompt shorter than the prefill chunk builds, places and lowers the
decode step alone, once, however many tokens it generates (the checkpoint checked before, against the step's weights
as plain data, `step_weights`, with no step built); and a model directory's config.json is read once a run."""

from __future__ import annotations

import builtins
import io
import json
import os
import sys
from collections import Counter

import pytest

from lanearena import cli
from lanearena.frontend import decoder
from lanearena.passes import convert

from ..support import from_model
from ..support.checkpoints import tiny


@pytest.fixture
def readings(monkeypatch) -> Counter:
    """How often a `lane.step` is read into a `model.Step` (`convert.step_of`), a `model.Step` built into IR
    (`from_model.module_of`) and a decoder step built (`decoder.decoder_step`), wherever a module imported one."""
    cli.parser()  # imports every subcommand's modules first, so that each holds the function it imports
    seen: Counter = Counter()
    counted_fns = (
        ("step_of", convert.step_of),
        ("module_of", from_model.module_of),
        ("decoder_step", decoder.decoder_step),
    )
    for name, fn in counted_fns:

        def counted(*args, _name=name, _fn=fn, **kwargs):
            seen[_name] += 1
            if _name == "decoder_step":  # and of how many layers
                seen[f"layers={args[0].layers}"] += 1
            return _fn(*args, **kwargs)

        for module in list(sys.modules.values()):
            if getattr(module, name, None) is fn:
                monkeypatch.setattr(module, name, counted)
    return seen


def test_lanearena_run_reads_the_step_once_to_place_and_once_to_lower(readings, capsys):
    assert cli.main(["run", "--json", "--backend", "numpy", "--quiet"]) == 0
    assert '"max_abs_err": 0.0' in capsys.readouterr().out
    assert readings == {"step_of": 2, "decoder_step": 1, "layers=2": 1}


def test_lanearena_compile_reads_the_step_once_to_place_and_once_to_lower(readings, tmp_path):
    step = tmp_path / "tiny.mlir"
    assert cli.main(["build", "-o", str(step)]) == 0
    readings.clear()
    assert cli.main(["compile", str(step), "-o", str(tmp_path / "tiny.py")]) == 0
    assert "LOWERED = Lowered(" in (tmp_path / "tiny.py").read_text()
    assert readings == {"step_of": 2}


@pytest.mark.parametrize("generate", [2, 8])
def test_generation_builds_its_one_step_once(readings, tmp_path, capsys, generate):
    tiny(tmp_path)
    args = ["run", str(tmp_path), "--prompt-ids", "1,2,3", "--generate", str(generate), "--json", "--quiet"]
    assert cli.main([*args, "--backend", "numpy"]) == 0
    assert len(json.loads(capsys.readouterr().out)["tokens"]) == generate
    # The step built once, placed then verified, never built again (issue 31: at most two readings and one build).
    assert readings == {"step_of": 2, "decoder_step": 1, "layers=2": 1}


def test_a_prompt_of_a_chunk_builds_the_prefill_step_once_more(readings, tmp_path, capsys):
    tiny(tmp_path)
    args = ["run", str(tmp_path), "--prompt-ids", "1,2,3,4,5", "--chunk", "4", "--generate", "8", "--json"]
    assert cli.main([*args, "--quiet", "--backend", "numpy"]) == 0
    assert json.loads(capsys.readouterr().out)["prefill_arena_bytes"] > 0
    assert readings == {"step_of": 4, "decoder_step": 2, "layers=2": 2}


@pytest.fixture
def config_json_opens(monkeypatch) -> Counter:
    """How often each file named config.json is opened, by any of the ways Python opens a file (`os.open`, as the
    loader's `model_files.open_regular` does, and `open`, as `Path.read_bytes` and libraries do)."""
    seen: Counter = Counter()

    def counting(real):
        def opened(file, *args, **kwargs):
            if isinstance(file, (str, os.PathLike)) and os.path.basename(file) == "config.json":
                seen[os.path.realpath(file)] += 1
            return real(file, *args, **kwargs)

        return opened

    monkeypatch.setattr(os, "open", counting(os.open))
    monkeypatch.setattr(io, "open", counting(io.open))
    monkeypatch.setattr(builtins, "open", counting(builtins.open))
    return seen


def test_a_model_directory_run_reads_its_config_json_once(config_json_opens, tmp_path, capsys):
    tiny(tmp_path, vocab_size=160)
    (tmp_path / "generation_config.json").unlink()
    values = json.loads((tmp_path / "config.json").read_text())
    (tmp_path / "config.json").write_text(json.dumps(values | {"eos_token_id": list(range(160))}))
    config_json_opens.clear()
    args = ["run", str(tmp_path), "--prompt-ids", "1,2,3", "--generate", "8", "--json", "--quiet"]
    assert cli.main([*args, "--backend", "numpy"]) == 0
    report = json.loads(capsys.readouterr().out)
    # the config (f32: the checkpoint's), the checkpoint's names (its model_type's) and the end-of-sequence ids
    # (every id is one: the first token generated stops the run) all made from that one reading
    assert (report["numerics"], report["weights"], report["stopped"], len(report["tokens"])) == (
        "f32",
        "checkpoint",
        "eos",
        1,
    )
    assert config_json_opens == {os.path.realpath(tmp_path / "config.json"): 1}
