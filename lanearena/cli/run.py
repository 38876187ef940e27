"""`lanearena run`: the whole pipeline on one decoder step (by default the embedded tiny one; or a config JSON, or a
model directory with its safetensors weights): build, place, verify, lower, run on the GPU where PyCUDA and a
device are (else on the numpy runtime), and compare with the run in which no two arrays share bytes. With a prompt
(`--prompt-ids`, or `--prompt` through the directory's tokenizer.json), it generates instead: the prompt through the
prefill step, then `--generate` greedy decode steps, the caches kept on the device (`lowering.session`)."""

from __future__ import annotations

import json
import sys
import time

from lanearena import api
from lanearena.analysis.arena_problem import problem
from lanearena.cli.budget import add_algorithm, add_flags, placing
from lanearena.cli.config import add_settings, config_of
from lanearena.cli.generation import add_generation_flags, generate, generating
from lanearena.cli.memory import available_memory, check_memory, run_bytes
from lanearena.cli.progress import Progress
from lanearena.errors import UserError
from lanearena.frontend import DecoderConfig, decoder_step
from lanearena.frontend.checkpoint import Checkpoint, is_model_directory
from lanearena.lowering.compile import compare, gpu_timing, placed, resolve_backend
from lanearena.lowering.runtime import unshared
from lanearena.lowering.weights import WeightSource

COMPARISON_COPIES = 4
"""Copies of the inputs and state a comparison holds: drawn, on the device (shared by both runs), and each run's
read back."""


def register(sub) -> None:
    p = sub.add_parser(
        "run",
        help="build, place, lower and run a decoder step, and check it against the unplaced run",
        description="Builds a decoder config's step (with a model directory's weights, else random ones), places "
        "and verifies it, lowers it to kernel launches over its arena and runs it, then runs it again with no two "
        "arrays sharing bytes and prints the arena's bytes, the lower bound and the largest difference between the "
        "two runs (exit code 1 where it exceeds 1e-4). With a prompt, it generates tokens instead.",
    )
    p.add_argument(
        "model",
        nargs="?",
        default="tiny",
        help="a shipped config (tiny, tiny-moe, tiny-prefill, qwen3-0.6b, qwen3-30b-a3b, ...), a JSON file of config "
        "keys or a Hugging Face config.json (- for standard input), or a model directory (config.json and "
        "safetensors weights, which the run uploads; else the weights are random) (default: tiny)",
    )
    add_settings(p, "layers=2")
    add_algorithm(p)
    p.add_argument(
        "--backend",
        default="auto",
        choices=("auto", "numpy", "cuda"),
        help="where to run: cuda (PyCUDA and a GPU), numpy (the CPU runtime), auto (cuda where it can, default)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the random weights and inputs")
    p.add_argument("--no-graph", action="store_true", help="on the GPU, time the plain path, not the CUDA graph")
    add_flags(p)
    add_generation_flags(p)
    p.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    p.add_argument("--verbose", action="store_true", help="list the config's keys ignored as transformers ignores them")
    p.set_defaults(func=run)


def run(args) -> int:
    show = Progress(args.quiet or args.json)
    config = _config(args)
    backend = _backend(args.backend)
    weights = _weights(args.model, config)
    if generating(args):
        report, ok = generate(args, config, weights, backend, show), True
    else:
        report, ok = _compare(args, config, weights, backend, show)
    show.close()
    _print(report, args.json)
    return 0 if ok else 1


def _config(args) -> DecoderConfig:
    """The config `args.model` names, with `--set`; the keys it ignores said on stderr (all with --verbose, and
    always those that look like a misspelling of a key it reads)."""
    notes: list[str] = []
    config = config_of(args.model, args.settings, notes)
    for note in notes:
        if args.verbose or "did you mean" in note:
            print(f"note: {note}", file=sys.stderr)
    return config


def _backend(name: str) -> str:
    try:
        return resolve_backend(name)
    except RuntimeError as e:
        raise UserError(str(e)) from None


def _weights(model: str, config: DecoderConfig) -> WeightSource | None:
    """The checkpoint of a model directory, else None (random weights, drawn from the run's seed)."""
    return Checkpoint(model, config) if is_model_directory(model) else None


def _compare(args, config: DecoderConfig, weights: WeightSource | None, backend: str, show) -> tuple[dict, bool]:
    """The step placed, run as placed and as the unshared reference, and the report of both."""
    times = {}
    t = time.perf_counter()
    module = decoder_step(config)
    times["build_s"] = time.perf_counter() - t
    show(f"placing {config.name}")
    t = time.perf_counter()
    api.place(module, placing(args, show))
    step = placed(module)  # verified, and read from the IR: the one reading of the lowering
    times["place_s"] = time.perf_counter() - t
    if backend == "numpy":
        need = run_bytes(step.step, step.plan.bytes + unshared(step.plan).bytes, COMPARISON_COPIES)
        check_memory(config.name, need, available_memory())
    show(f"running {len(step.step.launches)} launches on {backend}")
    t = time.perf_counter()
    result = compare(step, backend, args.seed, weights)
    times["run_s"] = time.perf_counter() - t
    report = {
        "config": config.name,
        "weights": "checkpoint" if weights is not None else "random",
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
    ok = result.max_abs_err <= 1e-4
    if backend == "cuda":
        report |= gpu_timing(step, result.placed, graph=not args.no_graph, seed=args.seed, weights=weights)
        ok = ok and report["equal_to_plain"] is True
    return report, ok


def _print(report: dict, as_json: bool) -> None:
    if as_json:
        print(json.dumps(report))
        return
    width = max(map(len, report))
    for k, v in report.items():
        print(f"{k:<{width}}  {', '.join(map(str, v)) if isinstance(v, list) else v}")
