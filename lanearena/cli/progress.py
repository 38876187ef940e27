"""Progress lines for long work: shown on a terminal, silent when stderr is not one or under --quiet."""

from __future__ import annotations

import sys
import time


class Progress:
    """Shows one progress line at a time on stderr (each overwriting the last) with the time elapsed; does nothing
    when stderr is not a terminal or `quiet` is set."""

    def __init__(self, quiet: bool = False):
        self.enabled = not quiet and sys.stderr.isatty()
        self.start = time.perf_counter()

    def __call__(self, line: str) -> None:
        if self.enabled:
            sys.stderr.write(f"\r\033[K{line} [{time.perf_counter() - self.start:.1f}s]")
            sys.stderr.flush()

    def close(self) -> None:
        """Clears the progress line."""
        if self.enabled:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()
