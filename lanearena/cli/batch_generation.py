"""`lanearena run`'s generation after several prompts at once (`--prompt-ids` or `--prompt` given more than once):
a session of a sequence slot a prompt (or `--set batch=B` slots), each prompt prefilled in its slot, then the
sequences decoded together by the decode step of a row a slot (`sequences.generate_many`); the report gives a
`sequences` list, one entry a prompt, each with its tokens and why it stopped, and the steps' arena bytes."""

from __future__ import annotations

import dataclasses
import time

from lanearena.cli.generation import Asked, decode_special, new_session, report_head
from lanearena.frontend.stop_strings import StopStrings
from lanearena.lowering.serving.sequences import generate_many
from lanearena.lowering.serving.weights import WeightSource


def generate_batch(args, run: Asked, weights: WeightSource | None, backend: str, show) -> dict:
    """The report of generation `run` after its several prompts: each sequence's prompt, tokens (and text), and
    why it stopped; the numerics, the steps' arena bytes, the times it took."""
    config, tok = run.config, run.tokenizer
    t = time.perf_counter()
    session = new_session(args, run, weights, backend, show)
    ready = time.perf_counter() - t
    show(f"generating {run.n} tokens after each of {len(run.prompts)} prompts, {config.batch} sequences a step")
    t = time.perf_counter()
    strings = run.generation.stop_strings if run.generation is not None else ()
    until = None
    if run.text is not None and strings:  # a stop-string matcher a sequence

        def until(prompt):
            return StopStrings(decode_special(run.text), strings, prompt)

    done = generate_many(session, run.prompts, run.n, run.sampling, run.stop, until=until)
    spent = time.perf_counter() - t
    sequences = []
    for prompt, g in zip(run.prompts, done, strict=True):
        entry: dict = {"prompt": prompt, "tokens": g.tokens, "stopped": g.stopped}
        if tok is not None:
            entry["text"] = tok.decode(g.tokens)
        sequences.append(entry)
    generated = sum(len(g.tokens) for g in done)
    assert session.batched is not None  # a session of several sequences
    report: dict = {
        **report_head(config, weights, backend),
        "batch": config.batch,
        "sampling": dataclasses.asdict(run.sampling) if run.sampling.temperature else "greedy",
        **({"generation": run.generation.report()} if run.generation is not None else {}),
        "sequences": sequences,
        "arena_bytes": session.batched.arena_bytes,
        "decode_arena_bytes": session.decode.arena_bytes,
        "prefill_arena_bytes": session.prefill.arena_bytes if session.prefill is not None else 0,  # 0: not run
        "setup_s": round(ready, 4),
        "generate_s": round(spent, 4),
        "tokens_per_s": round(generated / spent, 3) if spent > 0 else None,
    }
    if not args.json:  # a line a sequence
        del report["sequences"]
        for k, s in enumerate(sequences, 1):
            report[f"sequence {k}"] = " ".join(map(str, s["tokens"])) + f" ({s['stopped']})"
            if "text" in s:
                report[f"text {k}"] = repr(s["text"])
    return report
