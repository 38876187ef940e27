"""`lanearena run`'s generation: a prompt (token ids, text through the model directory's tokenizer.json, or a chat
message through its chat template) run through a `Session` whose caches hold the run's positions, then decode
steps, each token chosen by `decoding` (greedy or sampled) until the end-of-sequence token or the count asked for;
the generated ids (and text, streamed), and the logits of each generated position saved where asked. Every flag is
checked before anything is built."""

from __future__ import annotations

import dataclasses
import itertools
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from lanearena import decoding
from lanearena.cli.generation_config import (
    FLAGS,
    Generation,
    add_sampling_flags,
    check_sampling_flags,
    generation,
    stop_text,
)
from lanearena.cli.memory import added_bytes, available_memory, check_memory
from lanearena.cli.products import f32_products
from lanearena.decoding import Sampling, TextStream
from lanearena.errors import UserError
from lanearena.frontend import DecoderConfig
from lanearena.frontend.model_files import ConfigJson
from lanearena.frontend.stop_strings import StopStrings
from lanearena.frontend.tokenizer import chat_prompt, tokenizer
from lanearena.lowering.serving.session import Admit, Session
from lanearena.lowering.serving.weights import RandomWeights, WeightSource
from lanearena.model import Step

DEFAULT_TOKENS = 16
"""Tokens generated after a prompt where --generate does not say."""

LENGTH_STEP = 64
"""What the caches' length is rounded up to where --max-len does not give it: the prompt and the tokens asked for,
rounded so that runs of about the same length build the same steps."""


def add_generation_flags(p) -> None:
    p.add_argument(
        "--prompt-ids",
        metavar="IDS",
        action="append",
        help="generate after these token ids (1,2,3); given again, after each, the sequences decoded together",
    )
    p.add_argument(
        "--prompt",
        metavar="TEXT",
        action="append",
        help="generate after this text (the model directory's tokenizer.json); given again, after each",
    )
    p.add_argument(
        "--chat",
        metavar="MESSAGE",
        help="generate the answer to this user message, through the directory's chat template (tokenizer_config.json)",
    )
    p.add_argument(
        "--generate",
        type=int,
        metavar="N",
        help=f"tokens to generate at most (default {DEFAULT_TOKENS} with a prompt): fewer where an end token comes",
    )
    p.add_argument(
        "--ignore-eos",
        action="store_true",
        help="go on past the end-of-sequence tokens of config.json and generation_config.json",
    )
    add_sampling_flags(p)
    p.add_argument(
        "--max-len",
        type=int,
        metavar="N",
        help="positions the caches hold (default: the prompt and the tokens asked for, rounded up to a multiple of "
        f"{LENGTH_STEP}; never past the config's max_len, max_position_embeddings)",
    )
    p.add_argument("--logits", metavar="FILE.npy", help="save the logits of each generated position (N x vocab, f32)")
    p.add_argument("--chunk", type=int, default=8, metavar="ROWS", help="rows of the prefill step (default 8)")
    p.add_argument(
        "--debug-poison",
        action="store_true",
        help="poison the arena and computed buffers before every step (a check of the placement; slower)",
    )


def generating(args) -> bool:
    """Whether the run generates (a prompt or a count given) rather than compares."""
    return any(v is not None for v in (args.prompt_ids, args.prompt, args.chat, args.generate))


