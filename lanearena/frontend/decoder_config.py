"""A decoder step's config: the shapes and options of a `DecoderConfig`, each key typed, and the checks that it
describes a step the kernels can run (a ConfigError naming the key where not)."""

from __future__ import annotations

import dataclasses
import typing
from dataclasses import dataclass

from lanearena.dialects.attrs import ScalingKind
from lanearena.dialects.kinds.attention import ATTENTIONS
from lanearena.model import QBLOCK, Numerics


class ConfigError(ValueError):
    """A config that cannot describe a step: the message, and the key it is about (None for the whole config)."""

    def __init__(self, message: str, key: str | None = None):
        super().__init__(message)
        self.key = key


MAX_BATCH = 4096
"""The most sequences a batched decode step is built for (past every published server's batch, 256 to 1024: its
arrays grow with it, 4096 rows of a large model's logits are gigabytes)."""

MAX_LAYERS = 1024
"""The most layers a step is built with: a config past it (10^6 layers of a tiny model fit in memory) would build for
hours before anything could refuse it (1024 layers of hidden 32 took 111 s to build, place and run on the numpy
runtime, measured on the 2-core CI machine)."""


MAX_SIZE = 1 << 24
"""The largest value of any count or size key (positions, widths, the vocabulary, heads, experts, ...): 2^24 positions
of one 64-value head in f32 are 4 GiB of cache a layer, past what a step's caches are ever sized to, and every
published model is within it (the longest context 10M positions, the largest vocabulary 256k). A larger value is a
config's mistake (a max_position_embeddings of 10^12 once ran with exit 0), refused before anything is sized by it."""


@dataclass(frozen=True)
class DecoderConfig:
    """The shapes of a decoder step. `ffn` gives a dense MLP; `experts`, `topk` and `expert_ffn` a mixture of
    experts instead, whose gates are the softmax over the chosen experts (`norm_topk`) or their shares of the softmax
    over all, with dense layers of `ffn` where `dense_layers` names them or off every `sparse_step`-th. `rows` is 1
    for a decode step, more for a prefill chunk; `max_len` is the key/value caches' length. `split` cuts the layers'
    projections along `k`, `head_split` the lm-head's; `attn_splits` cuts the attention over the cache. `qk_norm`
    norms each head of q and k before the rotation (Qwen3); `qkv_bias`, `o_bias` and `mlp_bias` add biases to the
    q, k and v projections, the output projection and the MLP's; `rope_type` scales the rotation's frequencies
    (`rope_factor`, and llama3's `rope_low`, `rope_high` and `rope_original`); `window` limits the attention of the
    layers from `window_from` on to the last `window` positions; `tie_embeddings` makes the lm-head the embedding
    table. `fuse` builds the first layer's norm into the embedding's gather and a mixture's residual add and next
    norm into the mixture; `lane_fuse` (on by default) runs the `lane-fuse` pass over the step built. `temperature`
    above 0 makes the step draw its token (`lane.sample`, by `top_k` and `top_p`, with a uniform number a row in its
    `draw` input) where 0 takes the arg-max. `batch` above 1 makes a decode step of that many sequences, a row each:
    row s is the sequence in slot s of the state (each its own position, its caches and recurrent state
    `[batch, ...]`, slot-major)."""

    name: str
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    head_dim: int
    vocab: int
    max_len: int
    ffn: int | None = None
    experts: int | None = None
    topk: int | None = None
    expert_ffn: int | None = None
    rows: int = 1
    batch: int = 1
    numerics: str = Numerics.INT8.value
    split: int = 1
    head_split: int = 1
    attn_splits: int = 1
    qk_norm: bool = False
    tie_embeddings: bool = False
    output_logits: bool = True
    norm_eps: float = 1e-6
    rope_theta: float = 1e6
    rotary_dim: int | None = None
    attn_gate: bool = False
    shared_ffn: int | None = None
    attn_interval: int = 1
    lin_key_heads: int | None = None
    lin_value_heads: int | None = None
    lin_head_dim: int | None = None
    conv_kernel: int = 4
    fuse: bool = False
    lane_fuse: bool = True
    attn_kind: str = "attention"
    tiles: bool = False
    rope_type: str = "default"
    rope_factor: float = 1.0
    rope_low: float = 1.0
    rope_high: float = 4.0
    rope_original: int | None = None
    qkv_bias: bool = False
    o_bias: bool = False
    mlp_bias: bool = False
    window: int | None = None
    window_from: int = 0
    norm_topk: bool = True
    sparse_step: int = 1
    dense_layers: tuple[int, ...] = ()
    temperature: float = 0.0
    top_k: int = 0
    top_p: float = 1.0

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            object.__setattr__(self, f.name, _typed(f.name, FIELD_TYPES[f.name], getattr(self, f.name)))
        _check(self)

    @property
    def q_dim(self) -> int:
        return self.heads * self.head_dim

    @property
    def kv_dim(self) -> int:
        return self.kv_heads * self.head_dim

    def full_attention(self, layer: int) -> bool:
        """Whether layer `layer` is full attention (else a gated delta rule)."""
        return (layer + 1) % self.attn_interval == 0

    @property
    def lin_qkv(self) -> int:
        """Values a row of a delta-rule layer's q, k and v projection: q and k of each key head, v of each value
        head."""
        hk, hv, d = self.lin_key_heads, self.lin_value_heads, self.lin_head_dim
        assert hk is not None and hv is not None and d is not None  # set wherever there are delta-rule layers
        return (2 * hk + hv) * d

    @property
    def mixture(self) -> bool:
        return self.experts is not None

    def sparse(self, layer: int) -> bool:
        """Whether layer `layer`'s MLP is the mixture (else a dense MLP of `ffn`): Qwen2-MoE's rule, a layer not in
        `dense_layers` whose number (from 1) is a multiple of `sparse_step`."""
        return self.mixture and layer not in self.dense_layers and (layer + 1) % self.sparse_step == 0

    def windowed(self, layer: int) -> int:
        """The sliding window layer `layer` attends through, 0 for none (a window as long as the caches is none)."""
        window = self.window or 0
        return window if layer >= self.window_from and window < self.max_len else 0

    @property
    def quantized(self) -> bool:
        """Whether projections read int8 activations and Q8_0 weights."""
        return Numerics(self.numerics).quantized


