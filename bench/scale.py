"""The placer at scale: generated graphs of 1k to 1M buffers, each placed by a whole `lanearena solve` process (one
process per measure, as a user runs it), its seconds in all and by phase (read, place, check, write), the height
over the lower bound, and the growth of the time from 10k to 100k buffers; with `--baseline`, another checkout's
`lanearena` (today's code, say) runs each measure too, in turn with this one, and the table gives the ratio. With
`--repeat N` each measure runs N times (in turn with the baseline's) and the table gives the medians.

    python bench/scale.py [--sizes 1000,10000,100000,1000000] [--kinds mix,training,half,concurrent]
                          [--algorithms greedy,best] [--baseline /path/to/.venv/bin/lanearena] [--timeout 900]
                          [--repeat 1]

- `mix`: a random mix of lives, as in an inference graph with a few long-lived buffers: four in five live 1-8
  steps, the rest up to 1000 steps; sizes from 256 bytes to 1 MiB.
- `training`: a forward and backward pass: each forward step's activation lives until its backward step (so a
  tenth of the buffers live over half the graph or more), among short-lived temporaries.
- `half`: a fifth of the buffers live over half the graph each (starting one a step), among temporaries living
  1-3 steps.
- `concurrent`: n buffers over n / 5 steps, lives drawn exponential with a mean of 1/30 of the steps (so about
  n / 30 buffers live at each step: 3,300 at 100k), sizes log-normal (median 60 KB, heavy tail) rounded up to 256.
Every graph comes from a fixed seed, so the table is the same on every machine but for the times. Progress lines go
to stderr."""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from lanearena.placement import Buffer

SIZES = [256 * k for k in (1, 2, 4, 16, 64, 256, 1024, 4096)]


