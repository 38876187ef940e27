"""`lanearena place STEP.mlir`: runs `lane-arena-place` (and the independent check) and writes the placed step."""

from __future__ import annotations

import sys

from lanearena import api, placement
from lanearena.cli.budget import add_flags
from lanearena.cli.io import write_output
from lanearena.cli.progress import Progress


def register(sub) -> None:
    p = sub.add_parser("place", help="place a step's arrays in its arena (lane-arena-place)")
    p.add_argument("input", help="a .mlir file holding lane.step ops")
    p.add_argument("-o", "--output", help="where to write the placed step (default: stdout)")
    p.add_argument("--algorithm", default="best", choices=placement.ALGORITHMS)
    add_flags(p)
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    p.add_argument("--no-verify", action="store_true", help="skip lane-arena-verify on the result")
    p.set_defaults(func=run)


def run(args) -> int:
    module = api.parse_file(args.input)
    show = Progress(args.quiet)
    api.place(module, args.algorithm, time_limit=args.time_limit, work=args.work, progress=show)
    show.close()
    if not args.no_verify:
        api.verify(module)
    write_output(args.output, str(module) + "\n")
    for step, plan in api.placed_steps(module):
        print(f"@{step.name}: arena_bytes={plan.bytes} lower_bound={plan.lower_bound} algorithm={plan.algorithm}",
              file=sys.stderr)
    return 0
