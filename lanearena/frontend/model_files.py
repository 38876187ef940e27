"""The files of a model directory, opened as the loader trusts nothing it reads: only regular files (a FIFO never
blocks the open, a link to a device is refused), JSON read whole and refused, naming the file, where it is not
UTF-8 JSON or nests past what Python's parser takes."""

from __future__ import annotations

import json
import os
import stat
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
    with open_regular(path, error) as f:
        try:
            raw = f.read()
        except OSError as e:
            raise error(f"cannot read {path}: {e.strerror or e}") from None
    return parse_json(raw, path, error)


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
