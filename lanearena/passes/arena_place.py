"""`lane-arena-place`: places every array that lives inside each `lane.step` into one arena by lifetime, and
rewrites the step onto it (`convert.place_step`). A step already placed is left as it is."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import DiagnosticException

from lanearena import placement
from lanearena.analysis.arena import plan
from lanearena.limits import oversized
from lanearena.model import ALIGN, QBLOCK
from lanearena.options import DEFAULT_PLACING, OptionError, PlaceOptions
from lanearena.passes.convert import alloc_of, place_step, step_of, steps


def place_module(module: ModuleOp, options: PlaceOptions = DEFAULT_PLACING) -> None:
    """Places every step of `module` that is not placed yet as `options` say (placing twice changes nothing)."""
    for step_op in steps(module):
        if alloc_of(step_op) is not None:
            continue
        if problems := oversized(step_op):
            raise DiagnosticException("\n".join(problems))
        step, _ = step_of(step_op)
        try:
            placed = plan(step, options)
        except placement.PlacementError as e:
            raise DiagnosticException(f"lane-arena-place: {e}") from None
        place_step(step_op, step, placed)


@dataclass(frozen=True)
class LaneArenaPlace(ModulePass):
    """Options: `algorithm` (greedy is the reference's order; best, the default, never does worse), `align` (bytes
    every array is aligned to), `qblock` (values a quantized scale covers), `work` (the search's counted work a
    step, so the result is the same on any machine; a default when neither it nor `time_limit` is given),
    `time_limit` (seconds a step may take at most; none by default)."""

    name = "lane-arena-place"

    algorithm: str = "best"
    align: int = ALIGN
    qblock: int = QBLOCK
    time_limit: float | int | None = None
    work: int | None = None

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        try:
            options = PlaceOptions(self.algorithm, self.align, self.qblock, self.time_limit, self.work)
        except OptionError as e:
            raise DiagnosticException(f"lane-arena-place: {e}") from None
        place_module(op, options)
