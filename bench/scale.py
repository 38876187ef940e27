"""The placer at scale: generated graphs of 1k to 1M buffers, each algorithm's time and height / lower bound, and
the growth of the time from 10k to 100k buffers, all measured in this run (progress lines on stderr).

    python bench/scale.py [--sizes 1000,10000,100000,1000000] [--kinds mix,training,half]
                           [--algorithms greedy,best]

- `mix`: a random mix of lives, as in an inference graph with a few long-lived buffers: four in five live 1-8
  steps, the rest up to 1000 steps; sizes from 256 bytes to 1 MiB.
- `training`: a forward and backward pass: each forward step's activation lives until its backward step (so a
  tenth of the buffers live over half the graph or more), among short-lived temporaries.
- `half`: a fifth of the buffers live over half the graph each (starting one a step), among temporaries living
  1-3 steps.
Every buffer graph comes from a fixed seed, so the table is the same on every machine but for the times."""

from __future__ import annotations

import argparse
import random
import sys
import time

from lanearena.placement import Buffer, check, place

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


KINDS = {"mix": mix, "training": training, "half": half}


def measure(kind: str, n: int, algorithm: str, progress) -> dict:
    buffers = KINDS[kind](n)
    progress(f"{kind} {n}: {algorithm}...")
    t = time.perf_counter()
    p = place(buffers, algorithm)
    seconds = time.perf_counter() - t
    assert check(buffers, p.offsets) == [], (kind, n, algorithm)
    return {
        "graph": kind,
        "buffers": n,
        "algorithm": algorithm,
        "seconds": seconds,
        "height/lb": p.height / p.lower_bound,
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", default="1000,10000,100000,1000000")
    p.add_argument("--kinds", default="mix,training,half")
    p.add_argument("--algorithms", default="greedy,best")
    args = p.parse_args()

    def progress(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    place([Buffer("warm", 0, 1, 1)], "greedy")  # the compiled code loaded before any time is taken
    rows = []
    print("| graph | buffers | algorithm | seconds | height / lower bound |\n|---|---|---|---|---|", flush=True)
    for kind in args.kinds.split(","):
        for n in (int(s) for s in args.sizes.split(",")):
            for algorithm in args.algorithms.split(","):
                r = measure(kind, n, algorithm, progress)
                rows.append(r)
                print(f"| {kind} | {n} | {algorithm} | {r['seconds']:.2f} | {r['height/lb']:.4f} |", flush=True)
    print()
    for kind in args.kinds.split(","):
        for algorithm in args.algorithms.split(","):
            t = {r["buffers"]: r["seconds"] for r in rows if r["graph"] == kind and r["algorithm"] == algorithm}
            if 10000 in t and 100000 in t:
                print(f"{kind} {algorithm}: time 10k -> 100k x{t[100000] / t[10000]:.1f}")


if __name__ == "__main__":
    main()
