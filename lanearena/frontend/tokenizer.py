"""A model directory's text side: its tokenizer (tokenizer.json, through the `tokenizers` library), its chat
template (tokenizer_config.json's `chat_template`, rendered with jinja2 as transformers renders it), and its
end-of-sequence ids (config.json's and generation_config.json's `eos_token_id`). Each file is read as the loader
reads every file, a regular file of JSON whose values are type-checked, refused naming it where not."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

from lanearena.errors import UserError
from lanearena.frontend.model_files import ConfigJson, open_regular, read_json

PACKAGES = "pip install '.[text]'"
"""How to install what reading text takes (tokenizers, jinja2), as the README says it."""


def tokenizer(directory: Path, flag: str) -> Any:
    """The tokenizer of model directory `directory` (for `flag`, named in errors)."""
    path = directory / "tokenizer.json"
    if not path.exists():
        raise UserError(f"{flag} needs a tokenizer.json in the model directory, and {directory} has none")
    try:
        from tokenizers import Tokenizer
    except ImportError:
        raise UserError(f"{flag} reads tokenizer.json with the tokenizers library: {PACKAGES}") from None
    read_json(path)  # a regular file of JSON, checked before the library reads it
    try:
        return Tokenizer.from_file(str(path))
    except Exception as e:  # the library's own errors say what it found wrong, not a bug of ours
        raise UserError(f"{path}: not a tokenizer the tokenizers library reads: {e}") from None


def _token_text(value: object, path: Path, key: str) -> str | None:
    """A special token of tokenizer_config.json: a string, or an object with its `content`, or none."""
    if isinstance(value, dict):
        value = value.get("content")
    if value is not None and not isinstance(value, str):
        raise UserError(f"{path}: {key} is {value!r}, not a token's text")
    return value


def chat_prompt(directory: Path, message: str) -> str:
    """`message` as a user's turn through model directory `directory`'s chat template, with the prompt of the
    assistant's turn after it (`add_generation_prompt`), rendered as transformers' `apply_chat_template` renders
    it: jinja2's sandbox, trim_blocks and lstrip_blocks, loop controls, `raise_exception` and `tojson`."""
    path = directory / "tokenizer_config.json"
    if not path.exists():
        raise UserError(f"--chat needs a tokenizer_config.json with a chat_template in {directory}, and it has none")
    config = read_json(path)
    template = config.get("chat_template") if isinstance(config, dict) else None
    if isinstance(template, list):  # several named templates: the default one
        named = {t.get("name"): t.get("template") for t in template if isinstance(t, dict)}
        template = named.get("default")
    jinja = directory / "chat_template.jinja"  # where transformers 5 saves the template
    if template is None and jinja.exists():
        with open_regular(jinja) as f:
            template = f.read().decode("utf-8", "replace")
    if not isinstance(template, str):
        raise UserError(f"{path}: no chat_template (a string) to make --chat's prompt with")
    assert isinstance(config, dict)  # a template was found in it
    try:
        import jinja2
        from jinja2.sandbox import ImmutableSandboxedEnvironment
    except ImportError:
        raise UserError(f"--chat renders the chat template with jinja2: {PACKAGES}") from None

    def raise_exception(message: str) -> None:
        raise jinja2.TemplateError(message)

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=["jinja2.ext.loopcontrols"])
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = lambda format: datetime.now().strftime(format)
    env.filters["tojson"] = lambda x, indent=None, separators=None, sort_keys=False: json.dumps(
        x, ensure_ascii=False, indent=indent, separators=separators, sort_keys=sort_keys
    )
    tokens = {k: _token_text(config.get(k), path, k) for k in ("bos_token", "eos_token", "unk_token", "pad_token")}
    try:
        return env.from_string(template).render(
            messages=[{"role": "user", "content": message}], add_generation_prompt=True, **tokens
        )
    except jinja2.TemplateError as e:
        raise UserError(f"{path}: its chat_template cannot be rendered: {e}") from None


def _ids(value: object, path: Path) -> set[int]:
    """An `eos_token_id` value (an id, a list of ids, or none) as a set of ids; else an error naming `path`."""
    if value is None:
        return set()
    values = value if isinstance(value, list) else [value]
    if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in values):
        raise UserError(f"{path}: eos_token_id is {value!r}, not a token id or a list of them")
    return set(values)


def eos_by_file(config_json: ConfigJson) -> dict[str, set[int]]:
    """The end-of-sequence ids of the model directory whose config.json (read already) is `config_json`, by the
    file that gives them (config.json, generation_config.json; a file that gives none is left out)."""
    out = {"config.json": _ids(config_json.values.get("eos_token_id"), config_json.path)}
    path = config_json.path.parent / "generation_config.json"
    if path.exists() or path.is_symlink():
        values = read_json(path)
        if isinstance(values, dict):
            out[path.name] = _ids(values.get("eos_token_id"), path)
    return {name: ids for name, ids in out.items() if ids}


def eos_ids(config_json: ConfigJson) -> set[int]:
    """The end-of-sequence ids of the model directory whose config.json (read already) is `config_json`:
    config.json's and generation_config.json's (the union: transformers stops at either)."""
    return set().union(*eos_by_file(config_json).values())
