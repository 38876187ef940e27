"""`lanearena build`: writes the `lane.step` of a decoder config as `.mlir`."""

from __future__ import annotations

import argparse
import io

from xdsl.dialects.builtin import ModuleOp
from xdsl.printer import Printer

from lanearena.cli.config import add_settings, config_of
from lanearena.files import write_output
from lanearena.frontend.configs import CONFIGS
from lanearena.frontend.decoder import decoder_step


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "build",
        help="write a decoder config's step as .mlir",
        description=f"Writes the lane.step of a decoder config as .mlir, not placed yet (lanearena place places "
        f"it). Shipped configs: {', '.join(CONFIGS)}.",
    )
    p.add_argument(
        "config",
        nargs="?",
        default="tiny",
        help="a shipped config's name, a JSON file of config keys or a Hugging Face config.json, - for standard "
        "input (default: tiny)",
    )
    p.add_argument("-o", "--output", help="the .mlir file to write (default: standard output)")
    add_settings(p, "rows=8")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    write_output(args.output, mlir_text(decoder_step(config_of(args.config, args.settings))))
    return 0


def mlir_text(module: ModuleOp) -> str:
    """`module` as `xdsl-opt` prints it."""
    out = io.StringIO()
    Printer(stream=out).print_op(module)
    out.write("\n")
    return out.getvalue()
