"""The `lanearena` command as a newcomer meets it: `--help` says what it does and what every subcommand does,
`--version` is the installed distribution's, and `-` reads standard input wherever a file is read, with the same
result as the file and messages that name `<stdin>`."""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import io
import json
import re
import sys
from pathlib import Path

import pytest

import lanearena.cli

ROOT = Path(__file__).resolve().parents[3]
DECODE = ROOT / "examples" / "decode.mlir"


def _cli(capsys, *argv: str) -> tuple[int, str, str]:
    """`lanearena ARGV`: its exit code, stdout and stderr (argparse's exits included)."""
    try:
        code = lanearena.cli.main(list(argv))
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else 2
    out, err = capsys.readouterr()
    return code, out, err


def _stdin(monkeypatch, data: bytes) -> None:
    """Standard input holding `data`, as a pipe gives it (bytes under a text wrapper)."""
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))


def _description(help_text: str) -> str:
    """The paragraph between a help text's usage lines and its first list of arguments."""
    paragraphs = help_text.split("\n\n")
    assert paragraphs[0].startswith("usage:")
    return paragraphs[1] if not paragraphs[1].endswith(":") and ":\n" not in paragraphs[1] else ""


def test_help_describes_the_command_in_sentences(capsys):
    code, out, _ = _cli(capsys, "--help")
    assert code == 0
    described = " ".join(_description(out).split())
    assert described.startswith("Places every array that lives only inside one step of a model")
    assert described.endswith(".")
    assert "register(" not in out and "subparsers" not in out  # no developer text
    listed = re.findall(r"^    (\w+)\s+\S", out, re.MULTILINE)
    assert listed == list(lanearena.cli.SUBCOMMANDS)


class _Recording(argparse.ArgumentParser):
    """A parser that keeps the help each of its arguments was given."""

    def __init__(self, *args, **kwargs):
        self.helps: dict[str, str | None] = {}
        super().__init__(*args, **kwargs)

    def add_argument(self, *names, **kwargs):
        self.helps[names[-1]] = kwargs.get("help")
        return super().add_argument(*names, **kwargs)


class _Subcommands:
    """What a subcommand's `register` is given: keeps the parser it adds and the one-line help it gives."""

    def __init__(self):
        self.added: dict[str, tuple[str | None, _Recording]] = {}

    def add_parser(self, name, help=None, **kwargs):
        parser = _Recording(prog=f"lanearena {name}", **kwargs)
        self.added[name] = (help, parser)
        return parser


@pytest.mark.parametrize("name", lanearena.cli.SUBCOMMANDS)
def test_every_subcommand_has_a_description_and_every_option_a_help(name):
    subcommands = _Subcommands()
    importlib.import_module(f"lanearena.cli.{name}").register(subcommands)
    ((one_line, parser),) = subcommands.added.values()
    assert one_line and "\n" not in one_line
    assert parser.description and parser.description.rstrip().endswith(".")
    assert [option for option, help in parser.helps.items() if not help] == []


def test_version_is_the_installed_distributions(capsys):
    code, out, _ = _cli(capsys, "--version")
    assert (code, out) == (0, f"lanearena {importlib.metadata.version('lanearena')}\n")


def test_a_step_on_standard_input_places_as_the_file_does(capsys, monkeypatch):
    from_file = _cli(capsys, "place", str(DECODE), "--json", "--quiet")
    _stdin(monkeypatch, DECODE.read_bytes())
    assert _cli(capsys, "place", "-", "--json", "--quiet") == from_file
    assert from_file[0] == 0 and json.loads(from_file[1])[0]["arena_bytes"] > 0


def test_compile_and_report_read_standard_input(capsys, monkeypatch, tmp_path):
    for argv in (["compile"], ["report", "--launches", "1:3"]):
        from_file = _cli(capsys, *argv[:1], str(DECODE), *argv[1:])
        _stdin(monkeypatch, DECODE.read_bytes())
        # Exit code and output alike; stderr may differ by the PTX cache's progress line (a cold cache compiles once).
        assert _cli(capsys, *argv[:1], "-", *argv[1:])[:2] == from_file[:2]
        assert from_file[0] == 0 and from_file[1]


def test_a_config_on_standard_input_builds_as_the_file_does(capsys, monkeypatch, tmp_path):
    config = {"layers": 1, "hidden": 64, "heads": 2, "kv_heads": 1, "head_dim": 32, "ffn": 128, "vocab": 128}
    config["max_len"] = 16
    path = tmp_path / "stdin.json"  # the name a config on standard input takes
    path.write_text(json.dumps(config))
    from_file = _cli(capsys, "build", str(path))
    _stdin(monkeypatch, path.read_bytes())
    assert _cli(capsys, "build", "-") == from_file
    assert from_file[0] == 0 and "lane.step @stdin" in from_file[1]


def test_a_csv_on_standard_input_solves_as_the_file_does(capsys, monkeypatch, tmp_path):
    text = "id,lower,upper,size\na,0,2,16\nb,1,3,32\nc,2,4,16\n"
    path = tmp_path / "p.csv"
    path.write_text(text)
    from_file = _cli(capsys, "solve", "--input", str(path), "--output", "-", "--quiet")
    _stdin(monkeypatch, text.encode())
    assert _cli(capsys, "solve", "--input", "-", "--output", "-", "--quiet") == from_file
    assert from_file[0] == 0 and from_file[1].endswith("height=48 lower_bound=48\n")


@pytest.mark.parametrize(
    "argv, data, message",
    [
        (["place", "-"], b'lane.step @s numerics(f32) {\n  %x = lane.nothing "x"\n}\n', "<stdin>:2:"),
        (["place", "-"], b"", "<stdin>:1:1: empty file"),
        (["solve", "--input", "-", "--output", "-"], b"id,lower,upper,size\na,0,x,16\n", "<stdin>:2"),
        (["build", "-"], b'{"layers": 1,\n "hiden": 64}', "<stdin>:2: unknown key 'hiden' (did you mean 'hidden'?)"),
        (["report", "-"], b"\xff", "<stdin>:1:1: file is not UTF-8 text"),
    ],
)
def test_bad_input_on_standard_input_is_located_as_stdin(capsys, monkeypatch, argv, data, message):
    _stdin(monkeypatch, data)
    code, out, err = _cli(capsys, *argv)
    assert (code, out) == (2, "")
    assert err.startswith(f"lanearena {argv[0]}: error: {message}"), err
    assert len(err.splitlines()) == 1


@pytest.mark.parametrize(
    "tool, example, argv",
    [("opt", "decode.mlir", ["-p", "lane-arena-place"]), ("run", "memref.mlir", [])],
)
def test_lanearena_opt_and_run_read_standard_input_for_dash(capsys, monkeypatch, tool, example, argv):
    main = importlib.import_module(f"lanearena.tools.{tool}").main
    path = ROOT / "examples" / example
    assert main([str(path), *argv]) == 0
    from_file = capsys.readouterr()
    _stdin(monkeypatch, path.read_bytes())
    assert main(["-", *argv]) == 0
    assert capsys.readouterr() == from_file and from_file.out
