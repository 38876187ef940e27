"""The files of a model directory, opened as the loader trusts nothing it reads: only regular files (a FIFO never
blocks the open, a link to a device is refused), JSON read whole and refused, naming the file, where it is not
UTF-8 JSON or nests past what Python's parser takes. Its config.json is read once a run (`read_config_json`), and
what it holds handed to each of its readers (the decoder config, the checkpoint's family, the end-of-sequence
ids)."""

from __future__ import annotations

import json
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from lanearena.errors import UserError

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def open_regular(path: Path, error: type[Exception] = UserError) -> BinaryIO:
    """`path` open for reading where it is a regular file (a symbolic link followed); else an `error` naming it.
    The open does not block: a FIFO with no writer is opened and refused, never waited on."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as e:
        raise error(f"cannot read {path}: {e.strerror or e}") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
        raise error(f"{path}: is {kind}, not a regular file")
    os.set_blocking(fd, True)
    return os.fdopen(fd, "rb")


def read_json(path: Path, error: type[Exception] = UserError) -> object:
    """The JSON value of regular file `path`; an `error` naming it where it cannot be read or parsed."""
    return parse_json(_read_bytes(path, error), path, error)


@dataclass(frozen=True)
class ConfigJson:
    """A model directory's JSON file of keys as read (config.json, generation_config.json): its `path`, its `text`
    (where messages locate a key) and its `values`, an object of keys."""

    path: Path
    text: str
    values: dict[str, object]

    def at(self, key: str) -> str:
        """Where `key` is written: `path:line` (the file alone where the text does not name it)."""
        match = re.search(rf'"{re.escape(key)}"\s*:', self.text)
        return f"{self.path}:{self.text.count(chr(10), 0, match.start()) + 1}" if match else str(self.path)


def read_config_json(directory: Path, error: type[Exception] = UserError) -> ConfigJson:
    """The config.json of model directory `directory`, read once for all its readers; an `error` naming it where
    there is none, or it cannot be read, or it is not a JSON object."""
    path = directory / "config.json"
    if not (path.exists() or path.is_symlink()):
        raise error(f"{directory}: a model directory holds a config.json, and this one has none")
    return read_object(path, error)


def read_object(path: Path, error: type[Exception] = UserError) -> ConfigJson:
    """The JSON object of keys in regular file `path`; an `error` naming it where it cannot be read, or it is not
    UTF-8 JSON, or not an object."""
    raw = _read_bytes(path, error)
    values = parse_json(raw, path, error)
    if not isinstance(values, dict):
        what = "a config" if path.name == "config.json" else f"{path.name}"
        raise error(f"{path}: {what} is a JSON object of keys, not {type(values).__name__}")
    return ConfigJson(path, raw.decode("utf-8"), values)  # UTF-8: parse_json read it so


def _read_bytes(path: Path, error: type[Exception]) -> bytes:
    with open_regular(path, error) as f:
        try:
            return f.read()
        except OSError as e:
            raise error(f"cannot read {path}: {e.strerror or e}") from None


def parse_json(raw: bytes, path: Path, error: type[Exception] = UserError) -> object:
    """The JSON value of `raw`, the bytes of `path`; an `error` naming the file (and the line) where they are not
    UTF-8 JSON, repeat a key, or nest deeper than the parser recurses."""

    def unique(pairs: list[tuple[str, object]]) -> dict:
        out = dict(pairs)
        if len(out) != len(pairs):
            seen: set[str] = set()
            twice = next(k for k, _ in pairs if k in seen or seen.add(k))  # type: ignore[func-returns-value]
            raise error(f"{path}: key {twice!r} is given twice")
        return out

    try:
        return json.loads(raw.decode("utf-8"), object_pairs_hook=unique)
    except UnicodeDecodeError as e:
        raise error(f"{path}: not UTF-8 text (byte {e.start})") from None
    except json.JSONDecodeError as e:
        raise error(f"{path}:{e.lineno}:{e.colno}: malformed JSON: {e.msg}") from None
    except RecursionError:
        raise error(f"{path}: JSON nested too deep to read") from None
