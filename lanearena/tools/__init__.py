"""Command-line drivers for standard MLIR files: `lanearena-opt` (xdsl-opt with lanearena's dialects and passes and
located errors) and `lanearena-run` (xdsl-run over byte-backed memrefs)."""

import argparse

from lanearena.files import STDIN


def read_stdin_for_dash(args: argparse.Namespace) -> None:
    """Makes the input file `-` standard input, as in the `lanearena` commands (xDSL's tools read standard input when
    no file is given, and would look for a file named `-`)."""
    if args.input_file == STDIN:
        args.input_file = None
