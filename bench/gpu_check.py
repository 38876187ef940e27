"""The GPU check: decoder steps run on a device three ways (the plain path, the static launch plan, the CUDA graph),
checked equal bit for bit, compared with the numpy runtime, and timed against the memory bandwidth.

    bash bench/gpu_check.sh                                    # on a GPU machine: setup, GPU tests, this, profiles
    python bench/gpu_check.py                                  # the issue's table: qwen3-0.6b, llama-3.2-1b
    python bench/gpu_check.py --backend numpy tiny --runs 3    # the same code path on the CPU (CI runs it)

Every config runs decode steps (one row, `--seen` positions seen) at `--max-len` in each of `--numerics`, and once
more drawing its token on the device (`--sampled`: temperature 0.8, top-k 40, top-p 0.95, llama.cpp's defaults);
each path has a buffer set of its own, prepared from the same feeds, and runs twice: every result must equal the
plain path's bit for bit after each run. `--against-numpy` configs are also run on the numpy runtime (the CPU's
twins of the kernels): the largest difference is reported. On the numpy backend there is no graph, and the timings
are the CPU's, said so.
Exits 1 where anything differs."""

from __future__ import annotations

import argparse
import functools
import json
import os
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from lanearena import api
from lanearena.cli.profile import plot as profile_plot
from lanearena.cli.profile import profile_step
from lanearena.cli.profile import table as profile_table
from lanearena.errors import UserError
from lanearena.frontend import decoder_step, load
from lanearena.lowering.codegen.lowered import Lowered
from lanearena.lowering.codegen.placed import placed
from lanearena.lowering.replay.graph import CudaGraph, time_step
from lanearena.lowering.replay.launch_plan import LaunchPlan
from lanearena.lowering.runtime import cuda
from lanearena.lowering.runtime.backend import new_device, resolve_backend
from lanearena.lowering.runtime.device import NumpyDevice
from lanearena.lowering.runtime.execute import fed, launch, max_abs_err, prepare, random_feeds, results, run_step
from lanearena.model import Role
from lanearena.options import PlaceOptions

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ROOT / "examples" / "configs"


@dataclass
class Row:
    """One config and numerics: the three paths' figures (graph ones None on the numpy backend)."""

    config: str
    numerics: str
    launches: int
    arena_bytes: int
    equal: bool
    vs_numpy: float | None
    plain_ms: float
    plan_ms: float
    graph_ms: float | None
    plain_host_us: float
    plan_host_us: float
    graph_host_us: float | None
    weight_bytes: int
    bound_ms: float | None
    profile: list[str] | None = None
    """`lanearena profile`'s table of the step (GPU only)."""
    graph_error: str | None = None
    """Why the CUDA graph could not be made, where it could not."""


def config_spec(name: str) -> str:
    """A shipped config's name, or the path of one of examples/configs (`llama-3.2-1b`)."""
    path = SHIPPED / f"{name}.json"
    return str(path) if path.exists() else name


def sharing_weights(dev, lowered: Lowered, feeds, b: list[int]) -> list[int]:
    """Another buffer set for `lowered` on `dev`, as `prepare` makes one from `feeds`, but bound to the weights of
    set `b` (a step only reads them): a large model's weights are drawn and quantized once, not once a path."""
    weights = {name: b[f.buffer] for name, f in lowered.feeds.items() if f.role is Role.WEIGHT}
    return prepare(dev, lowered, feeds, weights)


_DRAWN: dict[tuple, dict] = {}


def drawn(step) -> dict:
    """`random_feeds(step, 0)`, drawn once for every step that is fed the same tensors (a config's f32 and int8
    steps: their weights are drawn as f32 values alike; a large model's take a minute to draw)."""
    key = tuple((t.name, t.shape, t.elem if t.elem != "i8" else "f32") for t in fed(step))
    if key not in _DRAWN:
        _DRAWN.clear()  # (one config's at a time: they are large)
        _DRAWN[key] = random_feeds(step, 0)
    return _DRAWN[key]


def at_seen(feeds: dict, seen: int, max_len: int) -> dict:
    """`feeds` with a decode row's position where `seen` positions (the cache's first `seen`, at most `max_len`) are
    seen: the attention splits its work over the positions seen, so the step's time depends on it."""
    if "pos" not in feeds or feeds["pos"].size != 1:
        return feeds
    return {**feeds, "pos": np.full_like(feeds["pos"], min(seen, max_len) - 1)}


