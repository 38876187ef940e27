"""What `lane-arena-place` adds to xdsl-opt's own parse, verify and print of a step: the 17-line example
(`examples/decode.mlir`) and a real decode step (`lanearena build qwen3-0.6b`), each through `xdsl-opt` with and
without the pass as whole processes (start-up and imports included), runs alternating so that both see the same
machine load; then, in one process, the pass's own work apart from the placement's (`placement.place`). Prints
tables of medians.

    python bench/parse_cost.py [--config qwen3-0.6b] [--runs 7]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from lanearena import api, placement
from lanearena.analysis.arena_problem import problem
from lanearena.passes.arena_place import place_module
from lanearena.passes.convert import step_of, steps

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "decode.mlir"


def run(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def processes(files: dict[str, Path], runs: int) -> None:
    """`xdsl-opt FILE` against `xdsl-opt FILE -p lane-arena-place`, alternating, for each file."""
    print("| file | xdsl-opt (parse, verify, print) | with -p lane-arena-place | ratio |")
    print("|---|---|---|---|")
    for name, path in files.items():
        plain, placed = [], []
        for _ in range(runs):
            plain.append(run(["xdsl-opt", str(path)]))
            placed.append(run(["xdsl-opt", str(path), "-p", "lane-arena-place"]))
        a, b = statistics.median(plain), statistics.median(placed)
        ratios = statistics.median(p / q for p, q in zip(placed, plain, strict=True))
        print(f"| {name} | {a:.3f} s | {b:.3f} s | {ratios:.2f}x |")


def in_process(files: dict[str, Path], runs: int) -> None:
    """The phases of one process (imports done): parse and verify, print; the pass, and the placement inside it."""
    print(
        "| file | parse + verify + print | lane-arena-place | placement.place in it | the rest | rest vs parse+print |"
    )
    print("|---|---|---|---|---|---|")
    for name, path in files.items():
        text = path.read_text()
        base, passes, places = [], [], []
        for _ in range(runs):
            start = time.perf_counter()
            module = api.parse(text)
            str(module)
            base.append(time.perf_counter() - start)
            (step_op,) = steps(module)
            items = problem(step_of(step_op)[0]).items
            buffers = [placement.Buffer(it.label, it.first, it.last + 1, it.bytes) for it in items]
            start = time.perf_counter()
            placement.place(buffers)
            places.append(time.perf_counter() - start)
            start = time.perf_counter()
            place_module(module)
            passes.append(time.perf_counter() - start)
        b, p, q = statistics.median(base), statistics.median(passes), statistics.median(places)
        print(f"| {name} | {b:.4f} s | {p:.4f} s | {q:.4f} s | {p - q:.4f} s | {(p - q) / b:.1%} |")


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", default="qwen3-0.6b")
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        step = Path(tmp) / "step.mlir"
        subprocess.run(["lanearena", "build", args.config, "-o", str(step)], check=True, stderr=subprocess.DEVNULL)
        files = {
            f"{EXAMPLE.name} (17 lines)": EXAMPLE,
            f"{args.config} ({step.read_text().count(chr(10))} lines)": step,
        }
        print(f"whole processes, median of {args.runs} runs each, alternating:")
        processes(files, args.runs)
        print()
        print(f"in one process, median of {args.runs} runs:")
        in_process(files, args.runs)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
