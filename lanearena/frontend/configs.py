"""The decoder configs lanearena ships, and configs read from JSON files or changed by `key=value` settings, with
errors that name the file, line and key."""

from __future__ import annotations

import dataclasses
import difflib
import json
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lanearena.errors import UserError
from lanearena.files import STDIN, STDIN_NAME, decode
from lanearena.frontend.checkpoint import default_numerics
from lanearena.frontend.decoder_config import FIELD_TYPES, LAYERS, ConfigError, DecoderConfig, reads_int8, split_fits
from lanearena.frontend.hf import hugging_face
from lanearena.frontend.model_files import ConfigJson, read_config_json

# Keyword arguments the tiny configs (and the Qwen3 ones) share, of the fields' several types.
_TINY: dict[str, Any] = dict(
    layers=2,
    hidden=128,
    heads=4,
    kv_heads=2,
    head_dim=32,
    vocab=512,
    max_len=64,
    numerics="int8",
    split=2,
    attn_splits=2,
)
_QWEN3: dict[str, Any] = dict(
    head_dim=128,
    vocab=151936,
    max_len=4096,
    numerics="int8",
    split=4,
    attn_splits=8,
    qk_norm=True,
    norm_eps=1e-6,
    rope_theta=1e6,
)

CONFIGS: dict[str, DecoderConfig] = {
    c.name: c
    for c in (
        DecoderConfig("tiny", ffn=256, **_TINY),
        DecoderConfig("tiny-moe", experts=4, topk=2, expert_ffn=64, **_TINY),
        DecoderConfig("tiny-prefill", ffn=256, rows=4, **_TINY),
        DecoderConfig(
            "qwen3-0.6b", layers=28, hidden=1024, heads=16, kv_heads=8, ffn=3072, tie_embeddings=True, **_QWEN3
        ),
        DecoderConfig(
            "qwen3-30b-a3b", layers=48, hidden=2048, heads=32, kv_heads=4, experts=128, topk=8, expert_ffn=768, **_QWEN3
        ),
    )
}
"""The shipped configs by name: tiny ones for tests and `lanearena run`, and Qwen3's shapes."""

REQUIRED = tuple(f.name for f in dataclasses.fields(DecoderConfig) if f.default is dataclasses.MISSING)


def load(
    spec: str | ConfigJson = "tiny", settings: Sequence[str] = (), notes: list[str] | None = None
) -> DecoderConfig:
    """The config `spec` names (a shipped config, a JSON file of an object of config keys, `-` for one on standard
    input, or a model directory with its config.json, or that config.json read already (`read_config_json`); its
    name defaults to the file's), changed by `settings` (`key=value`). A model directory's numerics, where neither
    its config.json nor a setting gives them, are its checkpoint's (`checkpoint.default_numerics`: bf16 or f32; int8
    on request). A ConfigError names the file, line and key at fault. The keys a Hugging Face config gives that
    transformers ignores are ignored, each with a note added to `notes`."""
    if isinstance(spec, str):
        spec = model_directory(spec) or spec
    if isinstance(spec, ConfigJson):
        chosen = any(setting(s)[0] == "numerics" for s in settings)
        values, origin, named, names = _keys(
            spec.path, spec.text, dict(spec.values), notes, spec.path.parent, not chosen
        )
    elif spec in CONFIGS:
        values = dataclasses.asdict(CONFIGS[spec])
        origin = lambda key: f"config '{spec}'"  # noqa: E731
        named, names = True, {}  # a shipped config states its numerics
    elif spec == STDIN or spec.endswith(".json") or Path(spec).exists():
        values, origin, named, names = _read_json(Path(spec), notes)
    else:
        raise ConfigError(
            f"unknown config '{spec}': shipped configs are {', '.join(CONFIGS)}; or give a .json file or a model "
            "directory"
        )
    given = {setting(s)[0]: s for s in settings}
    values.update(setting(s) for s in settings)
    split = "split" in values
    if not split:
        values["split"] = fitting_split(values)
    try:
        return DecoderConfig(**values)
    except ConfigError as e:
        at = f"--set {given[e.key]}" if e.key in given else origin(e.key)
        hf = names.get(e.key) if e.key is not None and e.key not in given else None
        error = ConfigError(f"{at}: {e}" + (f" (the file's {hf})" if hf is not None and hf != e.key else ""), e.key)
        if named or "numerics" in given or e.key not in _BLOCK_KEYS or values.get("numerics", "int8") != "int8":
            raise error from None
    # int8 by default only (no file or setting asked for it, and no checkpoint's bf16 or f32), and a split that cuts
    # a k read int8 into no whole Q8_0 blocks: f32 runs (a product over a k that 32 does not cut runs in f32 alone)
    plain = values | {"numerics": "f32"}
    if not split:
        plain["split"] = fitting_split(plain)
    try:
        c = DecoderConfig(**plain)
    except ConfigError:
        raise error from None
    if notes is not None:
        notes.append(f"{error}: the step runs in f32 numerics (--set numerics=int8 refuses it instead)")
    return c


def model_directory(spec: str) -> ConfigJson | None:
    """The config.json of the model directory `spec` names, read (once a run: its readers are handed what it holds);
    None where `spec` names none (a shipped config, even where a directory of its name is, a file, standard input)."""
    if spec in CONFIGS or not Path(spec).is_dir():
        return None
    return read_config_json(Path(spec), ConfigError)


