"""The flags that choose and bound the placement, shared by `lanearena solve`, `place`, `run`, `compile` and
`report`: `--algorithm`, `--work` (counted, so the result is the same on any machine) and `--time-limit` (seconds,
an extra bound on the whole placement), checked as `options` checks the pass's."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from lanearena import options, placement


def work(text: str) -> int:
    """A work budget (see `options.work`), as argparse's own error (exit code 2) when it is none."""
    try:
        value = options.work(int(text), "--work")
    except options.OptionError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not an integer") from None
    assert value is not None
    return value


def placing(args: argparse.Namespace, progress: Callable[[str], None] | None = None) -> options.PlaceOptions:
    """The placement's options the flags give (`--algorithm`, and `--work` and `--time-limit` where the command has
    them), with `progress` shown lines of a long search."""
    time_limit, work = getattr(args, "time_limit", None), getattr(args, "work", None)
    return options.PlaceOptions(args.algorithm, time_limit=time_limit, work=work, progress=progress)


def add_flags(p: argparse.ArgumentParser) -> None:
    """Adds `--work` and `--time-limit` to `p`."""
    p.add_argument(
        "--work",
        type=work,
        default=None,
        help="work of the default algorithm's search (counted, so the result does not depend on the "
        "machine; default 8000000 when no --time-limit is given)",
    )
    p.add_argument(
        "--time-limit",
        type=options.cli_seconds,
        default=None,
        help="seconds the whole placement may take at most (default: none)",
    )


ALGORITHM_HELP = (
    "the placement algorithm: best (the default: every greedy order, then searches toward the lower bound), "
    "greedy (the reference's: largest first, each at the lowest offset free), best-fit (the same order, each in "
    "the tightest gap), portfolio (every greedy order and fit, the lowest)"
)


def add_algorithm(p: argparse.ArgumentParser, unplaced_only: bool = False) -> None:
    """Adds `--algorithm` to `p`; `unplaced_only` where it places only the steps that are not placed yet."""
    when = "; used where a step is not placed yet" if unplaced_only else ""
    p.add_argument("--algorithm", default="best", choices=placement.ALGORITHMS, help=ALGORITHM_HELP + when)
