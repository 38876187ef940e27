"""Malformed input: valid steps (the lit tests' inputs and shipped configs, placed and not, in custom and generic
form) cut short at random points, with tokens deleted or replaced, ops renamed to ones that do not exist, values
and types made wrong, lines swapped, doubled or dropped. Each one must come back from `api.parse` as a `UserError`
(never another exception, never a hang); `lanearena place` must exit 2 with one line naming the file and line and
write nothing; and `lanearena-opt --verify-diagnostics` must give a located diagnostic, never a traceback."""

from __future__ import annotations

import functools
import io
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest
from xdsl.printer import Printer

from lanearena import api
from lanearena.cli import main
from lanearena.errors import UserError
from lanearena.frontend.configs import CONFIGS
from lanearena.frontend.decoder import decoder_step
from lanearena.options import PlaceOptions

ROOT = Path(__file__).resolve().parents[2]

MUTANTS = 400
"""Malformed inputs each test tries (mutations that leave a valid step are not counted)."""

TOKEN = re.compile(
    r'"[^"\n]*"|%[\w.$-]+|@[\w.$-]+|!lane\.tensor<[^>\n]*>|#lane\.\w+<[^>\n]*>|[A-Za-z_][\w.]*|'
    r"-?\d+(?:\.\d+)?(?:e-?\d+)?|->|\S"
)
VOCAB = [
    "%x",
    "%nope",
    '"x"',
    '""',
    "(",
    ")",
    ",",
    "->",
    ":",
    "{",
    "}",
    "[",
    "]",
    "<",
    ">",
    "64",
    "-1",
    "0",
    "1.5",
    "lane.bogus",
    "arena.bogus",
    "quant",
    "plain",
    "whole",
    "other",
    "part",
    "f32",
    "i8",
    "lane.tensor",
    "lane.view",
    "lane.output",
    "arena.array",
    "!lane.tensor<0xf32>",
    "#lane.part<64, 0, 32>",
    "@s",
    "numerics",
    "forms",
    "live",
    "#builtin.int<-3>",
    "[]",
    '[["plain"]]',
    '["quant"]',
    "{}",
    "{split = [1]}",
    "array<i32: 2>",
    '"lane.launch"',
    '"arena.array"',
    "3 : i64",
]
"""Tokens put in place of another."""
NUMBERS = ["-1", "0", "-256", "1.5", "99999999999999999999", '"x"', "true", "0x10", "1e400", "3"]
TYPES = [
    "!lane.tensor<64xf16>",
    "!lane.tensor<>",
    "!lane.tensor<0x4xf32>",
    "!lane.tensor<?xf32>",
    "i32",
    "tensor<4xf32>",
    "!lane.tensor<64xf32",
    "!lane.tensor<4x-4xf32>",
    "!lane.tensor<64xi8>",
    "!lane.tensor<3xf32>",
]
OPS = ["lane.nope", "arena.bogus", "lane.Step", "lane", "builtin.module", "lane.launch", "lane.gemv", "arena.alloc"]
CHARS = '{}()<>[],:%@#!"\\\x00é'
KINDS = ("truncate", "delete", "replace", "vocab", "op", "number", "type", "swap", "dup", "dropline", "char")
LOCATION = r"\.mlir:\d+:\d+"


def _text(module) -> str:
    return str(module) + "\n"


def _generic(module) -> str:
    out = io.StringIO()
    Printer(stream=out, print_generic_format=True).print_op(module)
    return out.getvalue() + "\n"


@functools.cache
def sources() -> tuple[tuple[str, str, bool], ...]:
    """Valid inputs, as (name, text, custom: whether in the custom form)."""
    out = []
    for path in sorted((ROOT / "test" / "filecheck").rglob("*.mlir")):
        for i, chunk in enumerate(path.read_text().split("// -----\n")):
            text = "\n".join(line for line in chunk.splitlines() if not line.lstrip().startswith("//")) + "\n"
            if text.strip() and _parses(text):  # the diagnostics tests' inputs are malformed already
                out.append((f"{path.stem}{i}", text, True))
    for name in ("tiny", "tiny-moe"):
        module = decoder_step(CONFIGS[name])
        out.append((name, _text(module), True))
        out.append((f"{name}-placed", _text(api.place(module, PlaceOptions("greedy"))), True))
    out += [(f"{name}-generic", _generic(api.parse(text)), False) for name, text, _ in list(out)]
    return tuple(out)


def _parses(text: str) -> bool:
    try:
        api.parse(text)
    except UserError:
        return False
    return True