_BLOCK_KEYS = frozenset({"split", "head_split"})
"""The keys an int8 step needs to cut a k that products read int8 into whole blocks of 32 values: refused under
int8 asked for, taken in f32 where int8 is only the default. A product over a k that 32 does not cut runs in f32 in
an int8 step (a mixture too, whole: `frontend.decoder`)."""


def setting(text: str) -> tuple[str, object]:
    """A `key=value` setting as the key and its value in the key's type (`none` clears an optional integer; a list
    of layers is written `1,3,5`, or empty for none)."""
    key, eq, raw = text.partition("=")
    key = key.strip()
    if not eq:
        raise ConfigError(f"--set {text}: a setting is key=value")
    _check_key(key, f"--set {text}")
    kind, raw = FIELD_TYPES[key], raw.strip()
    value: object
    try:
        if kind is bool:
            value = {"true": True, "1": True, "yes": True, "false": False, "0": False, "no": False}[raw.lower()]
        elif kind == int | None and raw.lower() in ("none", "null", ""):
            value = None
        elif kind is str:
            value = raw
        elif kind == LAYERS:
            value = tuple(int(v) for v in raw.split(",") if v.strip())
        else:
            value = (float if kind is float else int)(raw)
    except (KeyError, ValueError):
        wants: dict[object, str] = {bool: "true or false", float: "a number", str: "a string", LAYERS: "layers 1,3,5"}
        want = wants.get(kind, "an integer")
        raise ConfigError(f"--set {text}: {key} is {want}, not {raw!r}", key) from None
    return key, value


def fitting_split(values: dict) -> int:
    """The largest of 4, 2 and 1 that cuts the k of every projection of the config `values` into whole parts (whole
    blocks of 32 where the product reads int8): where a Hugging Face config gives no split."""
    numerics = values.get("numerics", "int8")

    def whole(v: object) -> int | None:
        return v if isinstance(v, int) and not isinstance(v, bool) and v > 0 else None

    heads, head_dim = whole(values.get("heads")), whole(values.get("head_dim"))
    widths = [whole(values.get(k)) for k in ("hidden", "ffn")] + [heads * head_dim if heads and head_dim else None]
    ks = [k for k in widths if k is not None]
    return next((s for s in (4, 2) if all(split_fits(k, s, reads_int8(numerics, k)) for k in ks)), 1)  # 1 cuts any k


def _read_json(path: Path, notes: list[str] | None = None):
    """The config keys of JSON file `path` (`-`: standard input, named `<stdin>` in messages), as `_keys` reads
    them."""
    stdin = str(path) == STDIN
    name = Path(STDIN_NAME) if stdin else path
    try:
        text = decode(sys.stdin.buffer.read() if stdin else path.read_bytes(), str(name), "config")
    except OSError as e:
        raise ConfigError(f"cannot read config {name}: {e.strerror or e}") from None
    except UserError as e:
        raise ConfigError(str(e)) from None
    try:
        values = json.loads(text)
    except json.JSONDecodeError as e:
        raise ConfigError(f"{name}:{e.lineno}:{e.colno}: malformed JSON: {e.msg}") from None
    except RecursionError:
        raise ConfigError(f"{name}: JSON nested too deep to read") from None
    if not isinstance(values, dict):
        raise ConfigError(f"{name}: a config is a JSON object of keys, not {type(values).__name__}")
    return _keys(name, text, values, notes, stem=None if stdin else path.stem)


def _keys(
    path: Path,
    text: str,
    values: dict,
    notes: list[str] | None,
    directory: Path | None = None,
    numerics: bool = False,
    stem: str | None = "config",
):
    """The config keys of `values`, read from file `path` whose `text` locates each (`path:line`), a Hugging Face
    config's as `hf.hugging_face` reads them; a function that says where each key is written; whether the file
    names the numerics; and the Hugging Face key each decoder key came from (none for a config of decoder keys).
    Where it is the config.json of model directory `directory` and names no numerics (and `numerics`: no setting
    does), the numerics are the checkpoint's own (`checkpoint.default_numerics`). The name is the file's `stem` (a
    Hugging Face config.json's model_type; `stdin` for standard input)."""
    named = "numerics" in values
    if directory is not None and numerics and not named:
        values["numerics"] = default_numerics(directory, values)

    def origin(key: str | None) -> str:
        match = re.search(rf'"{re.escape(key)}"\s*:', text) if key else None
        return f"{path}:{text.count(chr(10), 0, match.start()) + 1}" if match else str(path)

    hf_names: dict[str, str] = {}
    if "model_type" in values or "architectures" in values:
        values, hf_names = hugging_face(values, origin, notes)
        values.setdefault("name", values.pop("_model_type") if stem is None or stem == "config" else stem)
        values.pop("_model_type", None)
        plain_origin = origin
        origin = lambda key: plain_origin(key if key is None else hf_names.get(key, key))  # noqa: E731
    for key in values:
        _check_key(key, origin(key))
    values.setdefault("name", "stdin" if stem is None else stem)
    missing = [k for k in REQUIRED if k not in values]
    if missing:
        raise ConfigError(f"{path}: missing key{'s' * (len(missing) > 1)} {', '.join(missing)}", missing[0])
    return values, origin, named, hf_names


def _check_key(key: str, where: str) -> None:
    if key not in FIELD_TYPES:
        close = difflib.get_close_matches(key, FIELD_TYPES, n=1)
        hint = f" (did you mean '{close[0]}'?)" if close else f" (keys: {', '.join(FIELD_TYPES)})"
        raise ConfigError(f"{where}: unknown key '{key}'{hint}", key)
