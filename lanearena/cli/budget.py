"""The flags that bound the placement's search, shared by `lanearena solve`, `place`, `run` and `report`: `--work`
(counted, so the result is the same on any machine) and `--time-limit` (seconds, an extra bound on the whole
placement)."""

from __future__ import annotations

import argparse
import math


def seconds(text: str) -> float:
    """A time limit: a number of seconds >= 0 (an integer or not)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number of seconds") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"{text} is not a number of seconds >= 0")
    return value


def work(text: str) -> int:
    """A work budget: an integer >= 0."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not an integer") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text} is not an amount of work >= 0")
    return value


def add_flags(p: argparse.ArgumentParser) -> None:
    """Adds `--work` and `--time-limit` to `p`."""
    p.add_argument("--work", type=work, default=None,
                   help="work of the default algorithm's search (counted, so the result does not depend on the "
                   "machine; default 8000000 when no --time-limit is given)")
    p.add_argument("--time-limit", type=seconds, default=None,
                   help="seconds the whole placement may take at most (default: none)")