FIELD_TYPES: dict[str, object] = typing.get_type_hints(DecoderConfig)
"""Each config key's type: int, int | None, float, bool or str."""


HEAD_DIM_MAX = 256
"""The widest head the attention kernels hold (attention.cu's and attend.cu's HD_MAX)."""

LAYERS = tuple[int, ...]
"""The type of a list of layers (`dense_layers`)."""


def _typed(key: str, kind: object, value: object) -> object:
    """`value` as key `key`'s type (an integer as a float where a float is wanted; a list of layers as a tuple), or
    a ConfigError."""
    if kind == LAYERS:
        layers = tuple(value) if isinstance(value, (list, tuple)) else None
        if layers is None or not all(isinstance(v, int) and not isinstance(v, bool) for v in layers):
            raise ConfigError(f"{key} is a list of layers (integers), not {value!r}", key)
        return layers
    if kind is bool or kind is str:
        if not isinstance(value, kind):
            raise ConfigError(f"{key} is {'true or false' if kind is bool else 'a string'}, not {value!r}", key)
        return value
    if value is None and kind == int | None:
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return float(value) if kind is float else value
    if kind is float and isinstance(value, float):
        return value
    raise ConfigError(f"{key} is {'a number' if kind is float else 'an integer'}, not {value!r}", key)


def _check(c: DecoderConfig) -> None:
    """Raises a ConfigError naming the key where `c`'s shapes do not make a step the kernels can run."""
    _check_shapes(c)
    _check_mlp(c)
    _check_rope(c)
    _check_layers(c)
    _check_attention(c)
    _check_splits(c)
    _check_sampling(c)
    _check_batch(c)