def mix(n: int, seed: int = 0) -> list[Buffer]:
    """`n` buffers over about n / 4 steps: four in five short-lived, one in five long-lived."""
    rng = random.Random(seed)
    horizon = max(n // 4, 8)
    out = []
    for i in range(n):
        lower = rng.randrange(horizon)
        life = rng.randint(1, 8) if rng.random() < 0.8 else rng.randint(9, 1000)
        out.append(Buffer(f"b{i}", lower, min(lower + life, horizon), rng.choice(SIZES)))
    return out


def training(n: int, seed: int = 0) -> list[Buffer]:
    """`n` buffers of a training step: per forward step one activation kept for its backward step (a fifth of the
    buffers), and four temporaries living 1-3 steps, in the forward and the backward pass alike."""
    rng = random.Random(seed)
    layers = max(n // 10, 1)
    out: list[Buffer] = []
    horizon = 2 * layers
    for k in range(layers):
        out.append(Buffer(f"act{k}", k, horizon - k, rng.choice(SIZES[2:6])))
    for k in range(horizon):
        for _ in range(4):
            if len(out) < n:
                out.append(Buffer(f"tmp{len(out)}", k, min(k + rng.randint(1, 3), horizon), rng.choice(SIZES)))
    return out[:n]


def half(n: int, seed: int = 0) -> list[Buffer]:
    """`n` buffers over 2L steps (n = 5L): one starting each of the first L steps and living L steps, and two
    temporaries a step living 1-3 steps."""
    rng = random.Random(seed)
    layers = max(n // 5, 1)
    out = [Buffer(f"long{k}", k, k + layers, rng.choice(SIZES[:6])) for k in range(layers)]
    for k in range(2 * layers):
        for _ in range(2):
            out.append(Buffer(f"tmp{len(out)}", k, min(k + rng.randint(1, 3), 2 * layers), rng.choice(SIZES)))
    return out[:n]


def concurrent(n: int, seed: int = 0) -> list[Buffer]:
    """`n` buffers over n / 5 steps, most live for a long time: lives exponential with a mean of 1/30 of the steps,
    sizes log-normal with a median of e^11 bytes (60 KB) and a heavy tail, rounded up to 256."""
    rng = random.Random(seed)
    horizon = max(n // 5, 8)
    out = []
    for i in range(n):
        lower = rng.randrange(horizon)
        life = max(1, int(rng.expovariate(30 / horizon)))
        size = -(-int(rng.lognormvariate(11.0, 1.5)) // 256) * 256
        out.append(Buffer(f"b{i}", lower, min(lower + life, horizon), size))
    return out


KINDS = {"mix": mix, "training": training, "half": half, "concurrent": concurrent}


def most_live(buffers: list[Buffer]) -> int:
    """The most buffers live at one step."""
    events = sorted([(b.upper, -1) for b in buffers] + [(b.lower, 1) for b in buffers])
    live = most = 0
    for _, d in events:
        live += d
        most = max(most, live)
    return most


def solve(command: str, csv: Path, algorithm: str, timeout: float) -> dict:
    """One `lanearena solve` process: its seconds in all, its phases (when it prints them) and its height."""
    out = csv.with_suffix(".out.csv")
    args = [command, "solve", "--input", str(csv), "--output", str(out), "--algorithm", algorithm, "--quiet"]
    timed = [*args, "--timings"] if "--timings" in _help(command) else args
    start = time.perf_counter()
    try:
        done = subprocess.run(timed, capture_output=True, text=True, timeout=timeout, check=True)
    except subprocess.TimeoutExpired:
        return {"seconds": None}
    seconds = time.perf_counter() - start
    last = done.stdout.strip().splitlines()[-1]  # height=N lower_bound=M
    height, bound = (int(part.split("=")[1]) for part in last.split())
    phases = {}
    for line in done.stderr.splitlines():
        if line.startswith("read="):
            phases = {k: float(v) for k, v in (part.split("=") for part in line.split())}
    return {"seconds": seconds, "height/lb": height / bound, **phases}


def solve_median(commands: list[str], csv: Path, algorithm: str, timeout: float, repeat: int) -> list[dict]:
    """Each command's `solve` `repeat` times, the commands in turn, and each one's median of every figure; a command
    that runs past the timeout once is not run again (its seconds: None)."""
    runs: list[list[dict]] = [[] for _ in commands]
    for _ in range(repeat):
        for command, done in zip(commands, runs, strict=True):
            if not done or done[-1]["seconds"] is not None:
                done.append(solve(command, csv, algorithm, timeout))
    return [_medians(done) for done in runs]


def _medians(runs: list[dict]) -> dict:
    if any(r["seconds"] is None for r in runs):
        return {"seconds": None}
    return {key: statistics.median(r[key] for r in runs) for key in runs[0]}


def _help(command: str, cache: dict[str, str] = {}) -> str:  # noqa: B006 (a cache across calls)
    if command not in cache:
        cache[command] = subprocess.run([command, "solve", "--help"], capture_output=True, text=True).stdout
    return cache[command]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", default="1000,10000,100000,1000000")
    p.add_argument("--kinds", default="mix,training,half,concurrent")
    p.add_argument("--algorithms", default="greedy,best")
    p.add_argument("--command", default=str(Path(sys.executable).parent / "lanearena"), help="the lanearena to time")
    p.add_argument("--baseline", help="another lanearena executable to time in turn with it (today's code, say)")
    p.add_argument("--timeout", type=float, default=900, help="seconds a process may run (longer: shown as >)")
    p.add_argument("--repeat", type=int, default=1, help="runs of each measure; the table gives their medians")
    args = p.parse_args()

    def progress(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    base = " baseline s | ratio | baseline h/lb |" if args.baseline else ""
    print(
        f"| graph | buffers | live at once | algorithm | seconds | read | place | check | write | height / lb |{base}\n"
        f"|---|---|---|---|---|---|---|---|---|---|{'---|---|---|' if args.baseline else ''}",
        flush=True,
    )
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for kind in args.kinds.split(","):
            for n in (int(s) for s in args.sizes.split(",")):
                buffers = KINDS[kind](n)
                csv = Path(tmp) / f"{kind}-{n}.csv"
                rows_text = "".join(f"{b.id},{b.lower},{b.upper},{b.size}\n" for b in buffers)
                csv.write_text("id,lower,upper,size\n" + rows_text)
                live = most_live(buffers)
                for algorithm in args.algorithms.split(","):
                    progress(f"{kind} {n}: {algorithm}...")
                    commands = [args.command, *([args.baseline] if args.baseline else [])]
                    r, *b = solve_median(commands, csv, algorithm, args.timeout, args.repeat)
                    rows.append({"graph": kind, "buffers": n, "algorithm": algorithm, **r})
                    phases = [f"{r[k]:.2f}" if k in r else "-" for k in ("read", "place", "check", "write")]
                    line = f"| {kind} | {n} | {live} | {algorithm} | {_seconds(r, args.timeout)} | {' | '.join(phases)}"
                    line += f" | {_ratio(r)} |"
                    if b:
                        ratio = f"{r['seconds'] / b[0]['seconds']:.2f}" if r["seconds"] and b[0]["seconds"] else "-"
                        line += f" {_seconds(b[0], args.timeout)} | {ratio} | {_ratio(b[0])} |"
                    print(line, flush=True)
    print()
    for kind in args.kinds.split(","):
        for algorithm in args.algorithms.split(","):
            t = {r["buffers"]: r["seconds"] for r in rows if r["graph"] == kind and r["algorithm"] == algorithm}
            if t.get(10000) and t.get(100000):
                print(f"{kind} {algorithm}: time 10k -> 100k x{t[100000] / t[10000]:.1f}")


def _seconds(r: dict, timeout: float) -> str:
    return f"> {timeout:.0f}" if r["seconds"] is None else f"{r['seconds']:.2f}"


def _ratio(r: dict) -> str:
    return f"{r['height/lb']:.4f}" if "height/lb" in r else "-"


if __name__ == "__main__":
    main()
