"""The arena of a batched decode step: for every shipped Hugging Face config (examples/configs/*.json) at a batch of
1, 8 and 64 sequences, the arena's bytes as the default placement puts it, the lower bound (the most bytes live at
one launch) and the bytes with no reuse (every placed array and scratch at bytes of its own), measured in this run; with
`--markdown`, as the table docs/placement.md shows.

    python bench/batch_placement.py [--batches 1,8,64] [--only qwen3-0.6b,...] [--markdown]"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from lanearena import api
from lanearena.arena_report import no_reuse_bytes
from lanearena.frontend import decoder_step, load

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = sorted((ROOT / "examples" / "configs").glob("*.json"))


def measured(config: Path, batch: int) -> tuple[int, int, int, float]:
    """(arena bytes, lower bound, bytes with no reuse, seconds to build and place) of `config`'s decode step of
    `batch` sequences, verified."""
    start = time.perf_counter()
    module = decoder_step(load(str(config)), batch=batch)
    api.place(module)
    api.verify(module)
    ((_, plan),) = api.placed_steps(module)
    assert plan is not None  # placed just now
    return plan.bytes, plan.lower_bound, no_reuse_bytes(plan), time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", default="1,8,64", help="the batch sizes, comma-separated")
    parser.add_argument("--only", default="", help="config names (file stems), comma-separated")
    parser.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    args = parser.parse_args()
    batches = [int(b) for b in args.batches.split(",")]
    configs = [c for c in CONFIGS if not args.only or c.stem in args.only.split(",")]
    rows = []
    for config in configs:
        for batch in batches:
            arena, bound, no_reuse, seconds = measured(config, batch)
            rows.append((config.stem, batch, arena, bound, no_reuse, seconds))
            if not args.markdown:
                print(
                    f"{config.stem:22} B={batch:<3} arena {arena:>13,}  lower bound {bound:>13,}  "
                    f"no reuse {no_reuse:>14,}  ({no_reuse / arena:5.1f}x)  {seconds:5.1f} s",
                    flush=True,
                )
    if args.markdown:
        print("| config | batch | arena bytes | lower bound | no reuse | no reuse / arena |")
        print("|---|---:|---:|---:|---:|---:|")
        for name, batch, arena, bound, no_reuse, _ in rows:
            print(f"| {name} | {batch} | {arena:,} | {bound:,} | {no_reuse:,} | {no_reuse / arena:.1f}x |")


if __name__ == "__main__":
    main()
