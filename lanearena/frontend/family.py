"""One value per Hugging Face `model_type` lanearena reads (`FAMILIES`): how its `config.json` is read (the readers
of its keys, the keys it ignores, holds at one value or defaults, the keys transformers' config class defines) and
the names its checkpoints save weights under (`CheckpointNames`). The config reading is `hf.hugging_face`; the
weights each step weight is made of are `names.sources`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

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
    Reader,
    mixture,
)

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

_EVERY = (
    "vocab_size",
    "hidden_size",
    "intermediate_size",
    "num_hidden_layers",
    "num_attention_heads",
    "num_key_value_heads",
    "hidden_act",
    "max_position_embeddings",
    "initializer_range",
    "rms_norm_eps",
    "use_cache",
    "tie_word_embeddings",
    "rope_theta",
    "rope_scaling",
    "rope_parameters",
    "attention_dropout",
    "bos_token_id",
    "eos_token_id",
    "pad_token_id",
    "quantization_config",
)
"""Keys every family's config class defines (transformers 4.x: rope_theta and rope_scaling; 5.x: rope_parameters),
and quantization_config, which every class reads to load quantized weights."""


@dataclass(frozen=True)
class CheckpointNames:
    """The checkpoint names of one model_type: its MLP's module (`mlp`, Mixtral's `block_sparse_moe`), its experts'
    gate, up and down projections, its norms' offset (Qwen3-Next's scale by 1 + w), whether its q projection
    interleaves each head's query with its output gate (Qwen3-Next), and the names of tensors transformers itself
    skips on load (`skipped`, patterns)."""

    mlp: str = "mlp"
    experts: tuple[str, str, str] = ("gate_proj", "up_proj", "down_proj")
    norm_offset: float = 0.0
    gated_q: bool = False
    skipped: tuple[str, ...] = (r"\.rotary_emb\.inv_freq$",)


@dataclass(frozen=True)
class Family:
    """One `model_type`: its architecture; the readers of its config keys, keys it ignores, keys it models at one
    value only (a value and what it means), the transformers defaults of keys a config may leave out, and the
    decoder keys the architecture fixes; `transformers_keys`, the keys transformers' config class for it defines
    (a key among them lanearena does not read changes the computation and is refused; any other is ignored, as
    transformers ignores it); and `checkpoint`, the names its weights are saved under."""

    architecture: str
    readers: tuple[Reader, ...]
    transformers_keys: frozenset[str]
    ignored: frozenset[str] = frozenset()
    held: Mapping[str, tuple[object, str]] = field(default_factory=dict)
    defaults: Mapping[str, object] = field(default_factory=dict)
    fixed: Mapping[str, object] = field(default_factory=dict)
    checkpoint: CheckpointNames = CheckpointNames()

    @property
    def keys(self) -> frozenset[str]:
        """Every key the family reads, ignores or holds."""
        return frozenset(k for r in self.readers for k in r.keys) | self.ignored | IGNORED | set(self.held)


def _defines(*keys: str) -> frozenset[str]:
    """The keys a transformers config class defines: its own `keys` and every family's."""
    return frozenset((*_EVERY, *keys))


_ROUTER_TRAINING = frozenset({"output_router_logits", "router_aux_loss_coef"})
"""A mixture's training keys: the router's loss, and whether its logits are returned."""

_QWEN3 = {"qk_norm": True}
_QWEN_DEFAULTS = {"rope_theta": 10000.0, "rms_norm_eps": 1e-6, "tie_word_embeddings": False}
_MIXTURE = ("num_experts_per_tok", "output_router_logits", "router_aux_loss_coef")
_QWEN_MIXTURE = (*_MIXTURE, "num_experts", "decoder_sparse_step", "moe_intermediate_size", "norm_topk_prob")
_QWEN_WINDOW = ("use_sliding_window", "sliding_window", "max_window_layers", "layer_types")

