"""`lanearena run`'s generation settings, each from the first of: its flag; `--set` (the config's own temperature,
top_k, top_p); the model directory's generation_config.json (or, where it has none, config.json's legacy
generation keys, as transformers reads them: `frontend.generation_config`); a config's own keys (a lanearena config
that samples); the defaults, transformers' where a model directory is given (greedy; sampled, temperature 1 and
top_k 50) and neutral without one (every token kept). `--json` names where each came from."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Any

from lanearena.decoding import Sampling
from lanearena.errors import UserError
from lanearena.frontend import DecoderConfig
from lanearena.frontend.generation_config import GenerationDefaults, generation_defaults
from lanearena.frontend.model_files import ConfigJson
from lanearena.frontend.tokenizer import eos_by_file, tokenizer

FLAGS = {
    "temperature": "temperature",
    "top_k": "top_k",
    "top_p": "top_p",
    "min_p": "min_p",
    "repetition_penalty": "repetition_penalty",
    "max_new_tokens": "generate",
    "stop_strings": "stop",
}
"""Each generation key and the attribute of the flag that gives it."""

OWN = {"temperature": 0.0, "top_k": 0, "top_p": 1.0}
"""The generation keys a decoder config holds itself (`--set temperature=...`), and its defaults of them."""

NEUTRAL = {"temperature": 1.0, "top_k": 0, "top_p": 1.0, "min_p": 0.0, "repetition_penalty": 1.0, "stop_strings": ()}
"""The defaults without a model directory: every token kept, nothing penalized."""

TRANSFORMERS = NEUTRAL | {"top_k": 50}
"""transformers' defaults (`GenerationConfig._get_default_generation_params`), where a model directory is given."""


def add_sampling_flags(p) -> None:
    """The flags of how tokens are chosen and where generation stops: each None unless given."""
    p.add_argument(
        "--temperature",
        type=float,
        help="sample at this temperature (0: the arg-max, greedy; default: the model directory's "
        "generation_config.json, else greedy)",
    )
    p.add_argument(
        "--top-k", type=int, help="sample from the K most likely tokens (0: all; default 50, as transformers)"
    )
    p.add_argument("--top-p", type=float, help="sample from the fewest tokens whose probability reaches P (default 1)")
    p.add_argument(
        "--min-p",
        type=float,
        help="sample from the tokens at least P times as likely as the likeliest (default 0: all)",
    )
    p.add_argument(
        "--repetition-penalty",
        type=float,
        metavar="R",
        help="divide the positive logits of tokens seen so far by R, multiply the negative (default 1: none)",
    )
    p.add_argument(
        "--stop",
        action="append",
        metavar="TEXT",
        help="stop once the text generated completes TEXT (repeatable; across tokens; needs tokenizer.json)",
    )


@dataclass(frozen=True)
class Generation:
    """What a generation is asked: its `sampling`, at most `n` tokens, its `stop_strings` and end-of-sequence ids
    (`eos`), and `sources`, where each key came from ("flag", "--set", "generation_config.json", "config.json",
    "config", "default")."""

    sampling: Sampling
    n: int
    stop_strings: tuple[str, ...]
    eos: frozenset[int]
    sources: dict[str, str] = field(default_factory=dict)

    def report(self) -> dict:
        """The values and their sources, for --json."""
        s = self.sampling
        return {
            "do_sample": s.temperature > 0,
            "temperature": s.temperature,
            "top_k": s.top_k,
            "top_p": s.top_p,
            "min_p": s.min_p,
            "repetition_penalty": s.repetition_penalty,
            "max_new_tokens": self.n,
            "eos_token_id": sorted(self.eos),
            "stop_strings": list(self.stop_strings),
            "sources": dict(self.sources),
        }


