"""`lane-arena-verify`: checks every placed `lane.step` from its IR alone, independently of the placer
(`analysis.check`): the offsets, scratch and counters are read from the ops, the lives and what is written before
it is read are derived again from the launches. No two arrays or scratch live at once share a byte, every offset is
aligned, all lie inside the arena, no counter is in the arena, and every placed array is written whole before it is
read. Each problem starts with where its op was written (`file:line:col:`)."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import DiagnosticException

from lanearena import options
from lanearena.analysis.check import Subject, check
from lanearena.analysis.plan import ArenaPlan
from lanearena.dialects import arena, lane
from lanearena.dialects.located import where
from lanearena.model import QBLOCK, Step
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
        problems = [p for step_op in steps(op) for p in step_problems(step_op, self.qblock)[2]]
        if problems:
            raise _failure(problems)


def step_problems(step_op: lane.StepOp, qblock: int = QBLOCK) -> tuple[Step, ArenaPlan | None, list[str]]:
    """The step `step_op` is, its placement read back (None where it is not placed), and every problem of that
    placement, each located at its op: the step read from its IR once, for the checks and for whoever lowers it."""
    name = step_op.sym_name.data
    step, _ = step_of(step_op)
    plan = plan_of(step_op, qblock, step)
    if plan is None:
        unplaced = f"{where(step_op)}lane.step @{name}: not placed (no arena.alloc); run lane-arena-place first"
        return step, None, [unplaced]
    at = _ops_by_subject(step_op)
    return step, plan, [f"{where(at.get(p.subject, step_op))}lane.step @{name}: {p}" for p in check(step, plan, qblock)]


def verified(step_op: lane.StepOp, qblock: int = QBLOCK) -> tuple[Step, ArenaPlan]:
    """The step `step_op` is and its placement, where `lane-arena-verify` accepts it; else a `DiagnosticException`
    with every problem, located. What every lowering of a placed step starts with."""
    step, plan, problems = step_problems(step_op, qblock)
    if problems or plan is None:
        raise _failure(problems)
    return step, plan


def _failure(problems: list[str]) -> DiagnosticException:
    return DiagnosticException("lane-arena-verify failed:\n" + "\n".join(f"  {p}" for p in problems))


def _ops_by_subject(step_op: lane.StepOp) -> dict[Subject, Operation]:
    """The op each subject of a problem is written in: a placed array's `arena.tensor`, a scratch's
    `arena.scratch`, a launch."""
    out: dict[Subject, Operation] = {}
    launch = 0
    for c in step_op.body.block.ops:
        if isinstance(c, arena.TensorOp):
            for form in c.offsets:
                out[("array", c.tensor_name, form)] = c
        elif isinstance(c, lane.LaunchOp):
            out[("launch", launch)] = c
            for b in c.buffers:
                if isinstance(b.owner, arena.ScratchOp):
                    out[("scratch", launch, b.owner.tag.data)] = b.owner
            launch += 1
    return out
