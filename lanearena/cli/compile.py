"""`lanearena compile STEP.mlir -o step.py`: the Python module that runs a step's launches over its arena (the
step is placed first when it is not yet)."""

from __future__ import annotations

from lanearena import api
from lanearena.cli.budget import add_algorithm, placing
from lanearena.files import write_output
from lanearena.lowering.target import lower_module


def register(sub) -> None:
    p = sub.add_parser(
        "compile",
        help="lower a step to a Python module launching PTX kernels (lane-pycuda)",
        description="Places the step where it is not placed yet, verifies the placement, and writes the Python module "
        "that loads the step's PTX kernels and launches them over its arena (what xdsl-opt -t lane-pycuda writes).",
    )
    p.add_argument("input", help="a .mlir file holding one lane.step, placed or not, - for standard input")
    p.add_argument("-o", "--output", help="the .py file to write (default: stdout)")
    add_algorithm(p, unplaced_only=True)
    p.set_defaults(func=run)


def run(args) -> int:
    module = api.parse_file(args.input)
    api.place(module, placing(args))  # the steps not placed yet; the lowering verifies every placement
    write_output(args.output, lower_module(module))
    return 0
