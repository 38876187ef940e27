"""`lane-arena-verify`: checks every placed `lane.step` independently of the placer (`analysis.check`): no two
arrays or scratch live at once share a byte, every offset is aligned, all lie inside the arena, no counter is in
the arena, and every placed array is written whole before it is read."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import DiagnosticException

from lanearena.analysis.check import check
from lanearena import options
from lanearena.model import QBLOCK
from lanearena.passes.convert import plan_of, step_of, steps


@dataclass(frozen=True)
class LaneArenaVerify(ModulePass):
    """Fails with every problem it finds, each naming the ops involved. `qblock` must match the placement's."""

    name = "lane-arena-verify"

    qblock: int = QBLOCK

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        try:
            options.qblock(self.qblock)
        except options.OptionError as e:
            raise DiagnosticException(f"lane-arena-verify: {e}") from None
        problems: list[str] = []
        for step_op in steps(op):
            name = step_op.sym_name.data
            plan = plan_of(step_op)
            if plan is None:
                problems.append(f"lane.step @{name}: not placed (no arena.alloc); run lane-arena-place first")
                continue
            allocs = sum(1 for c in step_op.body.block.ops if c.name == "arena.alloc")
            if allocs > 1:
                problems.append(f"lane.step @{name}: {allocs} arena.alloc ops, one expected")
            step, _ = step_of(step_op)
            problems += [f"lane.step @{name}: {p}" for p in check(step, plan, self.qblock)]
        if problems:
            raise DiagnosticException("lane-arena-verify failed:\n" + "\n".join(f"  {p}" for p in problems))
