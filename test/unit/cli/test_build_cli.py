"""`lanearena build`: writes a config's step, whole or not at all, and fails on bad input with one line and exit 2."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

import lanearena.cli
from lanearena.frontend.configs import CONFIGS
from lanearena.frontend.decoder import decoder_step


@pytest.fixture(autouse=True)
def only_build(monkeypatch):
    """The command line with `build` alone, so that these tests see only what `build` does."""
    monkeypatch.setattr(lanearena.cli, "SUBCOMMANDS", ("build",))


def _build(capsys, *argv: str) -> tuple[int, str, str]:
    code = lanearena.cli.main(["build", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_writes_the_step_to_a_file(tmp_path, capsys):
    path = tmp_path / "step.mlir"
    code, out, err = _build(capsys, "tiny-moe", "-o", str(path))
    assert (code, out, err) == (0, "", "")
    assert path.read_text() == str(decoder_step(CONFIGS["tiny-moe"])) + "\n"
    assert [p.name for p in tmp_path.iterdir()] == ["step.mlir"]


def test_writes_tiny_to_stdout_by_default(capsys):
    code, out, _ = _build(capsys)
    assert code == 0 and out == str(decoder_step(CONFIGS["tiny"])) + "\n"


def test_settings_and_json_files(tmp_path, capsys):
    config = tmp_path / "mine.json"
    config.write_text(json.dumps({k: v for k, v in vars(CONFIGS["tiny"]).items() if k != "name"}))
    code, out, _ = _build(capsys, str(config), "--set", "rows=4", "--set", "numerics=f32")
    assert code == 0
    assert "lane.step @mine numerics(f32)" in out and '"ids" : !lane.tensor<4xi32>' in out


@pytest.mark.skipif(shutil.which("xdsl-opt") is None, reason="xdsl-opt is not installed")
def test_xdsl_opt_reads_what_it_writes(tmp_path, capsys):
    path = tmp_path / "step.mlir"
    assert _build(capsys, "tiny-prefill", "-o", str(path))[0] == 0
    done = subprocess.run(["xdsl-opt", str(path)], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == path.read_text().strip()


@pytest.mark.parametrize(
    "argv, message",
    [
        (["tiny3"], "unknown config 'tiny3'"),
        (["tiny", "--set", "split=3"], "--set split=3: split 3 does not cut hidden (128) into whole blocks of 32"),
        (["tiny", "--set", "hiden=128"], "unknown key 'hiden' (did you mean 'hidden'?)"),
        (["{dir}/missing.json"], "cannot read config {dir}/missing.json: No such file or directory"),
        (["{dir}/bad.json"], "{dir}/bad.json:2:13: malformed JSON"),
    ],
)
def test_bad_input_is_one_line_and_no_file(tmp_path, capsys, argv, message):
    (tmp_path / "bad.json").write_text('{\n  "layers": ,\n}')
    out_path = tmp_path / "step.mlir"
    out_path.write_text("left alone")
    argv = [a.format(dir=tmp_path) for a in argv]
    code, out, err = _build(capsys, *argv, "-o", str(out_path))
    assert code == 2 and out == ""
    assert err.startswith("lanearena build: error: ") and err.count("\n") == 1
    assert message.format(dir=tmp_path) in err
    assert out_path.read_text() == "left alone"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.json", "step.mlir"]


def test_an_unwritable_output_is_one_line(tmp_path, capsys):
    code, _, err = _build(capsys, "-o", str(tmp_path / "no" / "step.mlir"))
    assert code == 2 and err.startswith("lanearena build: error: ") and "cannot write" in err
    assert err.count("\n") == 1


def test_a_failed_write_leaves_nothing_behind(tmp_path, capsys):
    (tmp_path / "dir").mkdir()
    code, _, err = _build(capsys, "-o", str(tmp_path / "dir"))
    assert code == 2 and "Is a directory" in err
    assert [p.name for p in tmp_path.iterdir()] == ["dir"]


def test_the_written_file_has_the_usual_mode(tmp_path, capsys):
    path = tmp_path / "step.mlir"
    assert _build(capsys, "-o", str(path))[0] == 0
    mask = os.umask(0)
    os.umask(mask)
    assert path.stat().st_mode & 0o777 == 0o666 & ~mask