def check_flags(args) -> None:
    """Refuses, before anything is read or built, flags out of range, and generation flags without a prompt."""
    if args.chunk < 1:
        raise UserError(f"--chunk is the prefill step's rows, at least 1, not {args.chunk}")
    if args.max_len is not None and args.max_len < 1:
        raise UserError(f"--max-len is the positions the caches hold, at least 1, not {args.max_len}")
    if args.seed < 0:
        raise UserError(f"--seed must be at least 0, not {args.seed}")
    if args.generate is not None and args.generate < 0:
        raise UserError(f"--generate takes a count of tokens, not {args.generate}")
    given = [a for a in ("prompt_ids", "prompt", "chat") if getattr(args, a) is not None]
    if len(given) > 1:
        raise UserError(f"give one of --prompt, --prompt-ids and --chat, not {' and '.join(_flag(a) for a in given)}")
    several = len(args.prompt_ids or args.prompt or []) > 1
    if several and args.logits is not None:
        raise UserError("--logits saves the logits of one sequence: give one prompt with it")
    if not generating(args):
        asked = [a for a in ("logits", "ignore_eos", "debug_poison") if getattr(args, a)]
        asked += [a for a in FLAGS.values() if a != "generate" and getattr(args, a) is not None]
        if asked:
            raise UserError(
                f"{_flag(asked[0])} is a flag of generation: give a prompt (--prompt-ids, --prompt, --chat)"
            )
        return
    check_sampling_flags(args)
    if args.logits is not None:
        folder = Path(args.logits).parent
        if not folder.is_dir():
            raise UserError(f"--logits {args.logits}: there is no folder {folder} to write it in")
        if Path(args.logits).is_dir():
            raise UserError(f"--logits {args.logits} is a folder: give the file to write")


def _flag(attribute: str) -> str:
    return "--" + attribute.replace("_", "-")


def _prompts(args, vocab: int) -> tuple[list[list[int]], Any]:
    """Each prompt's token ids (one a --prompt-ids or --prompt given, in order), each id in [0, vocab), and the
    tokenizer that made them (None for --prompt-ids); an empty prompt is refused, naming which."""
    if args.prompt is not None or args.chat is not None:
        flag = "--prompt" if args.prompt is not None else "--chat"
        directory = Path(args.model)
        tok = tokenizer(directory, flag) if directory.is_dir() else None
        if tok is None:
            raise UserError(f"{flag} needs a tokenizer.json in the model directory, and {args.model} is no directory")
        texts = args.prompt if args.prompt is not None else [args.chat]
        out = []
        for text in texts:
            if args.prompt is not None:
                ids = tok.encode(text).ids
            else:
                ids = tok.encode(chat_prompt(directory, text), add_special_tokens=False).ids
            if not ids:
                raise UserError(f"{flag} {text!r} makes no token")
            out.append(_in_range(ids, vocab, flag))
        return out, tok
    if args.prompt_ids is None:
        raise UserError("--generate needs a prompt: --prompt-ids 1,2,3, --prompt TEXT or --chat MESSAGE")
    out = []
    for given in args.prompt_ids:
        try:
            ids = [int(v) for v in given.split(",") if v.strip()]
        except ValueError:
            raise UserError(f"--prompt-ids is token ids separated by commas, not {given!r}") from None
        if not ids:
            raise UserError(f"--prompt-ids {given!r} gives no token: a prompt needs one at least")
        out.append(_in_range(ids, vocab, "--prompt-ids"))
    return out, None


def _in_range(ids: list[int], vocab: int, flag: str) -> list[int]:
    bad = [i for i in ids if not 0 <= i < vocab]
    if bad:
        raise UserError(f"{flag}: token ids must be in [0, {vocab}), not {bad[0]}")
    return ids


