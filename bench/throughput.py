"""Decode throughput against the sequences a step serves: tokens a second of the decode step of B rows (a row a
sequence) at B = 1, 8, 32, 64 on the numpy runtime (or the GPU with --backend cuda), each against B = 1 measured in
the same run. Each sequence is prefilled first (not timed); then ROUNDS decode rounds are timed, REPEATS times, and
the median kept. The step is a shipped config made small (its layers and vocab cut: the numpy runtime's products
run on 2 cores), random weights.

    python bench/throughput.py [--config qwen3-0.6b] [--batches 1 8 32 64] [--backend numpy]
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
import time

import numpy as np

from lanearena.frontend import load
from lanearena.lowering.serving.session import Session
from lanearena.lowering.serving.weights import RandomWeights

ROUNDS = 8
REPEATS = 3
PROMPT = 4
"""Positions of each sequence's prompt."""


def rate(c, batch: int, backend: str) -> tuple[float, int]:
    """Decode tokens a second of `c`'s step of `batch` rows, every row live, and that step's arena bytes."""
    session = Session(c, RandomWeights(0), backend, chunk=1, batch=batch)
    times = []
    for _ in range(REPEATS):
        session.reset()
        for slot in range(batch):
            session.next([1 + slot % 7] * PROMPT, slot=slot)
        ids, live, draws = np.ones(batch, np.int64), np.ones(batch, bool), np.zeros(batch)
        t = time.perf_counter()
        for _ in range(ROUNDS):
            ids, _ = session.next_all(ids, live, draws)
        times.append(time.perf_counter() - t)
    step = session.batched or session.decode
    return batch * ROUNDS / statistics.median(times), step.arena_bytes


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--config", default="qwen3-0.6b")
    p.add_argument("--batches", type=int, nargs="+", default=[1, 8, 32, 64])
    p.add_argument("--backend", default="numpy")
    p.add_argument("--numerics", default="int8")
    args = p.parse_args(argv)
    c = dataclasses.replace(load(args.config), layers=2, vocab=4096, max_len=128, numerics=args.numerics)
    print(f"{args.config} (layers=2 vocab=4096 max_len=128), {args.numerics}, {args.backend}: {ROUNDS} decode rounds")
    print(f"{'batch':>6} {'tokens/s':>10} {'ms/round':>10} {'vs B=1':>8} {'arena bytes':>12}")
    base = None
    for batch in args.batches:
        tokens_s, arena = rate(c, batch, args.backend)
        base = base or tokens_s
        print(f"{batch:>6} {tokens_s:>10.1f} {1e3 * batch / tokens_s:>10.2f} {tokens_s / base:>7.2f}x {arena:>12,}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