def check(
    config: str,
    numerics: str,
    max_len: int | None,
    backend: str,
    runs: int,
    against_numpy: bool,
    plot: str | None,
    seen: int = 512,
    extra: tuple[str, ...] = (),
) -> Row:
    settings = [f"numerics={numerics}"] + ([f"max_len={max_len}"] if max_len else []) + list(extra)
    c = load(config_spec(config), settings)
    built = decoder_step(c)
    api.place(built, PlaceOptions("greedy"))
    p = placed(built)  # verified, and read from the IR
    step, plan, placed_step, lowered = p.step, p.plan, p.op, p.lowered
    feeds = at_seen(drawn(step), seen, c.max_len)
    dev = new_device(backend)
    on_gpu = isinstance(dev, cuda.CudaDevice)
    sync = dev.synchronize if on_gpu else (lambda: None)
    buffers = {"plain": prepare(dev, lowered, feeds)}
    buffers["plan"] = sharing_weights(dev, lowered, feeds, buffers["plain"])
    launch_plan = LaunchPlan(dev, lowered, buffers["plan"])
    stream = dev.stream if on_gpu else None
    paths = {
        "plain": functools.partial(launch, dev, lowered, buffers["plain"]),
        "plan": functools.partial(launch_plan.replay, stream),
    }
    graph_error = None
    if on_gpu:
        graphed = sharing_weights(dev, lowered, feeds, buffers["plain"])
        try:
            paths["graph"] = CudaGraph(dev, LaunchPlan(dev, lowered, graphed)).replay
            buffers["graph"] = graphed
        except Exception as e:  # told in the table, and the rest still measured
            graph_error = f"{type(e).__name__}: {e}"
    equal, first = True, None
    for _ in range(2):
        for run in paths.values():
            run()
        sync()
        got = {path: results(dev, lowered, b) for path, b in buffers.items()}
        first = first or got["plain"]
        equal &= all(got[p][n].tobytes() == got["plain"][n].tobytes() for p in got for n in got[p])
    vs_numpy = None
    if against_numpy and on_gpu:
        assert first is not None
        vs_numpy = max_abs_err(first, run_step(NumpyDevice(), lowered, feeds))
    times = {path: time_step(run, sync, len(launch_plan), runs, warm=min(10, runs)) for path, run in paths.items()}
    weights = lowered.weight_bytes()
    bound = weights / dev.bandwidth()[0] * 1e3 if on_gpu else None
    graph = times.get("graph")
    kinds = None
    if on_gpu and plot is not None and graph_error is None:
        rows, total, bandwidth = profile_step(dev, placed_step, lowered, buffers["graph"], runs=10)
        kinds = profile_table(rows, total, bandwidth, f"{config} {numerics}")
        try:
            profile_plot(rows, f"{config} {numerics} on {dev.found}", plot)
        except UserError as e:
            kinds.append(f"(no chart: {e})")
    return Row(
        config + (" sampled" if extra else ""),
        numerics,
        len(launch_plan),
        plan.bytes,
        equal,
        vs_numpy,
        times["plain"].step_ms,
        times["plan"].step_ms,
        graph.step_ms if graph else None,
        times["plain"].host_us_per_launch,
        times["plan"].host_us_per_launch,
        graph.host_us_per_launch if graph else None,
        weights,
        bound,
        kinds,
        graph_error,
    )


def _f(v: float | None, fmt: str) -> str:
    return "-" if v is None else format(v, fmt)


