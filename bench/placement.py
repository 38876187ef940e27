"""The placement benchmark: for every MiniMalloc challenging instance (and whether the default reaches its
capacity, and how fast), for perfect packings of 450 buffers cut from a rectangle, and for generated decoder-like
steps of 1k, 10k and 100k buffers: the lower bound, the reference greedy's height and time, the default's height
and time, and their ratios, all measured in this run. With `--steps`, instead: what placing a real decoder step
costs a fresh process through the placement API alone (import, then the first `place`), for the 17-line example and
the qwen3-0.6b decode step, with this checkout's Python and any other given (today's code, say), medians of 5.

    python bench/placement.py [--work N] [--only A,B] [--perfect 0,1,2] [--sizes 1000,10000,100000]
    python bench/placement.py --steps [--python /path/to/other/.venv/bin/python ...]"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from lanearena.placement import Buffer, PlacementError, check, place
from lanearena.placement.csvio import read_buffers

ROOT = Path(__file__).resolve().parents[1]
CHALLENGING = ROOT / ".." / "shared" / "benchmarks" / "minimalloc" / "challenging"

STEP_COST = """
import csv, sys, time
start = time.perf_counter()
import lanearena.placement as placement
imported = time.perf_counter()
rows = list(csv.DictReader(open(sys.argv[1])))
buffers = [placement.Buffer(r["id"], int(r["lower"]), int(r["upper"]), int(r["size"])) for r in rows]
placing = time.perf_counter()
placement.place(buffers, sys.argv[2], alignment=256)
print(imported - start, time.perf_counter() - placing, "numba" in sys.modules)
"""
"""A fresh process's cost of the placement API: its import, then one `place` (the CSV of a step, an algorithm)."""


def decoder_steps(folder: Path) -> dict[str, Path]:
    """The placement problems of the 17-line example and of the qwen3-0.6b decode step, as CSV files in `folder`."""
    from lanearena import api
    from lanearena.analysis.arena_problem import problem
    from lanearena.frontend import decoder_step, load
    from lanearena.model import ALIGN, QBLOCK
    from lanearena.passes.convert import step_of, steps

    modules = {"example (17 lines)": api.parse_file(str(ROOT / "examples" / "decode.mlir"))}
    modules["qwen3-0.6b decode"] = decoder_step(load("qwen3-0.6b"))
    out = {}
    for name, module in modules.items():
        (op,) = steps(module)
        items = problem(step_of(op)[0], ALIGN, QBLOCK).items
        path = folder / f"{len(out)}.csv"
        path.write_text(
            "id,lower,upper,size\n" + "".join(f'"{it.label}",{it.first},{it.last + 1},{it.bytes}\n' for it in items)
        )
        out[f"{name}, {len(items)} buffers"] = path
    return out


