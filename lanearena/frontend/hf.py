"""Hugging Face `config.json` files as decoder configs: for each `model_type` lanearena reads, the keys it reads (and
the decoder key each becomes), the keys that do not change the computation, and what it refuses. A key that changes
the computation and is not modelled, or a value the decoder cannot model, is a ConfigError that names the file, line
and key. `describe()` says it all for `lanearena models`."""

from __future__ import annotations

import difflib
import json

from lanearena.frontend.decoder_config import FIELD_TYPES
from lanearena.frontend.family import FAMILIES, IGNORED
from lanearena.frontend.hf_readers import ROPE, SHAPES, Origin, Out, refuse

DECODER_DEFAULTS = {"attn_splits": 8}
"""lanearena's own keys, where a config.json gives none: attention cut in 8 (the projections' split chosen to fit
the shapes, `configs.fitting_split`; the numerics a model directory's checkpoint's, `configs.load`, else the
decoder's default, int8)."""


def hugging_face(values: dict, origin: Origin, notes: list[str] | None = None) -> tuple[dict, dict[str, str]]:
    """The decoder config keys of a Hugging Face config.json, and the Hugging Face key each came from. A key that
    does not change the computation is ignored, and so is one transformers' config class does not define (a note
    for each of those is added to `notes`); a key (or a value) the decoder cannot model is a ConfigError that names
    it. Keys of lanearena's own (numerics, split, ...) may be given beside."""
    model_type = values.get("model_type")
    family = FAMILIES.get(model_type) if isinstance(model_type, str) else None
    if family is None:
        close = difflib.get_close_matches(model_type, FAMILIES, n=1, cutoff=0.8) if isinstance(model_type, str) else []
        hint = f" (did you mean '{close[0]}'?)" if close else ""
        raise refuse(
            origin, "model_type", f"model_type {model_type!r} is not one lanearena reads ({', '.join(FAMILIES)}){hint}"
        )
    assert isinstance(model_type, str)  # a family was found for it
    values = dict(family.defaults) | values
    out = Out({**DECODER_DEFAULTS, **family.fixed, "_model_type": model_type})
    for hf, (want, why) in family.held.items():
        if values.get(hf, want) != want:
            raise refuse(
                origin,
                hf,
                f"{hf} {values[hf]!r} cannot be modeled: lanearena's {model_type} takes {json.dumps(want)} ({why})",
            )
    for hf, value in values.items():
        if hf in family.keys:
            continue
        if hf in FIELD_TYPES and hf != "name":
            out.put(hf, value, hf)
        elif hf in family.transformers_keys:
            raise refuse(
                origin,
                hf,
                f"{model_type} key '{hf}' is not one lanearena can model (transformers reads it: it changes "
                "the computation)",
            )
        elif notes is not None:
            notes.append(ignored_note(hf, family.keys, origin(hf)))
    for reader in family.readers:
        reader.read(values, out, origin)
    return out.values, out.names


def ignored_note(key: str, read: frozenset[str], where: str) -> str:
    """The note that `key` (at `where`) is ignored, as transformers' config class does not define it, naming the key
    among `read` it is closest to, where one is close enough to be a misspelling of it."""
    close = difflib.get_close_matches(key, sorted(read), n=1, cutoff=0.8)
    hint = f" (did you mean '{close[0]}'?)" if close else ""
    return f"{where}: ignored key '{key}': transformers' config class does not define it{hint}"


COMMON = (SHAPES, ROPE)
"""The readers every family has first."""


def describe() -> str:
    """What each family reads, ignores and refuses, for `lanearena models`."""
    lines = [
        "Hugging Face config.json files lanearena reads (lanearena build CONFIG.json, lanearena run CONFIG.json),",
        "by model_type. A key transformers reads that is not listed for its model_type is refused with its file,",
        "line and key; keys transformers' config class for the model_type does not define are ignored, as",
        "transformers ignores them (lanearena run --verbose lists them). Keys of lanearena's own (numerics, split,",
        "attn_splits, ...) may be given beside, and --set changes any decoder key.",
        f"Where a config gives none: {', '.join(f'{k} {v}' for k, v in DECODER_DEFAULTS.items())}, and split the",
        "largest of 4, 2, 1 that cuts every projection's k into whole parts (of 32-value blocks where quantized).",
        "",
        "Every model_type",
        *(f"  reads     {r.says}" for r in COMMON),
        f"  ignores   {', '.join(sorted(IGNORED))}",
        f"  refuses   {'; '.join(r.refuses for r in COMMON)}",
    ]
    for model_type, family in FAMILIES.items():
        assert family.readers[: len(COMMON)] == COMMON
        lines += ["", f"{model_type} ({family.architecture})"]
        lines += [f"  reads     {r.says}" for r in family.readers[len(COMMON) :]]
        if family.fixed:
            lines.append(f"  fixes     {', '.join(f'{k} {json.dumps(v)}' for k, v in family.fixed.items())}")
        if family.defaults:
            defaults = ", ".join(f"{k} {json.dumps(v)}" for k, v in family.defaults.items())
            lines.append(f"  defaults  {defaults} (transformers', where the file gives none)")
        if family.ignored:
            lines.append(f"  ignores   {', '.join(sorted(family.ignored))}")
        refused = [r.refuses for r in family.readers[len(COMMON) :] if r.refuses]
        refused += [f"{hf} other than {json.dumps(want)}: {why}" for hf, (want, why) in family.held.items()]
        others = sorted(family.transformers_keys - family.keys)
        lines.append(f"  refuses   {'; '.join([*refused, *others])}")
    return "\n".join(lines) + "\n"