def run_length(c: DecoderConfig, needed: int, asked: int | None) -> int:
    """The positions the caches of a run of `needed` positions hold: `asked` (--max-len), else `needed` rounded up
    to a multiple of LENGTH_STEP (and to the attention's splits); never past the config's max_len."""
    flag = f"--max-len {asked}" if asked is not None else "the prompt and --generate"
    if needed > c.max_len or (asked is not None and asked > c.max_len):
        raise UserError(
            f"{flag}: {max(needed, asked or 0)} positions, more than {c.name}'s max_len {c.max_len} "
            "(max_position_embeddings)"
        )
    if asked is not None:
        if asked < c.attn_splits:
            raise UserError(
                f"--max-len {asked} is fewer positions than the attention's splits (attn_splits {c.attn_splits})"
            )
        if asked < needed:
            raise UserError(f"--max-len {asked} is fewer positions than the prompt and --generate need ({needed})")
        return asked
    return min(c.max_len, max(-(-needed // LENGTH_STEP) * LENGTH_STEP, c.attn_splits))


def _admit(config: DecoderConfig) -> Admit:
    """The memory refusal of `run`, for a session's steps as it builds them: what each step adds (its buffers, the
    weights and state it is the first to hold, its largest weight once more in f32 while it is made), the process
    itself with the first, before anything of it is made."""
    seen: list[Step] = []

    def admit(step: Step, nbytes: int) -> None:
        check_memory(config.name, added_bytes(step, nbytes, process=not seen), available_memory())
        seen.append(step)

    return admit


@dataclass(frozen=True)
class Asked:
    """What a generation is asked for, read and checked before anything is built: the prompt's `ids`, the
    `tokenizer` that made them (None for ids given), at most `n` tokens, the `config` with caches of the run's
    length (and, sampling on the device, the step that draws its token by `sampling`; greedy where the token is
    chosen on the host, `Sampling.on_host`), the `stop` ids and the `sampling`; the `generation` asked (its values
    and where each came from) and the tokenizer whose text its stop strings are matched in (`text`)."""

    ids: list[int]
    tokenizer: Any
    n: int
    config: DecoderConfig
    stop: frozenset[int]
    sampling: Sampling
    generation: Generation | None = None
    text: Any = None
    prompts: tuple[list[int], ...] = ()
    """Every prompt (the first is `ids`) where several are given: decoded together, a row a sequence."""


def asked(args, config: DecoderConfig, config_json: ConfigJson | None) -> Asked:
    """The generation `args` ask of `config` (made from `config_json`, where it is a model directory's), every flag
    checked."""
    prompts, tok = _prompts(args, config.vocab)
    ids, longest = prompts[0], max(map(len, prompts))
    config = batched(config, len(prompts))
    wanted = generation(args, config, config_json, DEFAULT_TOKENS)
    n, s = wanted.n, wanted.sampling
    if wanted.sources["max_new_tokens"] != "flag":  # a default, cut to the positions the caches can hold
        n = max(0, min(n, (args.max_len or config.max_len) - longest))
    device = Sampling() if s.on_host else s  # what the step draws by: the arg-max where the host chooses
    sized = dataclasses.replace(
        config,
        max_len=run_length(config, longest + n, args.max_len),
        temperature=device.temperature,
        top_k=device.top_k,
        top_p=device.top_p,
    )
    text = stop_text(args, wanted, tok, config_json)
    if text is None:
        wanted = dataclasses.replace(wanted, stop_strings=())
    several = tuple(prompts) if sized.batch > 1 else ()
    return Asked(ids, tok, n, sized, wanted.eos, s, dataclasses.replace(wanted, n=n), text, several)


def batched(config: DecoderConfig, prompts: int) -> DecoderConfig:
    """`config` serving `prompts` sequences at once: its `batch` (`--set batch=B`) where given, else one sequence
    a prompt; more prompts than a given batch are refused."""
    batch = config.batch
    if batch == 1:
        return dataclasses.replace(config, batch=prompts) if prompts > 1 else config
    if prompts > batch:
        raise UserError(
            f"{prompts} prompts, more than the {batch} sequences of --set batch={batch}: give at most {batch}, or "
            "a larger batch"
        )
    return config


def generate(args, run: Asked, weights: WeightSource | None, backend: str, show) -> dict:
    """The report of generation `run`: the prompt's and the generated tokens (and text, streamed to standard output
    as it is generated unless --json), why it stopped, the numerics, the times it took."""
    ids, tok, n, config, stop = run.ids, run.tokenizer, run.n, run.config, run.stop
    t = time.perf_counter()
    session = new_session(args, run, weights, backend, show)
    ready = time.perf_counter() - t
    in_f32 = f32_products(session.decode.module)
    show(f"generating {n} tokens after {len(ids)}")
    streamed = tok is not None and not args.json
    stream = TextStream(tok.decode, _write) if streamed else lambda token: None
    times: list[float] = []

    def chosen(token: int) -> None:
        times.append(time.perf_counter())
        stream(token)

    t = time.perf_counter()
    until = (
        StopStrings(decode_special(run.text), run.generation.stop_strings, ids)
        if run.text is not None and run.generation is not None
        else None
    )
    tokens, logits = decoding.generate(session.next, ids, n, run.sampling, stop, chosen, args.logits is not None, until)
    spent = time.perf_counter() - t
    if streamed:
        _write("\n")
    if logits is not None:
        try:
            np.save(args.logits, logits)
        except OSError as e:
            raise UserError(f"--logits {args.logits}: cannot write: {e.strerror or e}") from None
    report: dict = {
        **report_head(config, weights, backend),
        "prompt": ids,
        "tokens": tokens,
        "stopped": "eos" if tokens and tokens[-1] in stop else "stop" if until and until.matched else "length",
        "sampling": dataclasses.asdict(run.sampling) if run.sampling.temperature else "greedy",
        **({"generation": run.generation.report()} if run.generation is not None else {}),
        **in_f32,
    }
    if tok is not None and args.json:
        report["text"] = tok.decode(tokens)
    report |= {
        "arena_bytes": session.decode.arena_bytes,
        "prefill_arena_bytes": session.prefill.arena_bytes if session.prefill is not None else 0,  # 0: not run
        "setup_s": round(ready, 4),
        "generate_s": round(spent, 4),
        **speed(t, times, session),
    }
    return report


def report_head(config: DecoderConfig, weights: WeightSource | None, backend: str) -> dict:
    """The first fields of a generation's report: the config, where its weights came from, numerics, backend and the
    caches' positions."""
    return {
        "config": config.name,
        "weights": "random" if weights is None else "checkpoint",
        "numerics": config.numerics,
        "backend": backend,
        "max_len": config.max_len,
    }


def new_session(args, run: Asked, weights: WeightSource | None, backend: str, show) -> Session:
    """The session of generation `run` (`run.config`'s steps, of a row a sequence where it serves several), with
    the steps its prompts run through built."""
    config = run.config
    show(f"placing and lowering {config.name}, uploading its weights")
    placing = {"algorithm": args.algorithm, "time_limit": args.time_limit, "work": args.work}
    session = Session(
        config,
        weights or RandomWeights(args.seed),
        backend,
        max(1, min(args.chunk, config.max_len)),
        _admit(config) if backend == "numpy" else None,
        graph=not args.no_graph,
        debug_poison=args.debug_poison,
        batch=config.batch,
        **placing,
    )
    session.ready(max(map(len, run.prompts or (run.ids,))))
    return session


def speed(start: float, times: list[float], session: Session) -> dict:
    """The speed fields of a generation that began at `start` and chose its tokens at `times` (perf_counter
    seconds): `ttft_ms` (the prompt given to the first token chosen), `decode_ms` (the median time between two
    tokens), `tokens_per_s` (the tokens after the first over the time from the first to the last), and the decode
    step's bandwidth bound (`bound_ms`: its weights' bytes streamed once at the device's memory bandwidth,
    `bandwidth` saying which figure) and its share of `decode_ms` (`bound_share`); None where there are too few
    tokens, or (the bound) no memory bandwidth: the numpy runtime has none of its own."""
    gaps = [b - a for a, b in itertools.pairwise(times)]
    decode_ms = statistics.median(gaps) * 1e3 if gaps else None
    rate = bandwidth(session.device)
    bound_ms = session.decode.lowered.weight_bytes() / rate[0] * 1e3 if rate is not None else None
    return {
        "ttft_ms": round((times[0] - start) * 1e3, 4) if times else None,
        "decode_ms": round(decode_ms, 4) if decode_ms is not None else None,
        "tokens_per_s": round(len(gaps) / (times[-1] - times[0]), 3) if gaps else None,
        "bound_ms": round(bound_ms, 4) if bound_ms is not None else None,
        "bound_share": float(f"{bound_ms / decode_ms:.4g}") if bound_ms is not None and decode_ms else None,
        "bandwidth": f"{rate[0] / 1e12:.2f} TB/s ({rate[1]})" if rate is not None else "none (the numpy runtime)",
    }


def bandwidth(dev) -> tuple[float, str] | None:
    """The memory bandwidth of device `dev` (bytes a second, and where the figure comes from), or None where it has
    none (the numpy runtime)."""
    own = getattr(dev, "bandwidth", None)
    return own() if own is not None else None


def decode_special(tok):
    """The text of token ids as stop strings are matched in: special tokens kept, as transformers matches them."""
    return lambda ids: tok.decode(ids, skip_special_tokens=False)


def _write(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()