def table(rows: list[Row], device: str, cpu: bool) -> list[str]:
    head = (
        "| step | launches | equal | vs numpy | plain ms | plan ms | graph ms | host us/launch plain, plan, graph "
        "| weights MB | weights / bandwidth ms | graph / bound |"
    )
    lines = [f"decode steps on {device}" + (" (the CPU's timings, not a GPU's)" if cpu else ""), head]
    lines.append("|" + "---|" * head.count(" |"))
    for r in rows:
        best = r.graph_ms if r.graph_ms is not None else r.plan_ms
        ratio = best / r.bound_ms if r.bound_ms else None
        lines.append(
            f"| {r.config} {r.numerics} | {r.launches} | {'yes' if r.equal else 'NO'} | {_f(r.vs_numpy, '.1e')} "
            f"| {r.plain_ms:.3f} | {r.plan_ms:.3f} | {_f(r.graph_ms, '.3f')} "
            f"| {r.plain_host_us:.2f}, {r.plan_host_us:.2f}, {_f(r.graph_host_us, '.3f')} "
            f"| {r.weight_bytes / 1e6:.1f} | {_f(r.bound_ms, '.3f')} | {_f(ratio, '.2f')} |"
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("configs", nargs="*", default=["qwen3-0.6b", "llama-3.2-1b"])
    p.add_argument("--backend", default="auto", choices=("auto", "cuda", "numpy"))
    p.add_argument("--numerics", default="f32,bf16,int8", help="comma-separated (default f32,bf16,int8)")
    p.add_argument("--max-len", type=int, default=1024, help="the caches' positions (0: the config's own)")
    p.add_argument(
        "--seen", type=int, default=512, help="positions seen by a decode row (default 512, at most max-len)"
    )
    p.add_argument("--runs", type=int, default=100, help="timed replays of each path (after warm-up)")
    p.add_argument(
        "--against-numpy",
        nargs="*",
        default=["tiny", "tiny-moe", "tiny-prefill"],
        metavar="CONFIG",
        help="configs also run on the numpy runtime and compared, in every numerics (default: the tiny ones)",
    )
    p.add_argument(
        "--sampled",
        default="temperature=0.8,top_k=40,top_p=0.95",
        help="settings of one more row a config, in its first numerics: the step drawing its token on the device "
        "(lane.sample) instead of the arg-max; empty for none",
    )
    p.add_argument("--out", default=os.environ.get("OUT"), help="a folder for gpu_check.txt and .json ($OUT)")
    args = p.parse_args(argv)
    try:
        backend = resolve_backend(args.backend)
    except RuntimeError as e:
        print(f"gpu_check: {e}")
        return 1
    device = cuda.CudaDevice().found if backend == "cuda" else "the numpy runtime on the CPU"
    lines = [f"gpu_check: {device}"]
    print(lines[0], flush=True)
    rows = []
    numerics_asked = args.numerics.split(",")
    sampled = tuple(s for s in args.sampled.split(",") if s)
    todo = [(c, n, args.max_len or None, ()) for c in args.configs for n in numerics_asked]
    todo += [(c, numerics_asked[0], args.max_len or None, sampled) for c in args.configs if sampled]
    if backend == "cuda":
        todo = [(c, n, None, ()) for c in args.against_numpy for n in ("f32", "bf16", "int8", "int8x2")] + todo
        todo += [(c, "f32", None, sampled) for c in args.against_numpy if sampled]
    for config, numerics, max_len, extra in todo:
        figure = None
        if args.out and config not in args.against_numpy:
            label = f"{Path(config).stem}-{numerics}" + ("-sampled" if extra else "")
            figure = str(Path(args.out, f"profile-{label}.png"))
        against = config in args.against_numpy
        rows.append(check(config, numerics, max_len, backend, args.runs, against, figure, args.seen, extra))
        print(f"  {rows[-1].config} {numerics}: {rows[-1].launches} launches, equal {rows[-1].equal}", flush=True)
    lines += table(rows, device, backend != "cuda")
    for r in rows:
        if r.profile:
            lines += ["", *r.profile]
    print("\n".join(lines[1:]))
    if args.out:
        Path(args.out).mkdir(parents=True, exist_ok=True)
        Path(args.out, "gpu_check.txt").write_text("\n".join(lines) + "\n")
        Path(args.out, "gpu_check.json").write_text(json.dumps([asdict(r) for r in rows], indent=1) + "\n")
        print(f"gpu_check: written to {args.out}")
    bad = [r for r in rows if not r.equal or r.graph_error or (r.vs_numpy is not None and r.vs_numpy > 1e-3)]
    for r in bad:
        print(
            f"gpu_check: {r.config} {r.numerics}: paths equal {r.equal}, against numpy {r.vs_numpy}, graph error "
            f"{r.graph_error}"
        )
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
