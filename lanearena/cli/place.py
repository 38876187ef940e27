"""`lanearena place STEP.mlir`: runs `lane-arena-place` (and the independent check) and writes the placed step, or
with `--json` the placement read back from the placed IR."""

from __future__ import annotations

import json
import sys

from lanearena import api
from lanearena.cli.budget import add_algorithm, add_flags, placing
from lanearena.cli.progress import Progress
from lanearena.files import write_output
from lanearena.passes.convert import alloc_of, steps


def register(sub) -> None:
    p = sub.add_parser(
        "place",
        help="place a step's arrays in its arena (lane-arena-place, then lane-arena-verify)",
        description="Runs lane-arena-place on every lane.step of a .mlir file, then lane-arena-verify, and writes the "
        "placed steps; prints each step's arena bytes, lower bound and algorithm on stderr. A placed step is left as "
        "it is. With --json, prints the placement read back from the placed IR instead.",
    )
    p.add_argument("input", help="a .mlir file holding lane.step ops (placed already or not), - for standard input")
    p.add_argument("-o", "--output", help="where to write the placed step (default: stdout, but not with --json)")
    add_algorithm(p)
    add_flags(p)
    p.add_argument("--json", action="store_true", help="print the placement of every step as JSON on stdout")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    p.add_argument("--no-verify", action="store_true", help="skip lane-arena-verify on the result")
    p.set_defaults(func=run)


def run(args) -> int:
    module = api.parse_file(args.input)
    show = Progress(args.quiet)
    api.place(module, placing(args, show))
    show.close()
    if not args.no_verify:
        api.verify(module)
    if args.json:
        if args.output:
            write_output(args.output, str(module) + "\n")
        records = []
        for step, plan in api.placed_steps(module):
            assert plan is not None  # api.place has placed every step (or found it placed)
            records.append(plan.record(step.name))
        print(placement_json(records))
        return 0
    write_output(args.output, str(module) + "\n")
    for step_op in steps(module):
        a = alloc_of(step_op)
        assert a is not None  # api.place has placed every step (or found it placed)
        print(
            f"@{step_op.sym_name.data}: arena_bytes={a.nbytes.value.data} lower_bound={a.lower_bound.value.data} "
            f"algorithm={a.algorithm.data}",
            file=sys.stderr,
        )
    return 0


def placement_json(records: list[dict]) -> str:
    """`records` as a JSON array, one step object after another, each array, scratch, counter and own buffer on a
    line of its own."""
    lines = ["["]
    for k, r in enumerate(records):
        lines.append("  {")
        lines.append(
            "    "
            + ", ".join(
                f"{json.dumps(key)}: {json.dumps(r[key])}"
                for key in ("step", "arena_bytes", "lower_bound", "algorithm")
            )
            + ","
        )
        lists = ("arrays", "scratch", "counters", "own")
        for key in lists:
            end = "," if key != lists[-1] else ""
            items = [json.dumps(item) for item in r[key]]
            if not items:
                lines.append(f"    {json.dumps(key)}: []{end}")
                continue
            lines.append(f"    {json.dumps(key)}: [")
            lines += [f"      {item}{',' if i < len(items) - 1 else ''}" for i, item in enumerate(items)]
            lines.append(f"    ]{end}")
        lines.append("  }" + ("," if k < len(records) - 1 else ""))
    lines.append("]")
    return "\n".join(lines)