def _check_batch(c: DecoderConfig) -> None:
    """A batch of sequences: between 1 and MAX_BATCH, decode rows (one a sequence), and none of what the batched
    kernels do not run."""
    _need(1 <= c.batch <= MAX_BATCH, "batch", f"batch must be between 1 and {MAX_BATCH}, not {c.batch}")
    if c.batch == 1:
        return
    _need(
        c.rows in (1, c.batch),
        "batch",
        f"batch {c.batch} with rows {c.rows}: a batched step is a decode row a sequence (rows 1 or {c.batch}); a "
        "batched prefill chunk is not built",
    )
    _need(
        c.rope_type != "dynamic",
        "batch",
        "batch above 1 with a dynamic rope: lane.rope grows its base by the step's last position, not by each "
        "sequence's own",
    )


def _need(ok: bool, key: str, message: str) -> None:
    if not ok:
        raise ConfigError(message, key)


_AT_LEAST_ONE = (
    "layers",
    "hidden",
    "heads",
    "kv_heads",
    "head_dim",
    "vocab",
    "max_len",
    "rows",
    "split",
    "head_split",
    "attn_splits",
)
"""The counts a config must have at least one of."""


_SIZES = tuple(k for k, kind in FIELD_TYPES.items() if kind is int or kind == int | None)
"""The count and size keys, each at most MAX_SIZE."""


def _check_shapes(c: DecoderConfig) -> None:
    """The name, the numerics and the attention's shapes: counts of at least 1, heads the attention kernels hold,
    pairs for the rotation, kv heads that divide the heads, rows and splits that fit the caches."""
    _need(c.name != "", "name", "name must not be empty")
    _need(
        c.numerics in {n.value for n in Numerics},
        "numerics",
        f"numerics must be f32, bf16, int8 or int8x2, not {c.numerics!r}",
    )
    for key in _AT_LEAST_ONE:
        _need(getattr(c, key) >= 1, key, f"{key} must be at least 1, not {getattr(c, key)}")
    for key in _SIZES:
        v = getattr(c, key)
        _need(v is None or v <= MAX_SIZE, key, f"{key} {v} is more than {MAX_SIZE} (2^24), past what a step holds")
    _need(
        c.layers <= MAX_LAYERS,
        "layers",
        f"layers {c.layers} are more than the {MAX_LAYERS} a step is built with (the largest published decoders have "
        f"126; a step of {MAX_LAYERS} small layers takes about two minutes to build, place and run on the CPU)",
    )
    _need(c.norm_eps > 0, "norm_eps", f"norm_eps must be positive, not {c.norm_eps}")
    _need(c.rope_theta > 0, "rope_theta", f"rope_theta must be positive, not {c.rope_theta}")
    _need(
        c.head_dim <= HEAD_DIM_MAX,
        "head_dim",
        f"head_dim {c.head_dim} is more than the {HEAD_DIM_MAX} values a head the attention kernels hold",
    )
    _need(c.head_dim % 2 == 0, "head_dim", f"head_dim {c.head_dim} is odd: the rotation turns pairs of values")
    _need(c.heads % c.kv_heads == 0, "kv_heads", f"kv_heads {c.kv_heads} does not divide heads {c.heads}")
    _need(c.rows <= c.max_len, "rows", f"rows {c.rows} do not fit in the caches' max_len {c.max_len}")
    _need(c.attn_splits <= c.max_len, "attn_splits", f"attn_splits {c.attn_splits} exceeds max_len {c.max_len}")


def _check_mlp(c: DecoderConfig) -> None:
    """A dense MLP's width, or a mixture's experts, topk and width (and the dense layers' width among them), and
    a shared expert's: positive widths."""
    mixture = {k: getattr(c, k) for k in ("experts", "topk", "expert_ffn")}
    interleaved = bool(c.dense_layers) or c.sparse_step > 1
    if c.ffn is not None:
        given = [k for k, v in mixture.items() if v is not None]
        _need(
            not given or interleaved,
            given[0] if given else "ffn",
            "give either ffn (a dense MLP) or experts, topk and expert_ffn (a mixture), not both (or both, with "
            "dense layers among the mixture's: dense_layers, sparse_step)",
        )
        _need(c.ffn >= 1, "ffn", f"ffn must be at least 1, not {c.ffn}")
    else:
        missing = [k for k, v in mixture.items() if v is None]
        _need(
            not missing,
            "ffn",
            f"give ffn (a dense MLP) or experts, topk and expert_ffn (a mixture): {', '.join(missing)} missing",
        )
        assert c.experts is not None and c.topk is not None and c.expert_ffn is not None  # none missing
        _need(c.experts >= 1, "experts", f"experts must be at least 1, not {c.experts}")
        _need(1 <= c.topk <= c.experts, "topk", f"topk {c.topk} is not between 1 and experts {c.experts}")
        _need(c.expert_ffn >= 1, "expert_ffn", f"expert_ffn must be at least 1, not {c.expert_ffn}")
        dense = [layer for layer in range(c.layers) if not c.sparse(layer)]
        _need(
            c.ffn is not None or not dense,
            "ffn",
            f"layers {', '.join(map(str, dense))} are dense (dense_layers, sparse_step): they need ffn",
        )
    if c.shared_ffn is not None:
        _need(c.mixture, "shared_ffn", "a shared expert needs a mixture (experts, topk, expert_ffn)")
        _need(c.shared_ffn >= 1, "shared_ffn", f"shared_ffn must be at least 1, not {c.shared_ffn}")


