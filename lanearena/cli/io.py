"""Output helpers shared by the subcommands: files are written whole or not at all."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from lanearena.errors import UserError


def write_output(path: str | None, data: str | bytes) -> None:
    """Writes `data` (text, or bytes such as a PNG) to `path` through a temporary file renamed into place (stdout
    where `path` is None or '-'), so an error never leaves a partial file."""
    binary = isinstance(data, bytes)
    if path in (None, "-"):
        if binary:
            sys.stdout.buffer.write(data)
        else:
            sys.stdout.write(data)
        return
    target = Path(path)
    try:
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
    except OSError as e:
        raise UserError(f"{path}: cannot write: {e.strerror}") from e
    try:
        with os.fdopen(fd, "wb" if binary else "w") as f:
            f.write(data)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, target)
    except BaseException as e:
        os.unlink(tmp)
        if isinstance(e, OSError):
            raise UserError(f"{path}: cannot write: {e.strerror}") from e
        raise


def _umask() -> int:
    """The process's file-mode mask: mkstemp makes a private file, the written one should have the usual mode."""
    mask = os.umask(0)
    os.umask(mask)
    return mask