def generation(args, config: DecoderConfig, config_json: ConfigJson | None, default_tokens: int) -> Generation:
    """The generation `args` ask of `config` (made from `config_json` where it is a model directory's), at most
    `default_tokens` where neither --generate nor the directory says; every value checked."""
    file = generation_defaults(config_json) if config_json is not None else None
    given = {s.partition("=")[0].strip() for s in args.settings}
    defaults = TRANSFORMERS if config_json is not None else NEUTRAL
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for key, flag in FLAGS.items():
        if getattr(args, flag) is not None:
            values[key], sources[key] = getattr(args, flag), "flag"
        elif key in OWN and key in given:
            values[key], sources[key] = getattr(config, key), "--set"
        elif file is not None and key in file.values:
            values[key], sources[key] = file.values[key], file.source
        elif key in OWN and config_json is None and getattr(config, key) != OWN[key]:
            values[key], sources[key] = getattr(config, key), "config"
        else:
            values[key], sources[key] = defaults.get(key, default_tokens), "default"
    sample, sources["do_sample"] = _do_sample(values["temperature"], sources["temperature"], file)
    strings = values["stop_strings"]
    eos, sources["eos_token_id"] = _eos(args, config_json)
    sampling = Sampling(
        float(values["temperature"]) if sample else 0.0,
        int(values["top_k"]),
        float(values["top_p"]),
        args.seed,
        float(values["min_p"]),
        float(values["repetition_penalty"]),
    )
    stops = tuple([strings] if isinstance(strings, str) else strings)
    return Generation(sampling, int(values["max_new_tokens"]), stops, eos, sources)


def _do_sample(temperature: float, source: str, file: GenerationDefaults | None) -> tuple[bool, str]:
    """Whether to sample, and why: a temperature given by a flag or `--set` samples above 0; else the directory's
    do_sample; else a config's own temperature above 0; else greedy, as transformers."""
    if source in ("flag", "--set", "config"):
        return temperature > 0, source
    if file is not None and "do_sample" in file.values:
        return bool(file.values["do_sample"]), file.source
    return False, "default"


def _eos(args, config_json: ConfigJson | None) -> tuple[frozenset[int], str]:
    """The end-of-sequence ids (config.json's and generation_config.json's: transformers stops at either) and
    the files they came from; none where --ignore-eos asks, or without a model directory."""
    if args.ignore_eos:
        return frozenset(), "flag"
    found = eos_by_file(config_json) if config_json is not None else {}
    return frozenset().union(*found.values()), " and ".join(found) or "default"


def check_sampling_flags(args) -> None:
    """Refuses, before anything is read, sampling flags out of range and an empty --stop."""

    def given(value: Any, plain: Any) -> Any:
        return plain if value is None else value

    Sampling(
        given(args.temperature, 0.0),
        given(args.top_k, 0),
        given(args.top_p, 1.0),
        args.seed,
        given(args.min_p, 0.0),
        given(args.repetition_penalty, 1.0),
    )
    if any(not text for text in args.stop or ()):
        raise UserError("--stop takes a text to stop at, not ''")


def stop_text(args, wanted: Generation, tok: Any, config_json: ConfigJson | None) -> Any:
    """The tokenizer whose text the stop strings of `wanted` are matched in (the prompt's, `tok`, else the model
    directory's tokenizer.json), None where there are none: --stop without a tokenizer is refused; a directory's
    stop_strings without one are left, with a note (the run goes on as transformers' would without them)."""
    if not wanted.stop_strings or tok is not None:
        return tok if wanted.stop_strings else None
    flagged = wanted.sources["stop_strings"] == "flag"
    directory = config_json.path.parent if config_json is not None else None
    if directory is None or not (directory / "tokenizer.json").exists():
        if flagged:
            raise UserError(f"--stop matches text: it needs a tokenizer.json in the model directory, {args.model}")
        print(f"note: {directory}: stop_strings left: no tokenizer.json to match them in", file=sys.stderr)
        return None
    return tokenizer(directory, "--stop" if flagged else f"{directory / 'generation_config.json'}'s stop_strings")
