"""The `lanearena` command. Each subcommand lives in its own module with a `register(subparsers)` that adds its
parser (a one-line `help` and a `description`) and sets `func` to the function that runs it; `main` turns a
`UserError` into one line and exit code 2, and any other error into one line and exit code 70 (its traceback only
with --debug)."""

import argparse
import importlib
import importlib.metadata
import os
import sys

from lanearena.errors import UserError

SUBCOMMANDS = ("run", "build", "place", "compile", "solve", "report", "models", "profile")

DESCRIPTION = """\
Places every array that lives only inside one step of a model (a decode step, a prefill chunk) into one
arena by lifetime, so that arrays whose lives do not overlap share bytes; checks the placement; lowers the
placed step to PTX kernel launches and runs it, on a GPU with PyCUDA, else on a numpy runtime that executes
the kernels' semantics over the same arena bytes."""

EPILOG = """\
examples:
  lanearena run                          build, place, lower and run the embedded tiny decoder step
  lanearena build qwen3-0.6b -o s.mlir   a shipped config's decode step as MLIR
  lanearena place s.mlir --json          place it and print the placement as JSON
  lanearena build tiny | lanearena place -   (- reads standard input wherever a file is read)

`lanearena COMMAND --help` describes each command. Bad input is one located message and exit code 2."""


def version() -> str:
    """The installed distribution's version, as pip installed it."""
    try:
        return importlib.metadata.version("lanearena")
    except importlib.metadata.PackageNotFoundError:  # run from a source tree that pip never installed
        return "unknown (not installed)"


def parser(only: str | None = None) -> argparse.ArgumentParser:
    """The command line of `lanearena`, with every subcommand whose module is present; only `only`'s when it names
    one (the other modules load xDSL and numpy, half a second that `solve` need not wait for)."""
    p = argparse.ArgumentParser(
        prog="lanearena",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--version", action="version", version=f"%(prog)s {version()}")
    p.add_argument("--debug", action="store_true", help="show Python tracebacks on errors")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in SUBCOMMANDS:
        if only in SUBCOMMANDS and name != only:
            continue
        try:
            module = importlib.import_module(f"lanearena.cli.{name}")
        except ModuleNotFoundError as e:
            if e.name != f"lanearena.cli.{name}":
                raise
            continue
        module.register(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = parser(next((a for a in argv if not a.startswith("-")), None)).parse_args(argv)
    try:
        return args.func(args) or 0
    except UserError as e:
        if args.debug:
            raise
        print(f"lanearena {args.command}: error: {e}", file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt:
        print(f"lanearena {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away (`| head`): nothing more to say to it
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except Exception as e:  # a bug of ours: one line, and the traceback on --debug
        if args.debug:
            raise
        print(
            f"lanearena {args.command}: internal error: {type(e).__name__}: {e} (--debug shows the traceback)",
            file=sys.stderr,
        )
        return 70


if __name__ == "__main__":
    sys.exit(main())
