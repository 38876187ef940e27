"""`lanearena run`'s generation: a prompt (token ids, or text through the model directory's tokenizer.json) run
through a `Session`, then greedy decode steps; the generated ids (and text), and the logits of each generated
position saved where asked."""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path
from typing import Any

import numpy as np

from lanearena.analysis.arena_problem import problem
from lanearena.cli.memory import available_memory, check_memory, run_bytes
from lanearena.errors import UserError
from lanearena.frontend import DecoderConfig, decoder_step
from lanearena.lowering.session import Session
from lanearena.lowering.weights import RandomWeights, WeightSource
from lanearena.model import ALIGN
from lanearena.passes.convert import step_of, steps

DEFAULT_TOKENS = 16
"""Tokens generated after a prompt where --generate does not say."""


def add_generation_flags(p) -> None:
    p.add_argument("--prompt-ids", metavar="IDS", help="generate after these token ids (1,2,3)")
    p.add_argument("--prompt", metavar="TEXT", help="generate after this text (the model directory's tokenizer.json)")
    p.add_argument(
        "--generate", type=int, metavar="N", help=f"greedy tokens to generate (default {DEFAULT_TOKENS} with a prompt)"
    )
    p.add_argument("--logits", metavar="FILE.npy", help="save the logits of each generated position (N x vocab, f32)")
    p.add_argument("--chunk", type=int, default=8, metavar="ROWS", help="rows of the prefill step (default 8)")


def generating(args) -> bool:
    """Whether the run generates (a prompt or a count given) rather than compares."""
    return args.prompt_ids is not None or args.prompt is not None or args.generate is not None


def _tokenizer(model: str):
    """The tokenizer of model directory `model` (its tokenizer.json, through the `tokenizers` library)."""
    path = Path(model) / "tokenizer.json"
    if not path.is_file():
        raise UserError(f"--prompt needs a tokenizer.json in the model directory, and {model} has none")
    try:
        from tokenizers import Tokenizer
    except ImportError:
        raise UserError("--prompt reads tokenizer.json with the tokenizers library: pip install tokenizers") from None
    return Tokenizer.from_file(str(path))


def _prompt(args) -> tuple[list[int], Any]:
    """The prompt's token ids, and the tokenizer that made them (None for --prompt-ids)."""
    if args.prompt is not None and args.prompt_ids is not None:
        raise UserError("give --prompt or --prompt-ids, not both")
    if args.prompt is not None:
        tokenizer = _tokenizer(args.model)
        return tokenizer.encode(args.prompt).ids, tokenizer
    if args.prompt_ids is None:
        raise UserError("--generate needs a prompt: --prompt-ids 1,2,3 or --prompt TEXT")
    try:
        ids = [int(v) for v in args.prompt_ids.split(",") if v.strip()]
    except ValueError:
        raise UserError(f"--prompt-ids is token ids separated by commas, not {args.prompt_ids!r}") from None
    if not ids:
        raise UserError("--prompt-ids gives no token")
    return ids, None


def _check_memory(config: DecoderConfig, chunk: int) -> None:
    """The memory refusal of `run`, for a session: its decode step's weights and state once, the arenas of both
    steps at most what they take unshared."""
    total = 0
    for rows in {1, chunk}:
        (op,) = steps(decoder_step(dataclasses.replace(config, rows=rows)))
        step = step_of(op)[0]
        total += sum(it.bytes for it in problem(step, ALIGN).items)
    (op,) = steps(decoder_step(dataclasses.replace(config, rows=1)))
    check_memory(config.name, run_bytes(step_of(op)[0], total, copies=1), available_memory())


def generate(args, config: DecoderConfig, weights: WeightSource | None, backend: str, show) -> dict:
    """The report of a generation: the prompt's and the generated tokens (and text), the times it took."""
    ids, tokenizer = _prompt(args)
    n = DEFAULT_TOKENS if args.generate is None else args.generate
    if n < 0:
        raise UserError(f"--generate takes a count of tokens, not {n}")
    chunk = max(1, min(args.chunk, config.max_len))
    if backend == "numpy":
        _check_memory(config, chunk)
    show(f"placing and lowering {config.name}, uploading its weights")
    t = time.perf_counter()
    placing = {"algorithm": args.algorithm, "time_limit": args.time_limit, "work": args.work}
    session = Session(config, weights or RandomWeights(args.seed), backend, chunk, **placing)
    ready = time.perf_counter() - t
    show(f"generating {n} tokens after {len(ids)}")
    t = time.perf_counter()
    tokens, logits = session.generate(ids, n)
    spent = time.perf_counter() - t
    if args.logits:
        np.save(args.logits, logits)
    report: dict = {
        "config": config.name,
        "weights": "random" if weights is None else "checkpoint",
        "backend": backend,
        "prompt": ids,
        "tokens": tokens,
    }
    if tokenizer is not None:
        report["text"] = tokenizer.decode(tokens)
    report |= {
        "arena_bytes": session.decode.arena_bytes,
        "prefill_arena_bytes": session.prefill.arena_bytes if session.prefill is not None else 0,
        "setup_s": round(ready, 4),
        "generate_s": round(spent, 4),
    }
    return report
