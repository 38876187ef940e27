"""The Python API for embedding lanearena in a larger compiler pipeline: parse or build a module, place and verify
its steps, read back the plan. Errors in user input come back as `UserError` with the file and line."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from xdsl.context import Context
from xdsl.dialects.builtin import Builtin, ModuleOp
from xdsl.parser import Parser
from xdsl.utils.exceptions import DiagnosticException, ParseError

from lanearena.analysis.plan import ArenaPlan
from lanearena.dialects.arena import ARENA
from lanearena.dialects.lane import LANE
from lanearena.errors import UserError
from lanearena.files import read_text
from lanearena.model import ALIGN, QBLOCK, Step
from lanearena.passes.convert import plan_of, step_of, steps
from lanearena.passes.place import place_module
from lanearena.passes.verify import LaneArenaVerify


def context() -> Context:
    """A context with the builtin, `lane` and `arena` dialects loaded."""
    ctx = Context()
    for d in (Builtin, LANE, ARENA):
        ctx.load_dialect(d)
    return ctx


def parse(text: str, name: str = "<input>") -> ModuleOp:
    """The module `text` holds, verified; a parse or verification error is a `UserError` naming `name` and the
    line."""
    try:
        module = Parser(context(), text, name).parse_module()
        module.verify()
    except ParseError as e:
        lines = e.msg.strip().splitlines()
        raise UserError(f"{e.span.get_location()}: {lines[0] if lines else 'malformed input'}") from e
    except DiagnosticException as e:
        message = _first_line(e)  # verifier messages start with the op's file:line:col
        raise UserError(message if message.startswith(f"{name}:") else f"{name}: {message}") from e
    return module


def parse_file(path: str | Path) -> ModuleOp:
    """The module in file `path` (see `parse`)."""
    return parse(read_text(path), str(path))


def _first_line(e: Exception) -> str:
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__


def place(
    module: ModuleOp,
    algorithm: str = "best",
    align: int = ALIGN,
    qblock: int = QBLOCK,
    time_limit: float | None = None,
    progress: Callable[[str], None] | None = None,
    work: int | None = None,
) -> ModuleOp:
    """Runs `lane-arena-place` on `module` in place and returns it; `progress` is shown lines of a long search;
    `work` and `time_limit` bound the search as in `placement.place`."""
    try:
        place_module(module, algorithm, align, qblock, time_limit, progress, work)
    except DiagnosticException as e:
        raise UserError(str(e)) from e
    return module


def verify(module: ModuleOp, qblock: int = QBLOCK) -> None:
    """Runs `lane-arena-verify` on `module`; every problem is in the `UserError`'s message."""
    try:
        LaneArenaVerify(qblock).apply(context(), module)
    except DiagnosticException as e:
        raise UserError(str(e)) from e


def placed_steps(module: ModuleOp) -> list[tuple[Step, ArenaPlan | None]]:
    """Each step of `module` as plain data, with its arena where it has been placed."""
    return [(step_of(op)[0], plan_of(op)) for op in steps(module)]
