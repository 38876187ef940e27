"""`lanearena solve --input P.csv --output S.csv`: the placement over MiniMalloc's CSV; the last line printed is
`height=N lower_bound=M`."""

from __future__ import annotations

import sys
import time

from lanearena import placement
from lanearena.cli.budget import add_algorithm, add_flags
from lanearena.cli.progress import Progress
from lanearena.errors import UserError
from lanearena.files import write_output
from lanearena.placement.csvio import read_buffers, solution_text


def register(sub) -> None:
    p = sub.add_parser(
        "solve",
        help="place buffers given in MiniMalloc's CSV (id,lower,upper,size)",
        description="Places the buffers of a CSV in MiniMalloc's format (id,lower,upper,size; each buffer lives over "
        "[lower, upper)) so that no two live at once share a byte, writes the CSV back with an offset column, and "
        "prints `height=N lower_bound=M` on its last line.",
    )
    p.add_argument(
        "--input", required=True, help="CSV: id,lower,upper,size (lives [lower, upper)), - for standard input"
    )
    p.add_argument("--output", required=True, help="the CSV to write, with an offset column (- for standard output)")
    p.add_argument(
        "--capacity", type=int, metavar="BYTES", help="search until the height is at most BYTES; fail if not found"
    )
    add_algorithm(p)
    p.add_argument("--alignment", type=int, default=1, help="every offset a multiple of this (default 1)")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    p.add_argument(
        "--timings", action="store_true", help="print the seconds of each phase (read, place, check, write) on stderr"
    )
    add_flags(p)
    p.set_defaults(func=run)


def run(args) -> int:
    start = time.perf_counter()
    buffers = read_buffers(args.input)
    timings = {"read": time.perf_counter() - start}
    show = Progress(args.quiet)
    show(f"placing {len(buffers)} buffers")
    try:
        result = placement.place(
            buffers,
            args.algorithm,
            alignment=args.alignment,
            time_limit=args.time_limit,
            work=args.work,
            capacity=args.capacity,
            progress=show,
            timings=timings,
        )
    except placement.PlacementError as e:
        raise UserError(f"{args.input}: {e}") from None
    finally:
        show.close()
    writing = time.perf_counter()
    write_output(args.output, solution_text(buffers, result.offsets))
    timings["write"] = time.perf_counter() - writing
    if args.timings:
        print(" ".join(f"{phase}={seconds:.3f}" for phase, seconds in timings.items()), file=sys.stderr)
    print(f"algorithm={result.algorithm}")
    print(f"height={result.height} lower_bound={result.lower_bound}")
    return 0
