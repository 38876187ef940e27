"""The GPU check: on a machine with an NVIDIA GPU, runs the emitted module of a decoder step on PyCUDA, compares it
with the numpy runtime, and times the step (median of many runs after warm-up, launches per second, arena bytes).

    bash bench/gpu_check.sh            # installs the gpu extra from the repo's files, then runs this
    python bench/gpu_check.py tiny qwen3-0.6b --runs 200

Prints one table row per config; exits 0 with a message where no GPU is usable."""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from lanearena import api
from lanearena.frontend import decoder_step, load
from lanearena.lowering import cuda
from lanearena.lowering.compile import placed
from lanearena.lowering.device import NumpyDevice
from lanearena.lowering.runtime import load as load_module
from lanearena.lowering.runtime import max_abs_err, prepare, random_feeds, results


def check(config_name: str, runs: int, algorithm: str) -> dict:
    """One config on the GPU against the numpy runtime, and its timing."""
    module = api.place(decoder_step(load(config_name)), algorithm)
    step = placed(module)
    generated = load_module(step.source())
    feeds = random_feeds(step.step, 0)
    expected = generated.run(NumpyDevice(), feeds)
    dev = cuda.CudaDevice()
    b = prepare(dev, feeds, generated.BUFFERS, generated.FEEDS, generated.ALIGN)
    generated.launches(dev, b)
    dev.synchronize()
    err = max_abs_err(results(dev, b, generated.RESULTS), expected)
    for _ in range(10):
        generated.launches(dev, b)
    dev.synchronize()
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        generated.launches(dev, b)
        dev.synchronize()
        times.append(time.perf_counter() - t)
    median = statistics.median(times)
    n_launches = generated.KERNEL_LAUNCHES
    return {
        "config": config_name,
        "arena_bytes": step.plan.bytes,
        "lower_bound": step.plan.lower_bound,
        "max_abs_err_vs_numpy": err,
        "median_step_ms": median * 1e3,
        "kernel_launches": n_launches,
        "launches_per_s": n_launches / median,
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("configs", nargs="*", default=["tiny", "tiny-moe", "tiny-prefill"])
    p.add_argument("--runs", type=int, default=100)
    p.add_argument("--algorithm", default="best")
    args = p.parse_args()
    why = cuda.available()
    if why is not None:
        print(f"gpu_check: skipped: {why}")
        return 0
    print(f"gpu_check: {cuda.CudaDevice().found}; the PTX is JIT-compiled by the driver for it")
    rows = [check(c, args.runs, args.algorithm) for c in args.configs]
    keys = list(rows[0])
    print(" | ".join(keys))
    for r in rows:
        print(" | ".join(f"{r[k]:.3g}" if isinstance(r[k], float) else str(r[k]) for k in keys))
    return 0 if all(r["max_abs_err_vs_numpy"] <= 1e-3 for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
