"""The published models' steps, whole: each config.json of examples/configs built as the decode step (one row) and a
prefill chunk (`--rows`), placed by the default algorithm, and its launches, arena bytes, lower bound and bytes
without reuse printed as docs/hf-configs.md's table. With `--run`, each is also run on the numpy runtime CI-sized as
docs/hf-configs.md says (`--set layers=2 --set vocab=4096 --set max_len=256`, and `experts=8` for a mixture of more),
placed against unplaced, with its largest difference and time; `--set KEY=VALUE` adds settings to every run (a
machine with less memory than a model's two runs take: Mixtral-8x7B's two layers of 8 experts of 14336 x 4096 hold
2.8e9 weight values, about 28 GB of feeds and device buffers on the numpy runtime).

    python bench/models.py [--rows 64] [--run] [--set expert_ffn=3584] [MODEL ...]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from lanearena import api
from lanearena.analysis.arena_problem import problem
from lanearena.frontend import decoder_step, load
from lanearena.lowering.compile import Placed, compare, placed
from lanearena.options import PlaceOptions

CONFIGS = Path(__file__).resolve().parents[1] / "examples" / "configs"
MODELS = ("llama-3.2-1b", "mistral-7b-v0.3", "qwen2.5-0.5b", "mixtral-8x7b-v0.1", "qwen1.5-moe-a2.7b")
CI_SIZED = ["layers=2", "vocab=4096", "max_len=256"]


def placed_model(name: str, settings: list[str]) -> Placed:
    """The step of model `name` with `settings`, placed by the default algorithm and verified."""
    module = decoder_step(load(str(CONFIGS / f"{name}.json"), settings))
    api.place(module, PlaceOptions("best"))
    return placed(module)


def figures(names: list[str], rows: int) -> None:
    print("| model | step | launches | arena bytes | lower bound | bytes without reuse |")
    print("|---|---|---|---|---|---|")
    for name in names:
        for what, settings in (("decode", []), (f"prefill {rows}", [f"rows={rows}"])):
            p = placed_model(name, settings)
            step, plan = p.step, p.plan
            no_reuse = sum(it.bytes for it in problem(step, plan.align).items)
            print(f"| {name} | {what} | {len(step.launches)} | {plan.bytes} | {plan.lower_bound} | {no_reuse} |")


def runs(names: list[str], extra: list[str]) -> None:
    print("| model | settings | launches | arena bytes | lower bound | max_abs_err | run |")
    print("|---|---|---|---|---|---|---|")
    for name in names:
        settings = list(CI_SIZED)
        experts = load(str(CONFIGS / f"{name}.json")).experts
        if experts is not None and experts > 8:
            settings.append("experts=8")
        settings += extra
        print(f"running {name} {' '.join(settings)}", file=sys.stderr)
        p = placed_model(name, settings)
        step, plan = p.step, p.plan
        start = time.perf_counter()
        result = compare(p, "numpy", seed=0)
        took = time.perf_counter() - start
        print(
            f"| {name} | {' '.join(settings)} | {len(step.launches)} | {plan.bytes} | {plan.lower_bound} | "
            f"{result.max_abs_err} | {took:.0f} s |"
        )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("models", nargs="*", default=list(MODELS), help=f"configs of examples/configs ({', '.join(MODELS)})")
    p.add_argument("--rows", type=int, default=64, help="rows of the prefill chunk (default 64)")
    p.add_argument("--run", action="store_true", help="also run each CI-sized on the numpy runtime")
    p.add_argument("--set", dest="settings", action="append", default=[], metavar="KEY=VALUE")
    args = p.parse_args()
    figures(args.models, args.rows)
    if args.run:
        print()
        runs(args.models, args.settings)


if __name__ == "__main__":
    main()