def _check_layers(c: DecoderConfig) -> None:
    """Which layers have what: the window and where it starts, the mixture's step and its dense layers."""
    _need(c.window is None or c.window >= 1, "window", f"window must be at least 1 (or none), not {c.window}")
    _need(c.window_from >= 0, "window_from", f"window_from must be at least 0, not {c.window_from}")
    _need(c.sparse_step >= 1, "sparse_step", f"sparse_step must be at least 1, not {c.sparse_step}")
    _need(
        all(layer >= 0 for layer in c.dense_layers),
        "dense_layers",
        f"dense_layers are layer numbers from 0, not {list(c.dense_layers)}",
    )


def _check_attention(c: DecoderConfig) -> None:
    """The attention kind (one of the classes', under the numerics it runs with), and Qwen3-Next's delta-rule layers
    between every `attn_interval`-th: their heads and widths."""
    kinds = {op.name.split(".", 1)[1]: op for op in ATTENTIONS}
    _need(c.attn_kind in kinds, "attn_kind", f"attn_kind must be one of {', '.join(kinds)}, not {c.attn_kind!r}")
    only = kinds[c.attn_kind].NUMERICS if c.attn_kind in kinds else None
    _need(
        only is None or c.numerics in {n.value for n in only},
        "attn_kind",
        f"{c.attn_kind} needs {' or '.join(n.value for n in only or ())} numerics",
    )
    _need(c.attn_interval >= 1, "attn_interval", f"attn_interval must be at least 1, not {c.attn_interval}")
    if c.attn_interval == 1:
        return
    linear = {k: getattr(c, k) for k in ("lin_key_heads", "lin_value_heads", "lin_head_dim")}
    missing = [k for k, v in linear.items() if v is None]
    _need(not missing, missing[0] if missing else "", f"delta-rule layers need {', '.join(missing)}")
    assert c.lin_key_heads is not None and c.lin_value_heads is not None and c.lin_head_dim is not None
    _need(all(v >= 1 for v in linear.values()), "lin_key_heads", "delta-rule heads must be at least 1")
    _need(
        c.lin_value_heads % c.lin_key_heads == 0,
        "lin_value_heads",
        f"lin_key_heads {c.lin_key_heads} do not divide lin_value_heads {c.lin_value_heads}",
    )
    _need(
        c.lin_head_dim <= HEAD_DIM_MAX,
        "lin_head_dim",
        f"lin_head_dim {c.lin_head_dim} is more than the {HEAD_DIM_MAX} values a head the delta rule holds",
    )
    _need(c.conv_kernel >= 2, "conv_kernel", f"conv_kernel must be at least 2, not {c.conv_kernel}")


def _check_splits(c: DecoderConfig) -> None:
    """The projections' split and the lm-head's cut every product's k into parts the kernels take: whole blocks
    each where the product reads int8 (under int8 numerics, a k of whole blocks)."""
    cut = {"hidden": c.hidden, "heads x head_dim": c.q_dim, **({"ffn": c.ffn} if c.ffn is not None else {})}
    for what, k in cut.items():
        _need(
            split_fits(k, c.split, reads_int8(c.numerics, k)),
            "split",
            f"split {c.split} does not cut {what} ({k}) into {_parts(c, k)}",
        )
    _need(
        split_fits(c.hidden, c.head_split, reads_int8(c.numerics, c.hidden)),
        "head_split",
        f"head_split {c.head_split} does not cut hidden ({c.hidden}) into {_parts(c, c.hidden)}",
    )


