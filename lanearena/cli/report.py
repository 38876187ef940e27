"""`lanearena report STEP.mlir [-o FILE.svg|.png]`: prints a placed step's arena as a table and draws it (the step
is placed first when it is not yet)."""

from __future__ import annotations

from pathlib import Path

from lanearena import api, placement, report
from lanearena.analysis.plan import ArenaPlan
from lanearena.cli.budget import add_flags
from lanearena.cli.io import write_output
from lanearena.cli.progress import Progress
from lanearena.errors import UserError
from lanearena.passes.convert import plan_of, steps


def register(sub) -> None:
    p = sub.add_parser(
        "report",
        help="print a step's arena as a table and draw it (launches along x, arena bytes along y)",
        description="Prints each step's arena (its size, lower bound, bytes without reuse, peak launch, largest "
        "items, buffers kept outside) and, with -o, draws it as SVG or PNG (needs matplotlib: "
        "pip install -e '.[plot]').",
    )
    p.add_argument("input", help="a .mlir file holding lane.step ops, placed or not")
    p.add_argument("-o", "--output", metavar="FILE", help="the picture to write: a .svg or .png file")
    p.add_argument("--step", help="the step to report, by name (needed with -o where the file holds several)")
    p.add_argument(
        "--algorithm",
        default="best",
        choices=placement.ALGORITHMS,
        help="the placement, where the step is not placed yet",
    )
    add_flags(p)
    p.set_defaults(func=run)


def run(args) -> int:
    fmt = _format(args.output) if args.output else None
    if fmt is not None:
        _need_matplotlib()
    module = api.parse_file(args.input)
    if any(plan_of(s) is None for s in steps(module)):
        show = Progress()
        api.place(module, args.algorithm, time_limit=args.time_limit, work=args.work, progress=show)
        show.close()
    chosen = [(step, _placed(plan)) for step, plan in api.placed_steps(module) if args.step in (None, step.name)]
    if not chosen:
        raise UserError(f"{args.input}: no lane.step" + (f" @{args.step}" if args.step else ""))
    if fmt is not None and len(chosen) > 1:
        raise UserError(f"{args.input}: holds {len(chosen)} steps; choose the one to draw with --step NAME")
    print("\n".join(report.table(step, plan) for step, plan in chosen), end="")
    if fmt is not None:
        step, plan = chosen[0]
        write_output(args.output, report.picture(step, plan, fmt))
    return 0


def _format(path: str) -> str:
    """The picture format `path` asks for by its suffix."""
    fmt = Path(path).suffix.lower().lstrip(".")
    if fmt not in report.FORMATS:
        raise UserError(f"{path}: the picture must be a {' or '.join('.' + f for f in report.FORMATS)} file")
    return fmt


def _need_matplotlib() -> None:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise UserError("drawing needs matplotlib: pip install -e '.[plot]'") from None


def _placed(plan: ArenaPlan | None) -> ArenaPlan:
    assert plan is not None  # every step is placed before it is reported
    return plan
