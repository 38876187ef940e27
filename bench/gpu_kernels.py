"""The matrix products of a decode step against the GPU's memory bandwidth: gemv.cu's gemv and glu (the package's
kernels) and the candidates of bench/kernels/gemv_vec.cu, at the decode shapes of llama-3.2-1b and qwen3-0.6b (one
row; f32 and int8 by Q8_0), each checked against the package's kernel and timed with CUDA events.

    python3 bench/gpu_kernels.py        # on a GPU machine with CuPy; writes the table to $OUT/kernels.txt too

Needs CuPy, numpy and lanearena's kernel build (no PyCUDA): both modules are compiled from their CUDA sources as the
package's kernels are (`lanearena.lowering.kernels.ptx`, nvcc, cached). Weights are
cycled through copies that add up to more than the L2 cache, so each launch streams its weights from memory as a
step's layers do. A long copy queued first keeps the launches back to back on the GPU, so the events time the
kernels, not the host's calls."""

from __future__ import annotations

import itertools
import math
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
VARIANT_CU = ROOT / "bench/kernels/gemv_vec.cu"
PEAK = 4.8e12
"""H200 HBM3e peak bytes a second (NVIDIA's figure)."""
WARPS, TILE, QBLOCK = 8, 64, 32
STREAM_BYTES = 512 << 20
"""Weights bytes cycled through per shape: past the L2 cache (H200: 50 MB)."""
TIMED, WARM = 50, 5

# (model, shape name, kernel family, n, k, split), as the models' decode steps launch them (max_len 1024, one row).
SHAPES = [
    ("llama-3.2-1b", "qkv", "gemv", 3072, 2048, 4),
    ("llama-3.2-1b", "o", "gemv", 2048, 2048, 4),
    ("llama-3.2-1b", "gate+up", "glu", 8192, 2048, 4),
    ("llama-3.2-1b", "down", "gemv", 2048, 8192, 4),
    ("llama-3.2-1b", "lm-head", "gemv", 128256, 2048, 1),
    ("qwen3-0.6b", "qkv", "gemv", 4096, 1024, 4),
    ("qwen3-0.6b", "o", "gemv", 1024, 2048, 4),
    ("qwen3-0.6b", "gate+up", "glu", 3072, 1024, 4),
    ("qwen3-0.6b", "down", "gemv", 1024, 3072, 4),
    ("qwen3-0.6b", "lm-head", "gemv", 151936, 1024, 1),
    # edges for the check, not the speed: columns past a tile's end, k not a multiple of 4 (f32) or of a part
    ("check", "gemv-edge", "gemv", 1000, 1001, 3),
    ("check", "glu-edge", "glu", 1000, 1001, 3),
]
SWEEP = (1, 2, 4, 8)
"""The splits the sweep times each split shape at (the frontend picks the split; this says which would be best)."""

# (label, module, kernel name suffix, columns a block): the package's kernel first (the reference of the others).
VARIANTS = [("package", "package", "", TILE)] + [(f"vec c{c}", "variant", f"_c{c}", WARPS * c) for c in (8, 4, 2, 1)]


def k_part(k: int, split: int) -> int:
    return math.ceil(math.ceil(k / split) / QBLOCK) * QBLOCK


def weight_bytes(n: int, k: int, numerics: str) -> int:
    return n * k * 4 if numerics == "f32" else n * k + n * k // QBLOCK * 4


