"""Output helpers shared by the subcommands: a regular file is written whole or not at all; anything else a path
names (a terminal, /dev/null, a pipe) is written in place, and a symbolic link is written through, never replaced."""

from __future__ import annotations

import errno
import os
import stat
import sys
import tempfile
from pathlib import Path

from lanearena.errors import UserError


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
