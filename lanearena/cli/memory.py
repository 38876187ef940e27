"""The memory a numpy run takes, and the refusal of a run larger than the memory free here, said before a weight is
drawn or read rather than the system killing the process half way."""

from __future__ import annotations

from lanearena.errors import UserError
from lanearena.frontend.decoder_config import DecoderConfig, mixture_reads_int8, reads_int8
from lanearena.lowering.runtime.execute import fed
from lanearena.model import QBLOCK, Numerics, Role, Step, weight_array_bytes

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


def added_bytes(step: Step, allocated: int, process: bool) -> int:
    """Host bytes a numpy session takes to add `step`, about: the `allocated` bytes of its buffers and of the
    weights and state new to it, its largest weight once more in f32 while it is made, and the process itself where
    `process` (the session's first step)."""
    largest = max((4 * t.length for t in fed(step) if t.role is Role.WEIGHT), default=0)
    return allocated + largest + (OVERHEAD if process else 0)


def check_gpu_memory(name: str, need: int, memory: int) -> None:
    """Refuses a GPU run whose weights and state take `need` bytes, more than the GPU's `memory`, before anything
    is built or uploaded."""
    if need > memory:
        raise UserError(
            f"{name} needs about {need / 1e9:.1f} GB on the GPU (its weights in the step's numerics and its caches, "
            f"a cache a sequence slot), more than its {memory / 1e9:.1f} GB: make it smaller with --set (a smaller "
            "batch or max_len, fewer layers)"
        )


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


def config_bytes(c: DecoderConfig) -> int:
    """A lower bound of the host bytes a numpy run of config `c` takes, from its shapes alone (so that a config of
    a million layers is refused before its step is built): the embedding table and lm-head, each layer's attention
    projections and key/value caches (one a sequence slot) and its MLP's weights (a delta-rule layer's counted as
    nothing), each matrix in the element the step keeps it in (Q8_0 where its products read int8), and the process
    itself."""

    def per(k: int) -> float:
        """Bytes a value of a weight matrix of rows of `k` values: Q8_0 a byte and an f32 scale a block, bf16 two,
        f32 four."""
        return (QBLOCK + 4) / QBLOCK if reads_int8(c.numerics, k) else 2 if c.numerics == Numerics.BF16 else 4

    weights = c.vocab * c.hidden * (1 if c.tie_embeddings else 2) * per(c.hidden)
    full = c.layers // c.attn_interval  # the full attention layers: every attn_interval-th
    # q, k and v over the hidden row, the output projection over the attention's
    weights += full * c.hidden * ((c.q_dim + 2 * c.kv_dim) * per(c.hidden) + c.q_dim * per(c.q_dim))
    caches = full * 2 * c.max_len * c.kv_dim * 4 * c.batch  # a cache a sequence slot
    if c.mixture:
        assert c.experts is not None and c.expert_ffn is not None  # a mixture has them
        sparse = c.layers // max(c.sparse_step, 1) - len(c.dense_layers)
        # its matrices all Q8_0, or all of the numerics' float where a width of it 32 does not cut
        rate = per(QBLOCK) if mixture_reads_int8(c) else per(1)
        weights += max(sparse, 0) * c.experts * 3 * c.hidden * c.expert_ffn * rate
    else:
        assert c.ffn is not None  # a dense config has it
        # gate and up over the hidden row, down over the gated one
        weights += c.layers * c.hidden * c.ffn * (2 * per(c.hidden) + per(c.ffn))
    return int(weights) + caches + OVERHEAD
