"""Each row's token drawn from its logits (sample.cu), one block a row; its kernel call and numpy twin, which is
`decoding.choose` in the kernel's f32."""

from __future__ import annotations

import numpy as np

from lanearena.decoding import Sampling, choose
from lanearena.dialects.kinds.rows import SampleOp
from lanearena.lowering.kernels import twin
from lanearena.lowering.kernels.base import THREADS, KernelCall, Operands, f32, i32, kernel, lowers, operand, ptr
from lanearena.lowering.kernels.twin import F32, I32


@lowers(SampleOp)
def sample_calls(op: SampleOp, at: Operands) -> list[KernelCall]:
    logits, draw, out = operand(op, "logits"), operand(op, "draw"), operand(op, "out")
    v = logits.shape[-1]
    args = (
        ptr(at.plain(out.value)),
        ptr(at.plain(logits.value)),
        ptr(at.plain(draw.value)),
        i32(v),
        f32(op.temperature.value.data),
        i32(op.top_k.value.data),
        f32(op.top_p.value.data),
    )
    return [KernelCall("sample", (1, logits.length // v, 1), THREADS, args)]


@kernel
def sample(dev, grid, block, out, logits, draw, v, temperature, top_k, top_p) -> None:
    twin.check_block("sample", block)
    twin.require(grid[0] == 1, f"sample: {grid[0]} blocks a row, not one")
    v, s = int(v), Sampling(float(temperature), int(top_k), float(top_p))
    for r in range(grid[1]):
        row = dev.download(int(logits) + r * v * 4, F32, v)
        u = float(dev.download(int(draw) + r * 4, F32, 1)[0])
        dev.upload(int(out) + r * 4, np.array([choose(row, s, u, np.float32)], I32))
