"""The Python API for embedding lanearena in a larger compiler pipeline: parse or build a module, place and verify
its steps, read back the plan, lower a placed step and run it. Errors in user input come back as `UserError` with
the file and line.

Lowering and running: `placed(module)` verifies the module's one placed step and reads it once (a `Placed`);
`lower_module(module)` is its Python module's source with its kernels' PTX (`placed(module).source(embed_ptx=True)`,
what `-t lane-pycuda` writes);
`run(step, new_device(), random_feeds(step.step))` its outputs; `compare(step)` a run against the run in which no
two arrays share bytes; `load(source)` the module a source defines."""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from xdsl.context import Context
from xdsl.dialects.builtin import Builtin, ModuleOp
from xdsl.ir import Dialect
from xdsl.utils.exceptions import DiagnosticException, ParseError

from lanearena.analysis.plan import ArenaPlan
from lanearena.dialects.arena import ARENA
from lanearena.dialects.lane import LANE
from lanearena.errors import UserError
from lanearena.files import display_name, read_text
from lanearena.model import QBLOCK, Step
from lanearena.options import DEFAULT_PLACING, PlaceOptions
from lanearena.passes.arena_place import place_module
from lanearena.passes.convert import plan_of, step_of, steps
from lanearena.passes.verify import LaneArenaVerify
from lanearena.plugins import outside_dialects
from lanearena.tools.diagnose import LocatedDiagnostic, located_message, parse_located, verify_located

if TYPE_CHECKING:
    from lanearena.lowering.compile import Comparison, Placed, compare, new_device, placed, run
    from lanearena.lowering.runtime import load, random_feeds
    from lanearena.lowering.target import lower_module

_LOWERING = {
    **dict.fromkeys(("Comparison", "Placed", "compare", "new_device", "placed", "run"), "lanearena.lowering.compile"),
    **dict.fromkeys(("load", "random_feeds"), "lanearena.lowering.runtime"),
    "lower_module": "lanearena.lowering.target",
}
"""The lowering's names the API gives, by the module that defines them: imported when first asked for, so that
placing alone loads no numpy."""


def __getattr__(name: str):
    if name not in _LOWERING:
        raise AttributeError(f"module 'lanearena.api' has no attribute '{name}'")
    return getattr(importlib.import_module(_LOWERING[name]), name)


def context(*dialects: Dialect) -> Context:
    """A context with the builtin, `lane` and `arena` dialects loaded, the dialects of the `lanearena.kinds`
    entry-point group (`plugins`), and `dialects` (the kinds of a model compiler of its own, say)."""
    ctx = Context()
    found = [d for d in outside_dialects() if d.name not in {g.name for g in dialects}]
    for d in (Builtin, LANE, ARENA, *found, *dialects):
        ctx.load_dialect(d)
    return ctx


def parse(text: str, name: str = "<input>", dialects: Sequence[Dialect] = ()) -> ModuleOp:
    """The module `text` holds (in the builtin, `lane`, `arena` and `dialects` dialects), verified; a parse or
    verification error is a `UserError` that starts with the `file:line:col` of the op at fault (`name` and the
    line)."""
    try:
        module = parse_located(context(*dialects), text, name)
        verify_located(module)
    except (ParseError, LocatedDiagnostic) as e:
        at, message = located_message(e, name)
        raise UserError(f"{at}: {message}") from e
    return module


def parse_file(path: str | Path) -> ModuleOp:
    """The module in file `path`, or on standard input where `path` is `-` (see `parse`)."""
    return parse(read_text(path), display_name(path))


def place(module: ModuleOp, options: PlaceOptions = DEFAULT_PLACING) -> ModuleOp:
    """Runs `lane-arena-place` on `module` in place, as `options` say, and returns it."""
    try:
        place_module(module, options)
    except DiagnosticException as e:
        raise UserError(str(e)) from e
    return module


def verify(module: ModuleOp, qblock: int = QBLOCK) -> None:
    """Runs `lane-arena-verify` on `module`; every problem is in the `UserError`'s message."""
    try:
        LaneArenaVerify(qblock).apply(context(), module)
    except DiagnosticException as e:
        raise UserError(str(e)) from e


def placed_steps(module: ModuleOp, qblock: int = QBLOCK) -> list[tuple[Step, ArenaPlan | None]]:
    """Each step of `module` as plain data, with its arena where it has been placed."""
    out = []
    for op in steps(module):
        step, _ = step_of(op)
        out.append((step, plan_of(op, qblock, step)))
    return out


__all__ = [
    "Comparison",
    "PlaceOptions",
    "Placed",
    "compare",
    "context",
    "load",
    "lower_module",
    "new_device",
    "parse",
    "parse_file",
    "place",
    "placed",
    "placed_steps",
    "random_feeds",
    "run",
    "verify",
]