FAMILIES: dict[str, Family] = {
    "llama": Family(
        "LlamaForCausalLM",
        (SHAPES, ROPE, DENSE_FFN, ATTENTION_BIAS, MLP_BIAS),
        _defines("attention_bias", "mlp_bias", "head_dim", "pretraining_tp"),
        frozenset({"pretraining_tp"}),  # transformers' slices of a tensor-parallel product: the same sums
        defaults={"rope_theta": 10000.0, "rms_norm_eps": 1e-6, "tie_word_embeddings": False},
    ),
    "mistral": Family(
        "MistralForCausalLM",
        (SHAPES, ROPE, DENSE_FFN, WINDOW),
        _defines("head_dim", "sliding_window"),
        defaults={"rope_theta": 10000.0, "rms_norm_eps": 1e-6, "tie_word_embeddings": False, "sliding_window": 4096},
    ),
    "qwen2": Family(
        "Qwen2ForCausalLM",
        (SHAPES, ROPE, DENSE_FFN, QKV_BIAS, WINDOW_LAYERS),
        _defines(*_QWEN_WINDOW, "use_mrope"),
        held={"use_mrope": (False, "positions turn one way, not by sections (multimodal rope)")},
        defaults=_QWEN_DEFAULTS,
    ),
    "mixtral": Family(
        "MixtralForCausalLM",
        (SHAPES, ROPE, mixture(("num_local_experts", "num_experts"), "intermediate_size"), WINDOW),
        _defines(*_MIXTURE, "head_dim", "num_local_experts", "router_jitter_noise", "sliding_window"),
        _ROUTER_TRAINING | {"router_jitter_noise"},  # noise on the router's logits while training only
        defaults={"rope_theta": 1e6, "rms_norm_eps": 1e-5, "tie_word_embeddings": False},
        checkpoint=CheckpointNames(mlp="block_sparse_moe", experts=("w1", "w3", "w2")),
    ),
    "qwen2_moe": Family(
        "Qwen2MoeForCausalLM",
        (SHAPES, ROPE, QKV_BIAS, WINDOW_LAYERS, mixture(("num_experts",), "moe_intermediate_size"), SHARED),
        _defines(*_QWEN_MIXTURE, *_QWEN_WINDOW, "mlp_only_layers", "shared_expert_intermediate_size", "qkv_bias"),
        _ROUTER_TRAINING,
        defaults=_QWEN_DEFAULTS | {"norm_topk_prob": False},
    ),
    "qwen3": Family(
        "Qwen3ForCausalLM",
        (SHAPES, ROPE, DENSE_FFN, ATTENTION_BIAS, WINDOW_LAYERS),
        _defines(*_QWEN_WINDOW, "attention_bias", "head_dim"),
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
        _defines(*_QWEN_MIXTURE, *_QWEN_WINDOW, "attention_bias", "head_dim", "mlp_only_layers", "num_local_experts"),
        _ROUTER_TRAINING,
        defaults=_QWEN_DEFAULTS | {"norm_topk_prob": False},
        fixed=_QWEN3,
    ),
    "qwen3_next": Family(
        "Qwen3NextForCausalLM",
        (SHAPES, ROPE, mixture(("num_experts",), "moe_intermediate_size"), SHARED, NEXT),
        _defines(
            *_QWEN_MIXTURE,
            "attention_bias",
            "head_dim",
            "layer_types",
            "linear_conv_kernel_dim",
            "linear_key_head_dim",
            "linear_num_key_heads",
            "linear_num_value_heads",
            "linear_value_head_dim",
            "mlp_only_layers",
            "partial_rotary_factor",
            "shared_expert_intermediate_size",
            "full_attention_interval",
            "use_sliding_window",
            "sliding_window",
            "max_window_layers",
        ),
        _ROUTER_TRAINING | {"sliding_window", "max_window_layers"},  # read only where use_sliding_window
        held={
            "attention_bias": (False, "projections have no bias"),
            "use_sliding_window": (False, "attention sees the whole cache"),
        },
        defaults=_QWEN_DEFAULTS | {"norm_topk_prob": True},
        fixed=_QWEN3,
        # Qwen3-Next checkpoints carry a multi-token-prediction head (mtp.*) that transformers does not load.
        checkpoint=CheckpointNames(norm_offset=1.0, gated_q=True, skipped=(r"\.rotary_emb\.inv_freq$", r"^mtp\.")),
    ),
}
"""The Hugging Face model_types lanearena reads, by model_type. The keys transformers' config classes define are
those of 4.57 or 5.x (the base class's keys are the token ids' and training's, which never change a step's
computation); the tests check them against the installed transformers."""
