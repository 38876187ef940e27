"""What a device can hold: a step whose tensor needs more bytes than any GPU has is refused where the tensor is
written (`file:line:col`), before placement or lowering computes with sizes no address can reach."""

from __future__ import annotations

import math

from lanearena.dialects import lane
from lanearena.dialects.located import where
from lanearena.model import DEVICE_BYTES, ELEMENT_BYTES


def oversized(step: lane.StepOp) -> list[str]:
    """A message for every tensor of `step` whose array takes more than `DEVICE_BYTES`, at the op defining it."""
    problems = []
    for op in step.walk():
        if isinstance(op, lane.TensorDef):
            t = op.result.type
            n = math.prod(t.dims) * ELEMENT_BYTES[t.elem]
            if n > DEVICE_BYTES:
                problems.append(
                    f"{where(op)}tensor '{op.tensor_name}' takes {n} bytes, more than a device can hold "
                    f"(at most 2^{DEVICE_BYTES.bit_length() - 1} bytes an array)"
                )
    return problems
