"""A model directory's generation defaults as transformers reads them: its generation_config.json's keys where it
has one (config.json's then count for nothing, as `from_pretrained` loads the file alone), else the legacy
generation keys of its config.json (as `GenerationConfig.from_model_config` takes them). Of those, the keys
lanearena's generation reads (`KEYS`); a null is a key not given, as transformers takes it. Each value is typed
and in range, else a UserError naming the file, line and key. The end-of-sequence ids are `tokenizer.eos_ids`'."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from lanearena.errors import UserError
from lanearena.frontend.model_files import ConfigJson, read_object

FILE = "generation_config.json"

KEYS = ("do_sample", "temperature", "top_k", "top_p", "min_p", "repetition_penalty", "max_new_tokens", "stop_strings")
"""The generation keys read; transformers' others (num_beams, max_length, ...) are left to it."""


def _number(v: object) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _count(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


def _texts(v: object) -> bool:
    values = v if isinstance(v, list) else [v]
    return bool(values) and all(isinstance(s, str) and s for s in values)


_CHECKS: dict[str, tuple[Callable[[object], bool], str]] = {
    "do_sample": (lambda v: isinstance(v, bool), "true or false"),
    "temperature": (lambda v: _number(v) and v >= 0, "a finite number from 0"),  # type: ignore[operator]
    "top_k": (_count, "a count of tokens from 0 (0: every token)"),
    "top_p": (lambda v: _number(v) and 0 < v <= 1, "a number in (0, 1]"),  # type: ignore[operator]
    "min_p": (lambda v: _number(v) and 0 <= v <= 1, "a number in [0, 1]"),  # type: ignore[operator]
    "repetition_penalty": (lambda v: _number(v) and v > 0, "a finite number above 0 (1: none)"),  # type: ignore[operator]
    "max_new_tokens": (_count, "a count of tokens from 0"),
    "stop_strings": (_texts, "a string or a list of strings, none empty"),
}
"""Each key's check, and what it must be, for the message."""


@dataclass(frozen=True)
class GenerationDefaults:
    """The generation keys a model directory gives (`values`, those of `KEYS` not null), the file they came from
    (`source`: generation_config.json or config.json) and where each is written (`where`: `path:line`)."""

    values: dict[str, object]
    source: str
    where: dict[str, str]


def generation_defaults(config_json: ConfigJson) -> GenerationDefaults:
    """The generation defaults of the model directory whose config.json (read already) is `config_json`."""
    path = config_json.path.parent / FILE
    read = read_object(path) if path.exists() or path.is_symlink() else config_json
    values = {k: read.values[k] for k in KEYS if read.values.get(k) is not None}
    where = {k: read.at(k) for k in values}
    for key, value in values.items():
        ok, wanted = _CHECKS[key]
        if not ok(value):
            raise UserError(f"{where[key]}: {key} is {wanted}, not {value!r}")
    if values.get("do_sample") is True and values.get("temperature") == 0:
        raise UserError(
            f"{where['temperature']}: temperature 0 with do_sample true: a sampling temperature is above 0 "
            "(transformers refuses it too; do_sample false is greedy)"
        )
    return GenerationDefaults(values, read.path.name, where)
