"""`lanearena run`: the whole pipeline on one decoder step (by default the embedded tiny one): build, place,
verify, lower, run on the GPU where PyCUDA and a device are (else on the numpy runtime), and compare with the run
in which no two arrays share bytes."""

from __future__ import annotations

import json
import time

from lanearena import api, placement
from lanearena.analysis.lifetimes import problem
from lanearena.cli.budget import add_flags
from lanearena.cli.progress import Progress
from lanearena.errors import UserError
from lanearena.frontend import ConfigError, decoder_step, load
from lanearena.lowering.compile import compare, gpu_timing, placed, resolve_backend
from lanearena.lowering.runtime import feed_bytes

RUN_FACTOR = 2.5
"""Host bytes a run on the numpy runtime takes for each byte of its feeds, about: the feeds, each run's device
holding them as it loads them (the placed run's and the reference's), the transient of drawing them. Measured peaks:
2.2x on llama-3.2-1b's two layers (1.15 GB for 0.52 GB of feeds), 2.5x on qwen2.5-0.5b's (0.34 GB for 0.13 GB)."""


def available_memory() -> int | None:
    """The bytes this machine can give a process now (Linux's MemAvailable), or None where it does not say."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def check_memory(name: str, feeds: int, available: int | None) -> None:
    """Refuses a numpy run whose feeds of `feeds` bytes would take more memory than is `available`, before it is
    drawn, rather than have the system kill the process half way."""
    need = RUN_FACTOR * feeds
    if available is not None and need > available:
        raise UserError(
            f"{name} needs about {need / 1e9:.1f} GB to run on the numpy runtime ({feeds / 1e9:.1f} GB "
            f"of weights, inputs and state, held by the feeds and by both runs), more than the {available / 1e9:.1f} "
            "GB free here: make it smaller with --set (fewer layers, a smaller vocab or max_len, fewer "
            "experts or a smaller expert_ffn), or `lanearena build` it for the arena alone"
        )


def register(sub) -> None:
    p = sub.add_parser("run", help="build, place, lower and run a decoder step, and check it against the unplaced run")
    p.add_argument("config", nargs="?", default="tiny", help="a shipped config or a JSON file (default: tiny)")
    p.add_argument("--set", dest="settings", action="append", default=[], metavar="KEY=VALUE")
    p.add_argument("--algorithm", default="best", choices=placement.ALGORITHMS)
    p.add_argument("--backend", default="auto", choices=("auto", "numpy", "cuda"))
    p.add_argument("--seed", type=int, default=0, help="seed of the random weights and inputs")
    p.add_argument("--no-graph", action="store_true", help="on the GPU, time the plain path, not the CUDA graph")
    add_flags(p)
    p.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    p.set_defaults(func=run)


def run(args) -> int:
    show = Progress(args.quiet or args.json)
    times = {}
    try:
        config = load(args.config, args.settings)
    except ConfigError as e:
        raise UserError(str(e)) from None
    t = time.perf_counter()
    module = decoder_step(config)
    times["build_s"] = time.perf_counter() - t
    show(f"placing {config.name}")
    t = time.perf_counter()
    api.place(module, args.algorithm, time_limit=args.time_limit, work=args.work, progress=show)
    step = placed(module)  # verified, and read from the IR: the one reading of the lowering
    times["place_s"] = time.perf_counter() - t
    try:
        backend = resolve_backend(args.backend)
    except RuntimeError as e:
        raise UserError(str(e)) from None
    if backend == "numpy":
        check_memory(config.name, feed_bytes(step.step), available_memory())
    show(f"running {len(step.step.launches)} launches on {backend}")
    t = time.perf_counter()
    result = compare(step, backend, args.seed)
    times["run_s"] = time.perf_counter() - t
    show.close()
    report = {
        "config": config.name,
        "launches": len(step.step.launches),
        "arena_bytes": step.plan.bytes,
        "lower_bound_bytes": step.plan.lower_bound,
        "no_reuse_bytes": sum(it.bytes for it in problem(step.step, step.plan.align).items),
        "algorithm": step.plan.algorithm,
        "backend": backend,
        "device": result.device,
        "max_abs_err": result.max_abs_err,
        "outputs": sorted(result.placed),
        **{k: round(v, 4) for k, v in times.items()},
    }
    if backend == "cuda":
        report |= gpu_timing(step, result.placed, graph=not args.no_graph, seed=args.seed)
    if args.json:
        print(json.dumps(report))
    else:
        width = max(map(len, report))
        for k, v in report.items():
            print(f"{k:<{width}}  {', '.join(v) if isinstance(v, list) else v}")
    return 0 if result.max_abs_err <= 1e-4 and report.get("equal_to_plain", True) else 1
