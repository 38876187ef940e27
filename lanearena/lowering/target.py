"""`xdsl-opt -t lane-pycuda`: a placed step's module (see `emit`), as a target of xdsl-opt."""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.exceptions import DiagnosticException
from xdsl.utils.target import Target

from lanearena.errors import UserError
from lanearena.lowering.compile import placed
from lanearena.model import QBLOCK


def lower_module(module: ModuleOp, qblock: int = QBLOCK) -> str:
    """The Python module that runs the one placed step of `module`, once `lane-arena-verify` accepts its placement:
    a wrong one is a `UserError` with every problem, located (see `compile.placed`). It carries the PTX of the
    kernels it launches, so that it runs on a GPU where only a driver is."""
    return placed(module, qblock).source(embed_ptx=True)


@dataclass(frozen=True)
class LanePycuda(Target):
    """Writes the placed step as a Python module launching the PTX kernels over its arena."""

    name = "lane-pycuda"

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        try:
            output.write(lower_module(module))
        except UserError as e:
            raise DiagnosticException(str(e)) from e
