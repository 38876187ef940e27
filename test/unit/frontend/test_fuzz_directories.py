"""Fuzzed model directories: a tiny Llama's checkpoint bytes, its safetensors header and its config.json changed at
random. `lanearena run` (in-process, its `main`) answers each with exit 0, or exit 2 and one line naming a file of
the directory: never an internal error, a traceback, a hang or another code."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import struct
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lanearena.cli.generation as generation_cli
import lanearena.cli.run as run_cli
from lanearena.cli import main
from lanearena.frontend.decoder_config import HEAD_DIM_MAX
from lanearena.lowering.kernels.attention import HD_MAX

from ..support.checkpoints import tiny

SMALL = dict(
    vocab_size=64,
    hidden_size=32,
    num_hidden_layers=1,
    num_attention_heads=2,
    num_key_value_heads=1,
    head_dim=16,
    intermediate_size=32,
    max_position_embeddings=16,
)
"""A Llama small enough to run in a few hundredths of a second."""

FUZZ = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6,
)
"""Any JSON value (floats include NaN and infinity, which Python's json writes and reads)."""


@pytest.fixture(autouse=True, scope="module")
def _small_machine():
    """A machine of 1 GB free, whatever this one has: a config that fits its checkpoint but makes caches of
    gigabytes is refused, never allocated."""
    with pytest.MonkeyPatch.context() as m:
        for module in (run_cli, generation_cli):
            m.setattr(module, "available_memory", lambda: 10**9)
        yield


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> Path:
    directory = tmp_path_factory.mktemp("small")
    tiny(directory, **SMALL)
    return directory


def _answer(base: Path, change) -> None:
    """Runs `lanearena run` on a copy of `base` that `change(directory)` changed, and checks its answer."""
    with tempfile.TemporaryDirectory() as scratch:
        directory = Path(shutil.copytree(base, Path(scratch) / "model"))
        change(directory)
        with tempfile.TemporaryFile("w+") as err, open(os.devnull, "w") as out:
            with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
                code = main(["run", str(directory), "--quiet", "--json", "--backend", "numpy"])
            err.seek(0)
            said = err.read()
        assert code in (0, 2), said
        if code == 2:
            assert str(directory) in said.splitlines()[0], (
                said
            )  # (a list of misfit tensors follows on lines of its own)
            assert "internal error" not in said and "Traceback" not in said


def _header(directory: Path) -> tuple[dict, bytes]:
    raw = (directory / "model.safetensors").read_bytes()
    (n,) = struct.unpack("<Q", raw[:8])
    return json.loads(raw[8 : 8 + n]), raw[8 + n :]


def _write(directory: Path, header: dict, data: bytes) -> None:
    text = json.dumps(header).encode()
    (directory / "model.safetensors").write_bytes(struct.pack("<Q", len(text)) + text + data)


@FUZZ
@given(st.lists(st.tuples(st.integers(0, 1 << 20), st.integers(0, 255)), min_size=1, max_size=4), st.data())
def test_changed_checkpoint_bytes(base, changes, data):
    cut = data.draw(st.one_of(st.none(), st.integers(0, 50_000)))

    def change(directory: Path) -> None:
        raw = bytearray((directory / "model.safetensors").read_bytes())
        for at, value in changes:
            raw[at % len(raw)] = value
        (directory / "model.safetensors").write_bytes(bytes(raw[:cut] if cut is not None else raw))

    _answer(base, change)


@FUZZ
@given(st.integers(0, 1000), st.sampled_from(["dtype", "shape", "data_offsets", None]), json_values)
def test_changed_header_fields(base, pick, field, value):
    def change(directory: Path) -> None:
        header, data = _header(directory)
        names = sorted(header)
        name = names[pick % len(names)]
        if field is None:
            header[name] = value
        else:
            header[name][field] = value
        _write(directory, header, data)

    _answer(base, change)


@FUZZ
@given(st.integers(0, 1000), json_values, st.booleans())
def test_changed_config_values(base, pick, value, drop):
    def change(directory: Path) -> None:
        path = directory / "config.json"
        config = json.loads(path.read_text())
        key = sorted(config)[pick % len(config)]
        if drop:
            del config[key]
        else:
            config[key] = value
        path.write_text(json.dumps(config))

    _answer(base, change)


@FUZZ
@given(st.sampled_from(sorted(SMALL)), st.integers(-3, 2**40))
def test_changed_config_shapes(base, key, value):
    def change(directory: Path) -> None:
        path = directory / "config.json"
        path.write_text(json.dumps(json.loads(path.read_text()) | {key: value}))

    _answer(base, change)


def test_the_configs_widest_head_is_the_kernels():
    assert HEAD_DIM_MAX == HD_MAX


flag_values = st.one_of(st.integers(-(2**65), 2**65), st.floats(allow_nan=True), st.sampled_from(["", "x", "1,2", "0"]))


@FUZZ
@given(
    st.dictionaries(
        st.sampled_from(
            ["--generate", "--chunk", "--max-len", "--temperature", "--top-k", "--top-p", "--seed", "--prompt-ids"]
        ),
        flag_values.map(str),
        max_size=4,
    )
)
def test_generation_flags(base, flags):
    """Any values of the generation flags (argparse's own refusals, exit 2 from SystemExit, included)."""
    argv = ["run", str(base), "--quiet", "--json", "--backend", "numpy", "--prompt-ids", "1,2,3"]
    for flag, value in flags.items():
        argv += [flag, value] if not value.startswith("-") else [f"{flag}={value}"]
    with tempfile.TemporaryFile("w+") as err, open(os.devnull, "w") as out:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
            try:
                code = main(argv)
            except SystemExit as e:  # argparse: a value that is not of the flag's type
                code = e.code
        err.seek(0)
        said = err.read()
    assert code in (0, 2), said
    assert "internal error" not in said and "Traceback" not in said
