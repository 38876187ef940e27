"""The README as written: it starts with the two commands a newcomer types (the second exactly what `.ci/run` runs),
its quick start sits in its first 60 lines, its quick start commands run, its Python blocks run in order and print
what it says they print, its example IR is what `xdsl-opt` makes of `examples/decode.mlir`, and neither it nor
docs/ points outside the repository, at an issue number, or at a file that does not exist."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

import lanearena.cli

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()
DOCS = sorted((ROOT / "docs").glob("*.md"))

SETUP = "python3 -m venv .venv && . .venv/bin/activate && pip install -e '.[test]' && lanearena run"
TEST = (
    ". .venv/bin/activate && ruff check lanearena test bench && ruff format --check lanearena test bench && mypy && "
    "lit -sv test/filecheck && python -m pytest -q"
)


def blocks(text: str, language: str | None = None) -> list[tuple[int, str, str]]:
    """The fenced blocks of markdown `text` (of `language` where given): the line each opens on, its language and
    its text."""
    found = []
    for m in re.finditer(r"^```(\w*)\n(.*?)^```$", text, re.MULTILINE | re.DOTALL):
        if language is None or m[1] == language:
            found.append((text.count("\n", 0, m.start()) + 1, m[1], m[2]))
    return found


def test_the_readme_starts_with_the_setup_and_the_test_command():
    first, second = blocks(README)[:2]
    assert README.startswith(f"# lanearena\n\n```sh\n{SETUP}\n```\n```sh\n{TEST}\n```\n")
    assert (first[2].strip(), second[2].strip()) == (SETUP, TEST)


def test_ci_runs_exactly_the_readmes_test_command():
    commands = (ROOT / ".ci" / "run").read_text().splitlines()
    assert TEST.removeprefix(". .venv/bin/activate && ") in commands


def test_the_quick_start_is_in_the_first_60_lines():
    head = "\n".join(README.splitlines()[:60])
    for needed in ("pip install .", "pip install '.[gpu]'", "lanearena run\n", TEST):
        assert needed in head, needed


def _sh_block_after(title: str) -> str:
    """The first sh block after the line `title`."""
    at = README.index(title)
    line = README.count("\n", 0, at) + 1
    return next(text for opens, _, text in blocks(README, "sh") if opens > line)


def test_the_quick_start_commands_run_as_written(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    commands = [c.split("#")[0].strip() for c in _sh_block_after("Then:").splitlines()]
    assert commands[0] == "lanearena run"
    for command in filter(None, commands):
        argv = shlex.split(command)
        assert argv[0] == "lanearena"
        try:
            code = lanearena.cli.main(argv[1:])
        except SystemExit as e:  # --help
            code = e.code
        assert code == 0, (command, capsys.readouterr().err)
    assert (tmp_path / "step.mlir").exists()


def test_lanearena_run_prints_what_the_readme_shows(capsys):
    """On the numpy runtime, which is what the README shows (on a GPU machine `run` picks the GPU)."""
    shown = README.split("then the seconds of each phase:\n```\n")[1].split("```")[0]
    assert lanearena.cli.main(["run", "--quiet", "--backend", "numpy"]) == 0
    assert capsys.readouterr().out.startswith(shown)


def test_the_example_ir_is_what_xdsl_opt_makes_of_the_example():
    before, after = (text for _, _, text in blocks(README, "mlir")[:2])
    assert before == (ROOT / "examples" / "decode.mlir").read_text()
    command = _sh_block_after("## What it is").strip()
    assert command.startswith("xdsl-opt examples/decode.mlir -p ")
    xdsl_opt = Path(sys.executable).parent / "xdsl-opt"
    placed = subprocess.run([str(xdsl_opt), *shlex.split(command)[1:]], cwd=ROOT, capture_output=True, text=True)
    assert placed.returncode == 0, placed.stderr
    lines = placed.stdout.rstrip().splitlines()
    assert (lines[0], lines[-1]) == ("builtin.module {", "}")
    assert after == "".join(line.removeprefix("  ") + "\n" for line in lines[1:-1])


def test_the_python_blocks_run_in_order_and_print_what_the_readme_shows(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": "readme"}
    printed = io.StringIO()
    python = blocks(README, "python")
    assert len(python) >= 3
    for opens, _, code in python:
        with contextlib.redirect_stdout(printed):
            exec(compile(code, f"README.md:{opens + 1}", "exec"), namespace)
    shown = README.split("prints\n```\n")[1].split("```")[0]
    assert printed.getvalue().startswith(shown)
    assert namespace["outputs"]["y"].shape == (2048,)


OUTSIDE = re.compile(r"\.\./|\bissues? \d+|/work/|/tmp/")


@pytest.mark.parametrize("path", [ROOT / "README.md", *DOCS], ids=lambda p: p.name)
def test_the_docs_stay_inside_the_repository(path):
    text = path.read_text()
    assert OUTSIDE.findall(text) == []
    for link in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
        if not re.match(r"\w+://", link):
            assert (path.parent / link).exists(), f"{path.name} links {link}, which does not exist"
    for named in re.findall(r"`((?:lanearena|test|bench|examples|docs)/[\w./-]+\.\w+)`", text):
        assert (ROOT / named).exists(), f"{path.name} names {named}, which does not exist"


def _bench_mutants():
    """bench/mutants.py's list of mutants (bench/ is no package: loaded from its file)."""
    spec = importlib.util.spec_from_file_location("bench_mutants", ROOT / "bench" / "mutants.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[spec.name]
    return module.MUTANTS


def test_the_mutants_table_lists_the_mutants_bench_runs():
    row = r"^\| `([\w-]+)` \| (.*?) \| `([^`]+)` \| `[^`]+` \|$"
    table = re.findall(row, (ROOT / "docs" / "testing.md").read_text(), re.MULTILINE)
    listed = [(m.name, m.rule, re.sub(r"^(lanearena|test/unit|test/filecheck)/", "", m.path)) for m in _bench_mutants()]
    assert table == listed


def test_the_readme_indexes_every_doc():
    index = README.split("## Documentation\n", 1)[1]
    assert sorted(re.findall(r"^\| \[docs/([\w-]+\.md)\]", index, re.MULTILINE)) == [p.name for p in DOCS]
