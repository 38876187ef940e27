"""`lanearena run`: the whole pipeline on one decoder step (by default the embedded tiny one; or a config JSON, a
model directory with its safetensors weights, or a step's .mlir file): build, place, verify, lower, run on the GPU
where PyCUDA and a device are (else on the numpy runtime), and compare with the run in which no two arrays share
bytes. With a prompt (`--prompt-ids`, `--prompt` through the directory's tokenizer.json, or `--chat`), it generates
instead (`cli.generation`). Every flag and every file of a model directory is checked before a step is built."""

from __future__ import annotations

import dataclasses
import json
import sys
import time
from pathlib import Path

from lanearena import api
from lanearena.analysis.arena_problem import problem
from lanearena.cli.batch_generation import generate_batch
from lanearena.cli.budget import add_algorithm, add_flags, placing
from lanearena.cli.config import add_settings, config_json_of, config_of
from lanearena.cli.generation import add_generation_flags, asked, check_flags, generate, generating, run_length
from lanearena.cli.memory import OVERHEAD, available_memory, check_gpu_memory, check_memory, config_bytes, run_bytes
from lanearena.cli.products import f32_products
from lanearena.cli.progress import Progress
from lanearena.errors import Overflow, UserError
from lanearena.frontend import DecoderConfig, decoder_step
from lanearena.frontend.checkpoint import Checkpoint, has_weights, no_weights
from lanearena.frontend.model_files import ConfigJson
from lanearena.frontend.step_weights import step_weights
from lanearena.lowering.codegen.placed import placed
from lanearena.lowering.runtime import cuda
from lanearena.lowering.runtime.backend import resolve_backend
from lanearena.lowering.serving.compare import compare, gpu_timing
from lanearena.lowering.serving.weights import WeightSource

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
        "keys or a Hugging Face config.json (- for standard input; random weights), a model directory (config.json "
        "and safetensors weights, which the run uploads), or a step's .mlir file (run with random inputs and "
        "weights) (default: tiny)",
    )
    add_settings(p, "layers=2")
    add_algorithm(p)
    p.add_argument(
        "--backend",
        default="auto",
        choices=("auto", "numpy", "cuda"),
        help="where to run: cuda (PyCUDA and a GPU), numpy (the CPU runtime), auto (cuda where it can, default)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the random weights and inputs (and of sampling)")
    p.add_argument(
        "--random-weights",
        action="store_true",
        help="run a model directory's config with random weights (a directory without safetensors is refused)",
    )
    p.add_argument(
        "--no-graph",
        action="store_true",
        help="on the GPU, no CUDA graph: time the plain path; generate through the launch plan",
    )
    add_flags(p)
    add_generation_flags(p)
    p.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    p.add_argument("--verbose", action="store_true", help="list the config's keys ignored as transformers ignores them")
    p.set_defaults(func=run)


def run(args) -> int:
    show = Progress(args.quiet or args.json)
    check_flags(args)
    if args.model.endswith(".mlir"):
        report, ok = _run_step_file(args, show)
        show.close()
        _print(report, args.json)
        return 0 if ok else 1
    config_json = config_json_of(args.model)  # a model directory's: read once, handed to each of its readers
    config = _config(args, config_json)
    backend = _backend(args.backend)
    wanted = asked(args, config, config_json) if generating(args) else None
    if wanted is not None:
        config = wanted.config
    elif args.max_len is not None:
        config = dataclasses.replace(config, max_len=run_length(config, 1, args.max_len))
    weights = _weights(config_json, config, args.random_weights)
    if isinstance(weights, Checkpoint):  # every tensor, against the whole step's weights, before any step is built
        weights.check(step_weights(config))
    if backend == "numpy":  # before a step is built: one of a million layers takes minutes to find too large
        check_memory(args.model, config_bytes(config), available_memory())
    else:  # the GPU's: its weights and caches (a cache a sequence slot)
        check_gpu_memory(args.model, config_bytes(config) - OVERHEAD, cuda.device_memory())
    try:
        if wanted is not None and wanted.prompts:
            report, ok = generate_batch(args, wanted, weights, backend, show), True
        elif wanted is not None:
            report, ok = generate(args, wanted, weights, backend, show), True
        else:
            t = time.perf_counter()
            module = decoder_step(config)
            built = {"build_s": time.perf_counter() - t}
            report, ok = _compare(args, config.name, module, weights, backend, show, built)
            report = {"config": config.name, "numerics": config.numerics, **report}
    except Overflow as e:  # the weights' fault, not the config's
        if str(Path(args.model)) in str(e):  # located already: the checkpoint's file
            raise
        raise UserError(f"{args.model}: {e}") from None
    except UserError as e:
        if args.model in str(e) or str(e).startswith("--"):  # located already, or a flag's
            raise
        # a step the config makes and the kernels refuse (a grid past CUDA's, ...): the config is at fault
        raise UserError(f"{args.model}: the config's step cannot run: {e}") from None
    show.close()
    _print(report, args.json)
    return 0 if ok else 1


