"""Reading the user's text files (a step's `.mlir`, a placement CSV, a config's JSON): UTF-8, with or without the
byte-order mark some editors write, and not empty; anything else is a `UserError` that names the file and, for
bytes that are not UTF-8, the line and column where they start. The path `-` is standard input, named `<stdin>`
in messages. Writing the commands' output (`write_output`): a regular file is written whole or not at all; anything
else a path names (a terminal, /dev/null, a pipe) is written in place, and a symbolic link is written through, never
replaced."""

from __future__ import annotations

import codecs
import errno
import os
import stat
import sys
import tempfile
from pathlib import Path

from lanearena.errors import UserError

_OTHER_BOMS = (
    (codecs.BOM_UTF32_LE, "UTF-32"),
    (codecs.BOM_UTF32_BE, "UTF-32"),
    (codecs.BOM_UTF16_LE, "UTF-16"),
    (codecs.BOM_UTF16_BE, "UTF-16"),
)
"""Byte-order marks of encodings other than UTF-8 (UTF-32 first: its little-endian mark starts with UTF-16's)."""

STDIN = "-"
"""The path that names standard input, as in most Unix commands."""

STDIN_NAME = "<stdin>"
"""How messages name standard input."""


def read_text(path: str | Path, what: str = "file") -> str:
    """The text of `path` (a UTF-8 byte-order mark dropped), or of standard input where `path` is `-`; a
    `UserError` where it cannot be read, is not UTF-8, or holds nothing but white space. `what` names the file in
    messages ("config")."""
    try:
        raw = sys.stdin.buffer.read() if str(path) == STDIN else Path(path).read_bytes()
    except OSError as e:
        raise UserError(f"{path}: cannot read: {e.strerror or e}") from None
    return decode(raw, display_name(path), what)


def display_name(path: str | Path) -> str:
    """How messages name the file at `path`: `<stdin>` for `-`, else the path as given."""
    return STDIN_NAME if str(path) == STDIN else str(path)


def decode(raw: bytes, name: str, what: str = "file") -> str:
    """`raw` as text (see `read_text`), messages naming it `name`."""
    for bom, encoding in _OTHER_BOMS:
        if raw.startswith(bom):
            raise UserError(f"{name}:1:1: {what} is {encoding} text (by its byte-order mark); save it as UTF-8")
    raw = raw.removeprefix(codecs.BOM_UTF8)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        start = raw.rfind(b"\n", 0, e.start) + 1
        line, column = raw.count(b"\n", 0, e.start) + 1, len(raw[start : e.start].decode("utf-8")) + 1
        raise UserError(
            f"{name}:{line}:{column}: {what} is not UTF-8 text (byte {raw[e.start]:#04x}: {e.reason})"
        ) from None
    if not text.strip():
        raise UserError(f"{name}:1:1: empty file")
    return text


def write_output(path: str | None, data: str | bytes) -> None:
    """Writes `data` (text, or bytes such as a PNG) to `path`, or to stdout where `path` is None or '-'. A regular
    file (or a new one) is written to a temporary file renamed into place, so an error never leaves a partial file,
    keeping an existing file's mode; a path that is a link is followed, so the link stays and its target is
    written; a device or pipe is opened and written as it is."""
    binary = isinstance(data, bytes)
    if path in (None, "-"):
        if isinstance(data, bytes):
            sys.stdout.buffer.write(data)
        else:
            sys.stdout.write(data)
        sys.stdout.flush()
        return
    target = Path(os.path.realpath(path))
    try:
        mode = target.stat().st_mode
    except FileNotFoundError:
        mode = None
    except OSError as e:
        raise UserError(f"{path}: cannot write: {e.strerror}") from None
    try:
        if mode is not None and stat.S_ISDIR(mode):
            raise UserError(f"{path}: cannot write: {os.strerror(errno.EISDIR)}")
        if mode is not None and not stat.S_ISREG(mode):
            with open(target, "wb" if binary else "w", encoding=None if binary else "utf-8") as f:
                f.write(data)
            return
        _replace(target, data, stat.S_IMODE(mode) if mode is not None else 0o666 & ~_umask())
    except OSError as e:
        raise UserError(f"{path}: cannot write: {e.strerror}") from None


def _replace(target: Path, data: str | bytes, mode: int) -> None:
    """`target` replaced atomically by a file of `data` with permissions `mode`."""
    binary = isinstance(data, bytes)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
    try:
        with os.fdopen(fd, "wb" if binary else "w", encoding=None if binary else "utf-8") as f:
            f.write(data)
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        os.unlink(tmp)
        raise


def _umask() -> int:
    """The process's file-mode mask: mkstemp makes a private file, a new one should have the usual mode."""
    mask = os.umask(0)
    os.umask(mask)
    return mask
