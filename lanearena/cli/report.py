"""`lanearena report STEP.mlir [-o FILE.svg|.png]`: prints a placed step's arena as a table and draws it (the step
is placed first when it is not yet)."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from lanearena import api, arena_report
from lanearena.analysis.plan import ArenaPlan
from lanearena.cli.budget import add_algorithm, add_flags, placing
from lanearena.cli.progress import Progress
from lanearena.errors import UserError
from lanearena.files import display_name, write_output
from lanearena.passes.convert import plan_of, steps


def register(sub) -> None:
    p = sub.add_parser(
        "report",
        help="print a step's arena as a table and draw it (launches along x, arena bytes along y)",
        description="Prints each step's arena (its size, lower bound, bytes without reuse, peak launch, largest "
        "items, buffers kept outside) and, with -o, draws it as SVG or PNG (needs matplotlib: "
        "pip install '.[plot]').",
    )
    p.add_argument("input", help="a .mlir file holding lane.step ops, placed or not, - for standard input")
    p.add_argument("-o", "--output", metavar="FILE", help="the picture to write: a .svg or .png file")
    p.add_argument("--step", help="the step to report, by name (needed with -o where the file holds several)")
    p.add_argument(
        "--launches",
        type=launch_range,
        metavar="A:B",
        help="list launches A to B-1 (a Python slice: A: to the last, :B from the first; A alone: that launch), "
        "each with the arena bytes live and the items starting there, and the largest items live in them",
    )
    add_algorithm(p, unplaced_only=True)
    add_flags(p)
    p.set_defaults(func=run)


def run(args) -> int:
    fmt = _format(args.output) if args.output else None
    if fmt is not None:
        _need_matplotlib()
    module = api.parse_file(args.input)
    if any(plan_of(s) is None for s in steps(module)):
        show = Progress()
        api.place(module, placing(args, show))
        show.close()
    name = display_name(args.input)
    chosen = [(step, _placed(plan)) for step, plan in api.placed_steps(module) if args.step in (None, step.name)]
    if not chosen:
        raise UserError(f"{name}: no lane.step" + (f" @{args.step}" if args.step else ""))
    if fmt is not None and len(chosen) > 1:
        raise UserError(f"{name}: holds {len(chosen)} steps; choose the one to draw with --step NAME")
    tables = []
    for step, plan in chosen:
        window = None
        if args.launches is not None:
            try:
                window = arena_report.window_of(step, *args.launches)
            except ValueError as e:
                raise UserError(f"{name}: --launches: {e}") from None
        tables.append(arena_report.table(step, plan, window))
    print("\n".join(tables), end="")
    if fmt is not None:
        step, plan = chosen[0]
        write_output(args.output, arena_report.picture(step, plan, fmt))
    return 0


def launch_range(text: str) -> tuple[int | None, int | None]:
    """`A:B` (either left out) or `A` as a slice's bounds, as argparse's own error (exit code 2) when it is
    neither."""
    match = re.fullmatch(r"\s*(\d*)\s*(:?)\s*(\d*)\s*", text)
    if match is None or not (match[1] or match[3]) or (not match[2] and not match[1]):
        raise argparse.ArgumentTypeError(f"'{text}' is not a range of launches A:B (A and B launch indices)")
    start = int(match[1]) if match[1] else None
    if not match[2]:
        return start, None if start is None else start + 1
    return start, int(match[3]) if match[3] else None


def _format(path: str) -> str:
    """The picture format `path` asks for by its suffix."""
    fmt = Path(path).suffix.lower().lstrip(".")
    if fmt not in arena_report.FORMATS:
        raise UserError(f"{path}: the picture must be a {' or '.join('.' + f for f in arena_report.FORMATS)} file")
    return fmt


def _need_matplotlib() -> None:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise UserError("drawing needs matplotlib: pip install '.[plot]'") from None


def _placed(plan: ArenaPlan | None) -> ArenaPlan:
    assert plan is not None  # every step is placed before it is reported
    return plan
