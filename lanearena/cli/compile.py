"""`lanearena compile STEP.mlir -o step.py`: the Python module that runs a step's launches over its arena (the
step is placed first when it is not yet)."""

from __future__ import annotations

from lanearena import api, placement
from lanearena.cli.io import write_output
from lanearena.lowering.target import lower_module


def register(sub) -> None:
    p = sub.add_parser("compile", help="lower a step to a Python module launching PTX kernels (lane-pycuda)")
    p.add_argument("input", help="a .mlir file holding one lane.step, placed or not")
    p.add_argument("-o", "--output", help="the .py file to write (default: stdout)")
    p.add_argument(
        "--algorithm",
        default="best",
        choices=placement.ALGORITHMS,
        help="the placement, where the step is not placed yet",
    )
    p.set_defaults(func=run)


def run(args) -> int:
    module = api.parse_file(args.input)
    api.place(module, args.algorithm)  # the steps not placed yet; the lowering verifies every placement
    write_output(args.output, lower_module(module))
    return 0
