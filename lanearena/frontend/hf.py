"""Hugging Face `config.json` files as decoder configs: for each `model_type` lanearena reads, the keys it reads (and
the decoder key each becomes), the keys that do not change the computation, and what it refuses. A key that changes
the computation and is not modelled, or a value the decoder cannot model, is a ConfigError that names the file, line
and key. `describe()` says it all for `lanearena models`."""

from __future__ import annotations

import difflib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field

from lanearena.frontend.decoder_config import FIELD_TYPES
from lanearena.frontend.hf_keys import TRANSFORMERS_KEYS, ignored_note
from lanearena.frontend.hf_readers import (
    ATTENTION_BIAS,
    DENSE_FFN,
    MLP_BIAS,
    NEXT,
    QKV_BIAS,
    ROPE,
    SHAPES,
    SHARED,
    WINDOW,
    WINDOW_LAYERS,
    Origin,
    Out,
    Reader,
    mixture,
    refuse,
)

# --- Families ------------------------------------------------------------------------------------------------------

IGNORED = frozenset(
    {
        "_name_or_path",
        "architectures",
        "model_type",
        "bos_token_id",
        "eos_token_id",
        "pad_token_id",
        "torch_dtype",
        "dtype",
        "transformers_version",
        "initializer_range",
        "attention_dropout",
        "use_cache",
    }
)
"""Keys of every family that do not change the computation: token ids, the weights' type, training settings."""

_ROUTER_TRAINING = frozenset({"output_router_logits", "router_aux_loss_coef"})
"""A mixture's training keys: the router's loss, and whether its logits are returned."""


@dataclass(frozen=True)
class Family:
    """How lanearena reads one `model_type`: its architecture, the readers of its keys, keys it ignores, keys it
    models at one value only (a value and what it means), the transformers defaults of keys a config may leave out,
    and the decoder keys the architecture fixes."""

    architecture: str
    readers: tuple[Reader, ...]
    ignored: frozenset[str] = frozenset()
    held: Mapping[str, tuple[object, str]] = field(default_factory=dict)
    defaults: Mapping[str, object] = field(default_factory=dict)
    fixed: Mapping[str, object] = field(default_factory=dict)

    @property
    def keys(self) -> frozenset[str]:
        """Every key the family reads, ignores or holds."""
        return frozenset(k for r in self.readers for k in r.keys) | self.ignored | IGNORED | set(self.held)


_QWEN3 = {"qk_norm": True}
_EXPERT_FFN = "moe_intermediate_size"
_QWEN_DEFAULTS = {"rope_theta": 10000.0, "rms_norm_eps": 1e-6, "tie_word_embeddings": False}

FAMILIES: dict[str, Family] = {
    "llama": Family(
        "LlamaForCausalLM",
        (SHAPES, ROPE, DENSE_FFN, ATTENTION_BIAS, MLP_BIAS),
        frozenset({"pretraining_tp"}),  # transformers' slices of a tensor-parallel product: the same sums
        defaults={"rope_theta": 10000.0, "rms_norm_eps": 1e-6, "tie_word_embeddings": False},
    ),
    "mistral": Family(
        "MistralForCausalLM",
        (SHAPES, ROPE, DENSE_FFN, WINDOW),
        defaults={"rope_theta": 10000.0, "rms_norm_eps": 1e-6, "tie_word_embeddings": False, "sliding_window": 4096},
    ),
    "qwen2": Family(
        "Qwen2ForCausalLM",
        (SHAPES, ROPE, DENSE_FFN, QKV_BIAS, WINDOW_LAYERS),
        held={"use_mrope": (False, "positions turn one way, not by sections (multimodal rope)")},
        defaults=_QWEN_DEFAULTS,
    ),
    "mixtral": Family(
        "MixtralForCausalLM",
        (SHAPES, ROPE, mixture(("num_local_experts", "num_experts"), "intermediate_size"), WINDOW),
        _ROUTER_TRAINING | {"router_jitter_noise"},  # noise on the router's logits while training only
        defaults={"rope_theta": 1e6, "rms_norm_eps": 1e-5, "tie_word_embeddings": False},
    ),
    "qwen2_moe": Family(
        "Qwen2MoeForCausalLM",
        (SHAPES, ROPE, QKV_BIAS, WINDOW_LAYERS, mixture(("num_experts",), "moe_intermediate_size"), SHARED),
        _ROUTER_TRAINING,
        defaults=_QWEN_DEFAULTS | {"norm_topk_prob": False},
    ),
    "qwen3": Family(
        "Qwen3ForCausalLM",
        (SHAPES, ROPE, DENSE_FFN, ATTENTION_BIAS, WINDOW_LAYERS),
        defaults=_QWEN_DEFAULTS,
        fixed=_QWEN3,
    ),
    "qwen3_moe": Family(
        "Qwen3MoeForCausalLM",
        (
            SHAPES,
            ROPE,
            ATTENTION_BIAS,
            WINDOW_LAYERS,
            mixture(("num_experts", "num_local_experts"), "moe_intermediate_size"),
        ),
        _ROUTER_TRAINING,
        defaults=_QWEN_DEFAULTS | {"norm_topk_prob": False},
        fixed=_QWEN3,
    ),
    "qwen3_next": Family(
        "Qwen3NextForCausalLM",
        (SHAPES, ROPE, mixture(("num_experts",), "moe_intermediate_size"), SHARED, NEXT),
        _ROUTER_TRAINING | {"sliding_window", "max_window_layers"},  # read only where use_sliding_window
        held={
            "attention_bias": (False, "projections have no bias"),
            "use_sliding_window": (False, "attention sees the whole cache"),
        },
        defaults=_QWEN_DEFAULTS | {"norm_topk_prob": True},
        fixed=_QWEN3,
    ),
}
"""The Hugging Face model_types lanearena reads, by model_type."""

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
        elif hf in TRANSFORMERS_KEYS[model_type]:
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
        others = sorted(TRANSFORMERS_KEYS[model_type] - family.keys)
        lines.append(f"  refuses   {'; '.join([*refused, *others])}")
    return "\n".join(lines) + "\n"
