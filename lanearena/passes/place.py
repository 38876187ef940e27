"""`lane-arena-place`: places every array that lives inside each `lane.step` into one arena by lifetime, and
records the result as `arena` ops at the end of the step."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import DiagnosticException

from lanearena import placement
from lanearena.analysis.arena import plan
from lanearena.model import ALIGN, QBLOCK
from lanearena.passes.convert import step_of, steps, write_plan


@dataclass(frozen=True)
class LaneArenaPlace(ModulePass):
    """Options: `algorithm` (greedy is the reference's order; best, the default, never does worse), `align` (bytes
    every array is aligned to), `qblock` (values a quantized scale covers), `time_limit` (seconds of search a step)."""

    name = "lane-arena-place"

    algorithm: str = "best"
    align: int = ALIGN
    qblock: int = QBLOCK
    time_limit: float = 5.0

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.algorithm not in placement.ALGORITHMS:
            raise DiagnosticException(
                f"lane-arena-place: unknown algorithm '{self.algorithm}' (one of {', '.join(placement.ALGORITHMS)})"
            )
        if self.align <= 0 or self.qblock <= 0:
            raise DiagnosticException("lane-arena-place: align and qblock must be positive")
        for step_op in steps(op):
            step, values = step_of(step_op)
            write_plan(step_op, plan(step, self.algorithm, self.align, self.qblock, self.time_limit), values)
