"""What `lane-arena-place` adds to xdsl-opt's parse and print of a real step: the `qwen3-0.6b` decode step
(`lanearena build qwen3-0.6b`), through `xdsl-opt` with and without the pass, runs alternating so that both see the
same machine load; then the same work in one process, phase by phase (no start-up, no imports). Prints tables of
medians.

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

from lanearena import api
from lanearena.passes.place import place_module


def run(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", default="qwen3-0.6b")
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        step = Path(tmp) / "step.mlir"
        subprocess.run(["lanearena", "build", args.config, "-o", str(step)], check=True, stderr=subprocess.DEVNULL)
        cases = {
            "xdsl-opt (parse, verify, print)": ["xdsl-opt", str(step)],
            "xdsl-opt -p lane-arena-place": ["xdsl-opt", str(step), "-p", "lane-arena-place"],
            "xdsl-opt -p lane-arena-place{algorithm=greedy}": [
                "xdsl-opt",
                str(step),
                "-p",
                "lane-arena-place{algorithm=greedy}",
            ],
            "xdsl-opt --help (start-up alone)": ["xdsl-opt", "--help"],
        }
        times: dict[str, list[float]] = {name: [] for name in cases}
        for _ in range(args.runs):
            for name, cmd in cases.items():
                times[name].append(run(cmd))
        text = step.read_text()
    lines = text.count("\n")
    base = statistics.median(times["xdsl-opt (parse, verify, print)"])
    startup = statistics.median(times["xdsl-opt --help (start-up alone)"])
    print(f"{args.config} ({lines} lines): median of {args.runs} runs each, alternating")
    print("| command | median | vs parse+print | vs parse+print, start-up excluded |")
    print("|---|---|---|---|")
    for name, ts in times.items():
        m = statistics.median(ts)
        extra = (m - startup) / (base - startup) - 1 if "help" not in name else None
        print(f"| {name} | {m:.3f} s | {m / base - 1:+.1%} | {'' if extra is None else f'{extra:+.1%}'} |")
    print()
    phases: dict[str, list[float]] = {
        "parse and verify": [],
        "print": [],
        "lane-arena-place": [],
        "print the placed step": [],
    }
    for _ in range(args.runs):
        module, t = timed(lambda: api.parse(text))
        phases["parse and verify"].append(t)
        # Each lambda binds this round's module (run at once, but the binding says so).
        phases["print"].append(timed(lambda m=module: str(m))[1])
        phases["lane-arena-place"].append(timed(lambda m=module: place_module(m))[1])
        phases["print the placed step"].append(timed(lambda m=module: str(m))[1])
    whole = statistics.median(phases["parse and verify"]) + statistics.median(phases["print"])
    print("in one process (imports done):")
    print("| phase | median | vs parse+print |")
    print("|---|---|---|")
    for name, ts in phases.items():
        print(f"| {name} | {statistics.median(ts):.3f} s | {statistics.median(ts) / whole:.1%} |")
    return 0


def timed(f):
    start = time.perf_counter()
    out = f()
    return out, time.perf_counter() - start


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