def mutate(rng: random.Random, text: str) -> str:
    """`text` broken one way, chosen by `rng`."""
    tokens = list(TOKEN.finditer(text))
    kind = rng.choice(KINDS)

    def put(m: re.Match, new: str) -> str:
        return text[: m.start()] + new + text[m.end() :]

    def some(pattern: str) -> re.Match:
        return rng.choice([m for m in tokens if re.fullmatch(pattern, m.group())] or tokens)

    if kind == "truncate":
        return text[: rng.randrange(len(text))]
    if kind == "delete":
        return put(rng.choice(tokens), "")
    if kind == "replace":
        return put(rng.choice(tokens), rng.choice(tokens).group())
    if kind == "vocab":
        return put(rng.choice(tokens), rng.choice(VOCAB))
    if kind == "op":
        return put(some(r'"?(lane|arena)\.\w+"?'), rng.choice(OPS))
    if kind == "number":
        return put(some(r"-?\d+(\.\d+)?(e-?\d+)?"), rng.choice(NUMBERS))
    if kind == "type":
        return put(some(r"!lane\.tensor<.*>"), rng.choice(TYPES))
    if kind == "char":
        at = rng.randrange(len(text))
        return text[:at] + rng.choice(CHARS) + text[at:]
    lines = text.splitlines()
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    if kind == "swap":
        lines[i], lines[j] = lines[j], lines[i]
    elif kind == "dup":
        lines.insert(j, lines[i])
    else:
        del lines[i]
    return "\n".join(lines) + "\n"


@functools.cache
def malformed(seed: int = 0, count: int = MUTANTS) -> tuple[list[tuple[str, str, bool]], int]:
    """`count` malformed inputs as (name, text, custom), and how many mutants came out valid on the way."""
    rng = random.Random(seed)
    out, valid = [], 0
    while len(out) < count:
        name, text, custom = rng.choice(sources())
        bad = mutate(rng, text)
        if _parses(bad):
            valid += 1
        else:
            out.append((f"{name}-{len(out)}", bad, custom))
    return out, valid


def test_every_malformed_input_is_a_user_error_that_names_the_file():
    inputs, valid = malformed()
    assert len(inputs) == MUTANTS and valid < MUTANTS
    for name, text, custom in inputs:
        with pytest.raises(UserError) as e:
            api.parse(text, f"{name}.mlir")
        assert f"{name}.mlir" in str(e.value)
        if custom:
            assert re.search(rf"{re.escape(name)}{LOCATION}", str(e.value)), str(e.value)


def test_lanearena_place_exits_2_with_one_line_naming_the_file_and_line(tmp_path, capsys):
    for name, text, custom in malformed()[0][:150]:
        path, out = tmp_path / f"{name}.mlir", tmp_path / f"{name}.placed.mlir"
        path.write_text(text)
        assert main(["place", str(path), "-o", str(out)]) == 2
        err = capsys.readouterr().err
        lines = err.splitlines()
        assert len(lines) == 1, err
        assert str(path) in lines[0] and "Traceback" not in err
        if custom:
            assert re.search(rf"{re.escape(name)}{LOCATION}", lines[0]), lines[0]
        assert not out.exists()


def test_lanearena_opt_gives_a_located_diagnostic_for_every_malformed_input(tmp_path):
    inputs = [text for _, text, custom in malformed()[0] if custom]
    path = tmp_path / "malformed.mlir"
    path.write_text("// -----\n".join(text if text.endswith("\n") else text + "\n" for text in inputs))
    run = subprocess.run(
        [
            Path(sys.executable).with_name("lanearena-opt"),
            path,
            "--split-input-file",
            "--verify-diagnostics",
        ],
        check=False,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0 and "Traceback" not in run.stdout + run.stderr, run.stderr[-2000:]
    chunks = run.stdout.split("// -----\n")
    assert len(chunks) == len(inputs)
    for text, chunk in zip(inputs, chunks, strict=True):
        assert re.search(r"malformed" + LOCATION, chunk), f"no located diagnostic for:\n{text}\ngot:\n{chunk}"


def test_a_quote_left_open_before_a_long_line_fails_fast():
    text = 'lane.step @s numerics(f32) {\n  %x = lane.input "x : !lane.tensor<64xf32> and a long tail of words\n}\n'
    run = subprocess.run(
        [sys.executable, "-c", f"from lanearena import api; api.parse({text!r}, 'q.mlir')"],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "UserError" in run.stderr and "q.mlir:2:19: unterminated string literal" in run.stderr
