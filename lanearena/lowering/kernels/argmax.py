"""The arg-max of each row of logits (argmax.cu), in blocks whose best values meet in scratch, -1 for a row holding a
NaN or +Inf; its kernel call and numpy twin."""

from __future__ import annotations

import numpy as np

from lanearena.dialects.kinds.rows import ArgmaxOp
from lanearena.kernel_shapes import ARGMAX_BLOCK
from lanearena.lowering.kernels import twin
from lanearena.lowering.kernels.base import THREADS, KernelCall, Operands, cdiv, i32, kernel, lowers, operand, ptr
from lanearena.lowering.kernels.twin import F32, I32


@lowers(ArgmaxOp)
def argmax_calls(op: ArgmaxOp, at: Operands) -> list[KernelCall]:
    logits, out = operand(op, "logits"), operand(op, "out")
    v = logits.shape[-1]
    scratch = (ptr(at.scratch("av")), ptr(at.scratch("ai")), ptr(at.counter("ac")))
    args = (ptr(at.plain(out.value)), ptr(at.plain(logits.value)), *scratch, i32(v))
    return [KernelCall("argmax", (cdiv(v, ARGMAX_BLOCK), logits.length // v, 1), THREADS, args)]


@kernel
def argmax(dev, grid, block, out, logits, av, ai, ac, v) -> None:
    twin.check_block("argmax", block)
    blocks, rows = grid[0], grid[1]
    v = int(v)
    twin.require(blocks == cdiv(v, ARGMAX_BLOCK), f"argmax: {blocks} blocks for rows of {v}")
    counts = twin.Counters(dev, "argmax", ac, rows)
    for r, b in np.ndindex(rows, blocks):  # a block ARGMAX_BLOCK values of a row
        i0 = b * ARGMAX_BLOCK
        values = dev.download(int(logits) + (r * v + i0) * 4, F32, min(ARGMAX_BLOCK, v - i0))
        at = int(values.argmax())  # the first of equals: ties to the lowest index
        dev.upload(int(av) + (r * blocks + b) * 4, values[at : at + 1])
        dev.upload(int(ai) + (r * blocks + b) * 4, np.array([i0 + at], I32))
        if counts.arrive(slice(r, r + 1), blocks):
            values = dev.download(int(av) + r * blocks * 4, F32, blocks)
            best = int(values.argmax())  # a NaN ranks first, as in the kernel's `beats`
            at = dev.download(int(ai) + r * blocks * 4, I32, blocks)[best : best + 1]
            finite = not (np.isnan(values[best]) or np.isposinf(values[best]))
            dev.upload(int(out) + r * 4, at if finite else np.array([-1], I32))
