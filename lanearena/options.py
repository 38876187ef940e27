"""The checks every option of the passes, the API and the commands goes through: a value that would not work end to
end is refused here with a message naming the option, never passed on to be half honoured."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeGuard

from lanearena import placement
from lanearena.model import ALIGN, DEVICE_BYTES, QBLOCK

MIN_ALIGN = 16
"""The smallest alignment an arena may have: the kernels' widest vector access (16 bytes, a float4 or an int4 of
int8 words) must stay aligned in every array, view and scratch."""

QBLOCKS = (QBLOCK,)
"""The quantized block sizes the kernels, their twins and the checker are built for (GGML's Q8_0 block of 32)."""


class OptionError(ValueError):
    """An option value that cannot work: the message names the option and what it accepts."""


def align(value: object, option: str = "align") -> int:
    """`value` as an arena alignment: a power of two from `MIN_ALIGN`, at most a device's bytes."""
    if not _integer(value) or value < MIN_ALIGN or value & (value - 1) or value > DEVICE_BYTES:
        raise OptionError(f"{option} must be a power of two from {MIN_ALIGN} (bytes), not {value!r}")
    return value


def qblock(value: object, option: str = "qblock") -> int:
    """`value` as a quantized block size: one the kernels are built for."""
    if not _integer(value) or value not in QBLOCKS:
        supported = ", ".join(map(str, QBLOCKS))
        raise OptionError(
            f"{option} must be a block size the kernels are built for ({supported}), not {value!r}: "
            "the quantized layout, the kernels and their twins use blocks of that many values"
        )
    return value


def seconds(value: object, option: str = "time_limit") -> float | None:
    """`value` as a time limit in seconds: a positive finite number (an int too), or None for no limit."""
    return None if value is None else _positive_seconds(value, option)


def _positive_seconds(value: object, option: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise OptionError(f"{option} must be a positive number of seconds, not {value!r}")
    return float(value)


def work(value: object, option: str = "work") -> int | None:
    """`value` as a work budget: a whole number >= 0 of counted search steps, or None for the default."""
    if value is None:
        return None
    if not _integer(value) or value < 0:
        raise OptionError(f"{option} must be a whole number >= 0, not {value!r}")
    return value


@dataclass(frozen=True)
class PlaceOptions:
    """How `lane-arena-place` places a step: `algorithm` (one of `placement.ALGORITHMS`), `align` (the bytes every
    array is aligned to), `qblock` (the values a quantized scale covers), `time_limit` and `work` (bounds of the
    search, as in `placement.place`), `progress` (shown lines of a long search). Checked once, when made: an
    `OptionError` names the option at fault; `time_limit` is kept as a float."""

    algorithm: str = "best"
    align: int = ALIGN
    qblock: int = QBLOCK
    time_limit: float | None = None
    work: int | None = None
    progress: Callable[[str], None] | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if self.algorithm not in placement.ALGORITHMS:
            raise OptionError(f"unknown algorithm '{self.algorithm}' (one of {', '.join(placement.ALGORITHMS)})")
        align(self.align)
        qblock(self.qblock)
        work(self.work)
        object.__setattr__(self, "time_limit", seconds(self.time_limit))


def cli_seconds(text: str) -> float:
    """An argparse type for `--time-limit`: `seconds` of the text, as argparse's own error (exit code 2)."""
    try:
        return _positive_seconds(float(text), "--time-limit")
    except (ValueError, OptionError) as e:
        raise argparse.ArgumentTypeError(str(e) if isinstance(e, OptionError) else f"not a number: {text!r}") from e


def _integer(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


DEFAULT_PLACING = PlaceOptions()
"""The placement's options where none are given: `best`, cudaMalloc's alignment, Q8_0 blocks, the default work."""