def _parts(c: DecoderConfig, k: int) -> str:
    """What a split must cut a product over `k` values into."""
    return (
        f"whole blocks of {QBLOCK}" if reads_int8(c.numerics, k) else f"parts of whole blocks of {QBLOCK}, none empty"
    )


def reads_int8(numerics: str, k: int) -> bool:
    """Whether a product over rows of `k` values reads int8 activations and a Q8_0 weight: under int8 numerics (one
    word or two), where `k` is whole blocks of QBLOCK; the others multiply in f32 (their weights f32)."""
    return numerics in QUANTIZED and k % QBLOCK == 0


def mixture_reads_int8(c: DecoderConfig) -> bool:
    """Whether a mixture's products read int8: under int8 numerics, where the hidden size, `expert_ffn` and
    `shared_ffn` are all whole blocks of QBLOCK (its kernels quantize its hidden rows together, so it multiplies in
    f32 whole where one is not)."""
    widths = (c.hidden, c.expert_ffn or 0, c.shared_ffn or 0)
    return all(reads_int8(c.numerics, k) for k in widths)


QUANTIZED = frozenset(n.value for n in Numerics if n.quantized)
"""The numerics whose products read int8 activations."""


def _check_sampling(c: DecoderConfig) -> None:
    """How the step draws its token: a finite temperature from 0, a top-k from 0, a top-p in (0, 1]."""
    _need(
        0 <= c.temperature < float("inf"),
        "temperature",
        f"temperature must be a finite number from 0, not {c.temperature}",
    )
    _need(c.top_k >= 0, "top_k", f"top_k must be at least 0 (0: every token), not {c.top_k}")
    _need(0 < c.top_p <= 1, "top_p", f"top_p must be in (0, 1], not {c.top_p}")


def split_fits(k: int, split: int, quantized: bool) -> bool:
    """Whether a product over `k` values cuts into `split` parts: whole blocks each where it reads quantized values,
    else parts of whole blocks but the last (the kernels' `k_part`), none of them empty."""
    if quantized:
        return k % (split * QBLOCK) == 0
    per_part = -(-k // split)
    part = -(-per_part // QBLOCK) * QBLOCK
    return split == 1 or (split - 1) * part < k


ROPE_TYPES = tuple(k.value for k in ScalingKind)
"""The rope types the rope kernel scales its frequencies by (Hugging Face's `rope_type`): `lane.rope`'s scalings."""


def _check_rope(c: DecoderConfig) -> None:
    """The rotation: the share of a head it turns, and a scaled rotation's parameters: a factor of at least 1, the
    original length where llama3 and dynamic measure against it, llama3's band edges in order, more than one pair
    turned where the base grows."""
    if c.rotary_dim is not None:
        _need(
            0 < c.rotary_dim <= c.head_dim and c.rotary_dim % 2 == 0,
            "rotary_dim",
            f"rotary_dim {c.rotary_dim} is not an even count of at most head_dim {c.head_dim}",
        )
    _need(
        c.rope_type in ROPE_TYPES, "rope_type", f"rope_type must be one of {', '.join(ROPE_TYPES)}, not {c.rope_type!r}"
    )
    if c.rope_type == "default":
        return
    _need(c.rope_factor >= 1, "rope_factor", f"rope_factor must be at least 1, not {c.rope_factor}")
    if c.rope_type in ("dynamic", "llama3"):
        _need(
            c.rope_original is not None and c.rope_original >= 1,
            "rope_original",
            f"a {c.rope_type} rope needs rope_original, the length the model was trained at",
        )
    if c.rope_type == "llama3":
        _need(
            0 < c.rope_low < c.rope_high,
            "rope_low",
            f"rope_low {c.rope_low} must be positive and under rope_high {c.rope_high}",
        )
    if c.rope_type == "dynamic":
        _need((c.rotary_dim or c.head_dim) > 2, "head_dim", "a dynamic rope turns more than one pair of values a head")