def step_costs(pythons: list[str], runs: int = 5) -> None:
    """Prints the table of `STEP_COST` for each decoder step, algorithm and Python."""
    print("| step | Python | import (ms) | algorithm | first place (ms) | numba loaded |\n|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for step, path in decoder_steps(Path(tmp)).items():
            for python in pythons:
                for algorithm in ("best", "greedy"):
                    got = [
                        subprocess.run(  # from the folder, so that each Python imports its own lanearena
                            [python, "-c", STEP_COST, str(path), algorithm], capture_output=True, text=True, cwd=tmp
                        ).stdout.split()
                        for _ in range(runs)
                    ]
                    imported = statistics.median(float(g[0]) for g in got) * 1000
                    placed = statistics.median(float(g[1]) for g in got) * 1000
                    print(
                        f"| {step} | {python} | {imported:.1f} | {algorithm} | {placed:.1f} | {got[0][2]} |", flush=True
                    )


def decoder_like(n: int, seed: int = 0) -> list[Buffer]:
    """`n` buffers shaped like a decoder step's: a residual a layer living through it, activations and scratch
    living one to three launches, and a few buffers living through the whole step."""
    rng = random.Random(seed)
    out: list[Buffer] = []
    t = 0
    while len(out) < n:
        out.append(Buffer(f"x{len(out)}", t, t + 16, 4096))
        for k in range(12):
            life = rng.randint(1, 3)
            out.append(Buffer(f"a{len(out)}", t + k, t + k + life, rng.choice([1024, 4096, 16384, 65536])))
        t += 14
    out = out[: n - 4]
    out += [Buffer(f"long{k}", 0, t + 2, 8192) for k in range(4)]
    return out


def perfect(n: int, seed: int = 0, steps: int = 1000, height: int = 1 << 20) -> list[Buffer]:
    """`n` buffers cut from a rectangle of `steps` x `height` bytes (cut across time or across the bytes, the
    larger piece first, at random points): every step is full, so the optimum is the lower bound, `height`."""
    rng = random.Random(seed)
    pieces = [(0, steps, 0, height)]
    while len(pieces) < n:
        pieces.sort(key=lambda p: (p[1] - p[0]) * (p[3] - p[2]))
        t0, t1, a0, a1 = pieces.pop()
        if (rng.random() < 0.5 or a1 - a0 < 512) and t1 - t0 >= 2:
            t = rng.randrange(t0 + 1, t1)
            pieces += [(t0, t, a0, a1), (t, t1, a0, a1)]
        else:
            a = a0 + 256 * rng.randrange(1, (a1 - a0) // 256)
            pieces += [(t0, t1, a0, a), (t0, t1, a, a1)]
    pieces.sort()
    return [Buffer(f"p{k}", t0, t1, a1 - a0) for k, (t0, t1, a0, a1) in enumerate(pieces)]


def measure(name: str, buffers: list[Buffer], work: int | None, capacity: int | None = None) -> dict:
    t = time.perf_counter()
    greedy = place(buffers, "greedy")
    greedy_s = time.perf_counter() - t
    t = time.perf_counter()
    best = place(buffers, "best", work=work)
    best_s = time.perf_counter() - t
    assert check(buffers, best.offsets) == [], name
    lb = best.lower_bound
    row = {
        "case": name,
        "buffers": len(buffers),
        "lower_bound": lb,
        "greedy": greedy.height,
        "greedy/lb": greedy.height / lb,
        "greedy_s": greedy_s,
        "default": best.height,
        "default/lb": best.height / lb,
        "default_s": best_s,
        "winner": best.algorithm,
    }
    if capacity is not None:  # the search aimed at the capacity rather than the bound
        t = time.perf_counter()
        try:
            fitted = place(buffers, "best", work=work, capacity=capacity).height
        except PlacementError:
            fitted = None
        row.update({"capacity": capacity, "within": fitted is not None, "capacity_s": time.perf_counter() - t})
    return row


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--work", type=int, default=None, help="work of the default's search (default: its default)")
    p.add_argument("--only", default="", help="challenging files to run, e.g. A,B (default: all)")
    p.add_argument("--perfect", default="0,1,2", help="seeds of the perfect packings of 450 buffers")
    p.add_argument("--sizes", default="1000,10000,100000", help="generated step sizes")
    p.add_argument("--steps", action="store_true", help="only the cost of placing two decoder steps, fresh processes")
    p.add_argument("--python", action="append", default=[], help="another Python to time the steps with")
    args = p.parse_args()
    if args.steps:
        step_costs([sys.executable, *args.python])
        return
    import lanearena.placement.compiled  # noqa: F401 (numba and the compiled loops loaded before any time is taken)

    rows = []
    for path in sorted(CHALLENGING.glob("*.csv")):
        if args.only and path.name.split(".")[0] not in args.only.split(","):
            continue
        rows.append(measure(path.name.split(".")[0], read_buffers(path), args.work, int(path.name.split(".")[1])))
        print(_row(rows[-1], header=len(rows) == 1), flush=True)
    for k, seed in enumerate(int(s) for s in args.perfect.split(",") if s):
        rows.append(measure(f"perfect-450-{seed}", perfect(450, seed), args.work))
        print(_row(rows[-1], header=k == 0), flush=True)
    for n in (int(s) for s in args.sizes.split(",") if s):
        rows.append(measure(f"decoder-{n // 1000}k", decoder_like(n), args.work))
        print(_row(rows[-1], header=rows[-1]["buffers"] == 1000), flush=True)
    big = {r["buffers"]: r for r in rows if r["case"].startswith("decoder")}
    if 10000 in big and 100000 in big:
        print(f"\ngreedy time 10k -> 100k: x{big[100000]['greedy_s'] / big[10000]['greedy_s']:.1f}")


def _row(r: dict, header: bool = True) -> str:
    cells = [f"{v:.3f}" if isinstance(v, float) else str(v) for v in r.values()]
    line = "| " + " | ".join(cells) + " |"
    if not header:
        return line
    return "| " + " | ".join(r) + " |\n|" + "---|" * len(r) + "\n" + line


if __name__ == "__main__":
    main()