class Case:
    """The buffers of one shape: `copies` sets of weights, the activation row, scratch, counters, the output."""

    def __init__(self, cp, family: str, n: int, k: int, split: int, numerics: str):
        self.cp, self.family, self.n, self.k, self.split, self.numerics = cp, family, n, k, split, numerics
        nw = 2 if family == "glu" else 1
        self.wbytes = nw * weight_bytes(n, k, numerics)
        self.copies = max(1, math.ceil(STREAM_BYTES / self.wbytes))
        cp.random.seed(1)
        self.weights = [[self._weight() for _ in range(nw)] for _ in range(self.copies)]
        if numerics == "f32":
            self.act = (cp.random.standard_normal(k, dtype=cp.float32), None, None, None)
        else:
            hi = cp.random.randint(-127, 128, k, dtype=cp.int32).astype(cp.int8)
            self.act = (None, hi, None, (cp.random.random_sample(k // QBLOCK, dtype=cp.float32) + 0.5) / 127)
        self.scratch = cp.zeros(2 * max(SWEEP) * n, cp.float32)
        self.counters = cp.zeros(n + 64, cp.int32)
        self.out = cp.zeros(n, cp.float32)
        self.bytes = self.wbytes + k * (4 if numerics == "f32" else 1.125) + n * 4

    def _weight(self):
        cp, n, k = self.cp, self.n, self.k
        if self.numerics == "f32":
            return (cp.random.standard_normal((n, k), dtype=cp.float32) / np.float32(math.sqrt(k)), None)
        words = cp.random.randint(-127, 128, (n, k), dtype=cp.int32).astype(cp.int8)
        scales = cp.random.random_sample(n * k // QBLOCK, dtype=cp.float32) + 0.5
        return (words, scales / np.float32(127 * math.sqrt(k)))

    def expected(self) -> np.ndarray:
        """What copy 0 computes, in float64 on the host (the package kernel is checked against it)."""
        x = self._host_act()
        sums = [self._host_weight(w) @ x for w in self.weights[0]]
        if self.family == "gemv":
            return sums[0]
        gate, up = sums
        return gate / (1 + np.exp(-gate)) * up

    def _host_act(self) -> np.ndarray:
        x, hi, _, scales = self.act
        if x is not None:
            return x.get().astype(np.float64)
        return (hi.get().reshape(-1, QBLOCK) * scales.get()[:, None].astype(np.float64)).reshape(-1)

    def _host_weight(self, w) -> np.ndarray:
        values, scales = w
        if scales is None:
            return values.get().astype(np.float64)
        blocks = values.get().reshape(self.n, -1, QBLOCK) * scales.get().reshape(self.n, -1, 1).astype(np.float64)
        return blocks.reshape(self.n, self.k)

    def args(self, copy: int) -> tuple:
        def p(a):
            return a if a is not None else np.uint64(0)

        x = tuple(p(a) for a in self.act)
        ws = [p(a) for w in self.weights[copy] for a in w]
        tail = (
            p(self.scratch),
            p(self.counters),
            np.int32(self.n),
            np.int32(self.k),
            np.int32(k_part(self.k, self.split)),
        )
        if self.family == "gemv":
            return (self.out, np.int32(self.n), *x, *ws, np.uint64(0), *tail)
        return (self.out, *x, *ws, np.uint64(0), np.uint64(0), *tail)


def run(cp, fn, case: Case, cols: int, copy: int) -> None:
    grid = (math.ceil(case.n / cols), case.split, 1)
    fn(grid, (256, 1, 1), case.args(copy))


SPACER: list = []


def time_kernel(cp, fn, case: Case, cols: int) -> float:
    """Median microseconds of a launch, over TIMED launches queued back to back behind a long copy."""
    for i in range(WARM):
        run(cp, fn, case, cols, i % case.copies)
    src, dst = SPACER
    for _ in range(3):
        dst[...] = src  # keeps the GPU busy (about 1.3 ms) while the launches below are queued
    events = [cp.cuda.Event() for _ in range(TIMED + 1)]
    events[0].record()
    for i in range(TIMED):
        run(cp, fn, case, cols, i % case.copies)
        events[i + 1].record()
    events[-1].synchronize()
    times = [cp.cuda.get_elapsed_time(a, b) * 1e3 for a, b in itertools.pairwise(events)]
    return float(np.median(times))


def sweep(cp, modules, case: Case, title: str) -> list[str]:
    """Rows of the split sweep of `case`: each kernel's microseconds a launch at every split of SWEEP."""
    rows, split = [], case.split
    for label, module, suffix, cols in VARIANTS:
        fn = modules[module].get_function(case.family + suffix)
        times = []
        for case.split in SWEEP:
            times.append(time_kernel(cp, fn, case, cols))
        rows.append(f"{title} {label:<10} " + " ".join(f"{t:8.2f}" for t in times))
    case.split = split
    return rows


def copy_bandwidth(cp) -> float:
    """Bytes a second of a 1 GB device-to-device copy (read and write counted): the practical ceiling."""
    src = cp.ones(1 << 28, cp.float32)
    dst = cp.empty_like(src)
    dst[...] = src
    start, end = cp.cuda.Event(), cp.cuda.Event()
    best = math.inf
    for _ in range(5):
        start.record()
        dst[...] = src
        end.record()
        end.synchronize()
        best = min(best, cp.cuda.get_elapsed_time(start, end) / 1e3)
    return 2 * src.nbytes / best


def ptx_modules() -> dict[str, str]:
    """The PTX of the package's gemv.cu and of gemv_vec.cu, made as the package makes its kernels' (the bench's
    source finds common.cuh among the package's headers)."""
    from lanearena.lowering.kernels import ptx, source

    variant = source.Source("gemv_vec", VARIANT_CU.read_text(), VARIANT_CU.parent)
    return {"package": ptx.build(source.packaged()["gemv"]), "variant": ptx.build(variant)}


def main() -> int:
    try:
        import cupy as cp
    except ImportError:
        print("gpu_kernels: skipped: CuPy is not installed")
        return 0
    t0 = time.perf_counter()
    lines: list[str] = []

    def say(line: str = "") -> None:
        print(line, flush=True)
        lines.append(line)

    dev = cp.cuda.Device()
    props = cp.cuda.runtime.getDeviceProperties(dev.id)
    say(f"gpu_kernels: {props['name'].decode()} ({props['multiProcessorCount']} SMs), CuPy {cp.__version__}")
    ceiling = copy_bandwidth(cp)
    say(f"device-to-device copy of 1 GB: {ceiling / 1e9:.0f} GB/s ({ceiling / PEAK:.0%} of {PEAK / 1e12:.1f} TB/s)")
    with tempfile.TemporaryDirectory() as work:  # (CuPy loads PTX from a file)
        modules = {}
        for label, text in ptx_modules().items():
            (Path(work) / f"{label}.ptx").write_text(text)
            modules[label] = cp.RawModule(path=str(Path(work) / f"{label}.ptx"))
    SPACER[:] = (cp.ones(1 << 28, cp.float32), cp.empty(1 << 28, cp.float32))
    head = f"{'model':<13} {'numerics':<8} {'shape':<9} {'n x k / split':<19} {'kernel':<10} {'us':>8} {'MB':>8} "
    say(head + f"{'GB/s':>7} {'of peak':>7} {'of copy':>7} {'max|diff|':>10}")
    best: dict[tuple, tuple[float, str]] = {}
    sweeps: list[list[str]] = []
    for numerics in ("f32", "int8"):
        for model, shape, family, n, k0, split in SHAPES:
            k = k0 if numerics == "f32" else k0 // QBLOCK * QBLOCK  # Q8_0: whole blocks
            case = Case(cp, family, n, k, split, numerics)
            reference = None
            for label, module, suffix, cols in VARIANTS:
                fn = modules[module].get_function(family + suffix)
                case.counters.fill(0)
                run(cp, fn, case, cols, 0)
                got = case.out.get()
                note = ""
                if reference is None:
                    reference = got
                    want = case.expected()
                    note = f"  (vs float64: {np.max(np.abs(got - want)) / np.max(np.abs(want)):.1e} of the largest)"
                diff = float(np.max(np.abs(got - reference)))
                scale = float(np.max(np.abs(reference)))
                us = time_kernel(cp, fn, case, cols)
                rate = case.bytes / (us * 1e-6)
                ok = "" if diff <= 1e-4 * max(scale, 1.0) else "  WRONG"
                say(
                    f"{model:<13} {numerics:<8} {shape:<9} {f'{n}x{k}/{split}':<19} {label:<10} {us:8.2f} "
                    f"{case.bytes / 1e6:8.2f} {rate / 1e9:7.0f} {rate / PEAK:7.0%} {rate / ceiling:7.0%} "
                    f"{diff:10.2e}{ok}{note}"
                )
                key = (model, numerics, shape)
                if not ok and model != "check" and us < best.get(key, (math.inf, ""))[0]:
                    best[key] = (us, label)
            if split > 1 and model != "check":
                sweeps.append(sweep(cp, modules, case, f"{model:<13} {numerics:<8} {shape:<9}"))
            del case
            cp.get_default_memory_pool().free_all_blocks()
    say()
    say(f"split sweep (us a launch at split {', '.join(map(str, SWEEP))}):")
    for rows in sweeps:
        for row in rows:
            say(row)
    say()
    say("fastest correct kernel per shape:")
    for (model, numerics, shape), (us, label) in best.items():
        say(f"  {model:<13} {numerics:<5} {shape:<8} {label:<10} {us:8.2f} us")
    say(f"gpu_kernels: {time.perf_counter() - t0:.1f} s")
    out = os.environ.get("OUT")
    if out:
        Path(out, "kernels.txt").write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
