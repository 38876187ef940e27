"""A placed step as the lowering takes it: the one `lane.step` of a module, verified as `lane-arena-verify` verifies
it and read from its IR once (`placed`), lowered once (`Placed.lowered`) and, for the reference run, lowered again
with nothing shared (`Placed.unshared`, another layout of the same launches); its printed module's source."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import cached_property

from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.exceptions import DiagnosticException

from lanearena import options
from lanearena.analysis.plan import ArenaPlan
from lanearena.dialects import lane
from lanearena.errors import UserError
from lanearena.limits import oversized
from lanearena.lowering.codegen.emit import emit
from lanearena.lowering.codegen.lower import lower
from lanearena.lowering.codegen.lowered import Lowered
from lanearena.model import QBLOCK, Step, aligned
from lanearena.passes.convert import alloc_of, steps
from lanearena.passes.verify import verified


@dataclass(frozen=True)
class Placed:
    """A placed `lane.step` that `lane-arena-verify` accepts, with the step and arena read from its IR: what the
    lowering takes (make one with `placed`)."""

    op: lane.StepOp
    step: Step
    plan: ArenaPlan
    qblock: int = QBLOCK

    @cached_property
    def lowered(self) -> Lowered:
        """The step lowered as its IR places it."""
        return lower(self.op, self.step, self.plan, self.qblock)

    @cached_property
    def unshared(self) -> Lowered:
        """The same launches lowered with every arena array and scratch at bytes of its own: the reference a
        placement must match."""
        return lower(self.op, self.step, unshared_plan(self.plan), self.qblock)

    def source(self, embed_ptx: bool = False) -> str:
        """The Python module that runs the step as its IR places it (carrying its kernels' PTX where `embed_ptx`:
        what `-t lane-pycuda` prints)."""
        return emit(self.lowered, embed_ptx)


def placed(module: ModuleOp | lane.StepOp, qblock: int = QBLOCK) -> Placed:
    """The one `lane.step` of `module` (or the step `module` is), placed and verified as `lane-arena-verify` does;
    a `UserError` with every problem, located, where it is not one step, not placed, or placed wrongly."""
    if isinstance(module, lane.StepOp):
        op = module
    else:
        found = steps(module)
        if len(found) != 1:
            raise UserError(f"lane-pycuda lowers one lane.step a module, found {len(found)}")
        (op,) = found
    if problems := oversized(op):
        raise UserError("\n".join(problems))
    alloc = alloc_of(op)
    if alloc is None:
        raise UserError(f"lane.step @{op.sym_name.data} is not placed: run lane-arena-place first")
    try:
        options.align(alloc.align.value.data, "arena.alloc's align")
        options.qblock(qblock)
    except options.OptionError as e:
        raise UserError(f"lane.step @{op.sym_name.data}: {e}") from None
    try:
        step, plan = verified(op, qblock)
    except DiagnosticException as e:
        raise UserError(str(e)) from None
    return Placed(op, step, plan, qblock)


def unshared_plan(plan: ArenaPlan) -> ArenaPlan:
    """`plan` with every array and scratch at bytes of its own: the reference that a placement must match."""
    offset, arrays, scratch = 0, [], []
    for a in plan.arrays:
        arrays.append(dataclasses.replace(a, offset=offset))
        offset += aligned(a.bytes, plan.align)
    for s in plan.scratch:
        scratch.append(dataclasses.replace(s, offset=offset))
        offset += aligned(s.bytes, plan.align)
    return dataclasses.replace(plan, bytes=offset, arrays=arrays, scratch=scratch, algorithm="unshared")
