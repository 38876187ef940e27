"""The memory a numpy run takes, and the refusal of a run larger than the memory free here, said before a weight is
drawn or read rather than the system killing the process half way."""

from __future__ import annotations

from lanearena.errors import UserError
from lanearena.lowering.runtime import fed
from lanearena.model import Role, Step, weight_array_bytes

OVERHEAD = 300 * 10**6
"""Host bytes of the process beside what the run holds: the interpreter, numpy, xDSL, the lowered modules."""


def available_memory() -> int | None:
    """The bytes this machine can give a process now (Linux's MemAvailable), or None where it does not say."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def run_bytes(step: Step, arenas: int, copies: int) -> int:
    """Host bytes a numpy run of `step` takes at its peak, about: its weights once, in the step's numerics (they are
    streamed: made one at a time, the largest once more in f32 while it is), `copies` of its inputs and state (a
    comparison: drawn, on the device, and read back after each of its two runs), `arenas` bytes of arenas, and the
    process itself."""
    weights = [t for t in fed(step) if t.role is Role.WEIGHT]
    device = sum(weight_array_bytes(t.length, t.elem) for t in weights)
    others = sum(4 * t.length for t in fed(step) if t.role is not Role.WEIGHT)
    largest = max((4 * t.length for t in weights), default=0)
    return device + copies * others + arenas + largest + OVERHEAD


def check_memory(name: str, need: int, available: int | None) -> None:
    """Refuses a numpy run that would take `need` bytes, more memory than is `available`, before it is drawn or
    read, rather than have the system kill the process half way."""
    if available is not None and need > available:
        raise UserError(
            f"{name} needs about {need / 1e9:.1f} GB to run on the numpy runtime (its weights in the step's "
            f"numerics, uploaded one at a time, its state and arenas), more than the {available / 1e9:.1f} GB free "
            "here: make it smaller with --set (fewer layers, a smaller vocab or max_len, fewer experts or a smaller "
            "expert_ffn), or `lanearena build` it for the arena alone"
        )
