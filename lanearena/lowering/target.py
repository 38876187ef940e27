"""`xdsl-opt -t lane-pycuda`: a placed step's module (see `emit`), as a target of xdsl-opt."""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.exceptions import DiagnosticException
from xdsl.utils.target import Target

from lanearena import options
from lanearena.errors import UserError
from lanearena.limits import oversized
from lanearena.lowering.emit import emit
from lanearena.model import QBLOCK
from lanearena.passes.convert import alloc_of, steps
from lanearena.passes.verify import verified


def lower_module(module: ModuleOp, qblock: int = QBLOCK) -> str:
    """The Python module that runs the one placed step of `module`, once `lane-arena-verify` accepts its placement:
    a wrong one is a `UserError` with every problem, located."""
    found = steps(module)
    if len(found) != 1:
        raise UserError(f"lane-pycuda lowers one lane.step a module, found {len(found)}")
    if problems := oversized(found[0]):
        raise UserError("\n".join(problems))
    alloc = alloc_of(found[0])
    if alloc is None:
        raise UserError(f"lane.step @{found[0].sym_name.data} is not placed: run lane-arena-place first")
    try:
        options.align(alloc.align.value.data, "arena.alloc's align")
        options.qblock(qblock)
    except options.OptionError as e:
        raise UserError(f"lane.step @{found[0].sym_name.data}: {e}") from None
    try:
        verified(found[0], qblock)
    except DiagnosticException as e:
        raise UserError(str(e)) from None
    return emit(found[0], qblock)


@dataclass(frozen=True)
class LanePycuda(Target):
    """Writes the placed step as a Python module launching the PTX kernels over its arena."""

    name = "lane-pycuda"

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        try:
            output.write(lower_module(module))
        except UserError as e:
            raise DiagnosticException(str(e)) from e