def _config(args, config_json: ConfigJson | None) -> DecoderConfig:
    """The config `args.model` names (made from `config_json` where that is a model directory's), with `--set`; the
    keys it ignores said on stderr (all with --verbose, and always those that look like a misspelling of a key it
    reads), and any other note always (f32 taken for int8)."""
    notes: list[str] = []
    config = config_of(config_json or args.model, args.settings, notes)
    for note in notes:
        if args.verbose or "did you mean" in note or "ignored key" not in note:
            print(f"note: {note}", file=sys.stderr)
    return config


def _backend(name: str) -> str:
    try:
        return resolve_backend(name)
    except RuntimeError as e:
        raise UserError(str(e)) from None


def _weights(config_json: ConfigJson | None, config: DecoderConfig, random: bool) -> WeightSource | None:
    """The checkpoint of the model directory whose config.json is `config_json`, else None (random weights, drawn
    from the run's seed): a directory without safetensors weights is refused, naming what it holds, unless `random`
    weights are asked for; what its upload rounds, where it rounds anything, said on stderr."""
    if random or config_json is None:
        return None
    directory = config_json.path.parent
    if not has_weights(directory):
        raise no_weights(directory)
    checkpoint = Checkpoint(directory, config, config_json)
    if (rounding := checkpoint.rounding()) is not None:
        print(f"note: {rounding}", file=sys.stderr)
    return checkpoint


def _run_step_file(args, show) -> tuple[dict, bool]:
    """A `lane.step` written by hand (or by `lanearena build`) run as a config's step is: placed (unless it is),
    run as placed and unshared with random inputs and weights, and compared."""
    if generating(args):
        raise UserError(f"{args.model} is a step: it runs as it is, with no prompt (generation takes a config)")
    if args.settings or args.random_weights or args.max_len is not None:
        raise UserError(f"{args.model} is a step: --set, --max-len and --random-weights are for configs")
    try:
        module = api.parse_file(args.model)
    except UserError as e:
        if "is not registered" not in str(e):
            raise
        raise UserError(f"{e} (lanearena run takes one lane.step; lanearena-run runs func and memref MLIR)") from None
    report, ok = _compare(args, args.model, module, None, _backend(args.backend), show)
    return {"step": args.model, **report}, ok


def _compare(
    args, name: str, module, weights: WeightSource | None, backend: str, show, times: dict[str, float] | None = None
) -> tuple[dict, bool]:
    """The step of `module` placed, run as placed and as the unshared reference, and the report of both (with the
    `times` taken before, in seconds)."""
    times = dict(times or {})
    show(f"placing {name}")
    t = time.perf_counter()
    api.place(module, placing(args, show))
    step = placed(module)  # verified, and read from the IR: the one reading of the lowering
    times["place_s"] = time.perf_counter() - t
    if backend == "numpy":
        need = run_bytes(step.step, step.plan.bytes + step.unshared.arena_bytes, COMPARISON_COPIES)
        check_memory(name, need, available_memory())
    show(f"running {len(step.step.launches)} launches on {backend}")
    t = time.perf_counter()
    result = compare(step, backend, args.seed, weights)
    times["run_s"] = time.perf_counter() - t
    report = {
        **f32_products(module),
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
        if isinstance(v, dict):  # f32_products: count 7, of 9, k 80
            v = ", ".join(f"{a} {' '.join(map(str, b)) if isinstance(b, list) else b}" for a, b in v.items())
        print(f"{k:<{width}}  {', '.join(map(str, v)) if isinstance(v, list) else v}")
