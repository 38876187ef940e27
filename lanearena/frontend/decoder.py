"""A decoder step (a Qwen-style transformer, dense or mixture-of-experts, one decode row or a prefill chunk of rows)
as a `lane.step`, from the shapes in a `DecoderConfig`. Shapes only: no weights are needed to build or place it."""

from __future__ import annotations

import dataclasses
import typing
from dataclasses import dataclass

from xdsl.dialects.builtin import ModuleOp

from lanearena.dialects.attrs import ScalingKind
from lanearena.dialects.kinds import KERNEL_OPS
from lanearena.frontend.builder import StepBuilder, TensorValue
from lanearena.model import QBLOCK, Form, Numerics


class ConfigError(ValueError):
    """A config that cannot describe a step: the message, and the key it is about (None for the whole config)."""

    def __init__(self, message: str, key: str | None = None):
        super().__init__(message)
        self.key = key


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
    table."""

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
        return self.numerics != Numerics.F32.value


FIELD_TYPES: dict[str, object] = typing.get_type_hints(DecoderConfig)
"""Each config key's type: int, int | None, float, bool or str."""


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

    def need(ok: bool, key: str, message: str) -> None:
        if not ok:
            raise ConfigError(message, key)

    need(c.name != "", "name", "name must not be empty")
    need(
        c.numerics in {n.value for n in Numerics},
        "numerics",
        f"numerics must be f32, int8 or int8x2, not {c.numerics!r}",
    )
    for key in (
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
    ):
        need(getattr(c, key) >= 1, key, f"{key} must be at least 1, not {getattr(c, key)}")
    need(c.norm_eps > 0, "norm_eps", f"norm_eps must be positive, not {c.norm_eps}")
    need(c.rope_theta > 0, "rope_theta", f"rope_theta must be positive, not {c.rope_theta}")
    need(c.hidden % QBLOCK == 0, "hidden", f"hidden {c.hidden} is not a multiple of {QBLOCK} (a quantized block)")
    need(c.head_dim % 2 == 0, "head_dim", f"head_dim {c.head_dim} is odd: the rotation turns pairs of values")
    need(c.heads % c.kv_heads == 0, "kv_heads", f"kv_heads {c.kv_heads} does not divide heads {c.heads}")
    need(
        c.q_dim % QBLOCK == 0,
        "head_dim",
        f"heads x head_dim ({c.q_dim}) is not a multiple of {QBLOCK} (a quantized block)",
    )
    need(c.rows <= c.max_len, "rows", f"rows {c.rows} do not fit in the caches' max_len {c.max_len}")
    need(c.attn_splits <= c.max_len, "attn_splits", f"attn_splits {c.attn_splits} exceeds max_len {c.max_len}")
    mixture = {k: getattr(c, k) for k in ("experts", "topk", "expert_ffn")}
    interleaved = bool(c.dense_layers) or c.sparse_step > 1
    if c.ffn is not None:
        given = [k for k, v in mixture.items() if v is not None]
        need(
            not given or interleaved,
            given[0] if given else "ffn",
            "give either ffn (a dense MLP) or experts, topk and expert_ffn (a mixture), not both (or both, with "
            "dense layers among the mixture's: dense_layers, sparse_step)",
        )
        need(c.ffn >= 1 and c.ffn % QBLOCK == 0, "ffn", f"ffn {c.ffn} is not a positive multiple of {QBLOCK}")
    else:
        missing = [k for k, v in mixture.items() if v is None]
        need(
            not missing,
            "ffn",
            f"give ffn (a dense MLP) or experts, topk and expert_ffn (a mixture): {', '.join(missing)} missing",
        )
        assert c.experts is not None and c.topk is not None and c.expert_ffn is not None  # none missing
        need(c.experts >= 1, "experts", f"experts must be at least 1, not {c.experts}")
        need(1 <= c.topk <= c.experts, "topk", f"topk {c.topk} is not between 1 and experts {c.experts}")
        need(
            c.expert_ffn >= 1 and c.expert_ffn % QBLOCK == 0,
            "expert_ffn",
            f"expert_ffn {c.expert_ffn} is not a positive multiple of {QBLOCK}",
        )
        dense = [layer for layer in range(c.layers) if not c.sparse(layer)]
        need(
            c.ffn is not None or not dense,
            "ffn",
            f"layers {', '.join(map(str, dense))} are dense (dense_layers, sparse_step): they need ffn",
        )
    if c.rotary_dim is not None:
        need(
            0 < c.rotary_dim <= c.head_dim and c.rotary_dim % 2 == 0,
            "rotary_dim",
            f"rotary_dim {c.rotary_dim} is not an even count of at most head_dim {c.head_dim}",
        )
    if c.shared_ffn is not None:
        need(c.mixture, "shared_ffn", "a shared expert needs a mixture (experts, topk, expert_ffn)")
        need(
            c.shared_ffn >= 1 and c.shared_ffn % QBLOCK == 0,
            "shared_ffn",
            f"shared_ffn {c.shared_ffn} is not a positive multiple of {QBLOCK}",
        )
    _check_rope(c, need)
    need(c.window is None or c.window >= 1, "window", f"window must be at least 1 (or none), not {c.window}")
    need(c.window_from >= 0, "window_from", f"window_from must be at least 0, not {c.window_from}")
    need(c.sparse_step >= 1, "sparse_step", f"sparse_step must be at least 1, not {c.sparse_step}")
    need(
        all(layer >= 0 for layer in c.dense_layers),
        "dense_layers",
        f"dense_layers are layer numbers from 0, not {list(c.dense_layers)}",
    )
    kinds = ("attention", "attention_shared", "attention_i8x2")
    need(c.attn_kind in kinds, "attn_kind", f"attn_kind must be one of {', '.join(kinds)}, not {c.attn_kind!r}")
    need(
        c.attn_kind != "attention_i8x2" or c.numerics == Numerics.INT8X2.value,
        "attn_kind",
        "an attention in two words (attention_i8x2) needs int8x2 numerics",
    )
    need(c.attn_interval >= 1, "attn_interval", f"attn_interval must be at least 1, not {c.attn_interval}")
    if c.attn_interval > 1:
        linear = {k: getattr(c, k) for k in ("lin_key_heads", "lin_value_heads", "lin_head_dim")}
        missing = [k for k, v in linear.items() if v is None]
        need(not missing, missing[0] if missing else "", f"delta-rule layers need {', '.join(missing)}")
        assert c.lin_key_heads is not None and c.lin_value_heads is not None and c.lin_head_dim is not None
        need(all(v >= 1 for v in linear.values()), "lin_key_heads", "delta-rule heads must be at least 1")
        need(
            c.lin_value_heads % c.lin_key_heads == 0,
            "lin_value_heads",
            f"lin_key_heads {c.lin_key_heads} do not divide lin_value_heads {c.lin_value_heads}",
        )
        need(
            c.lin_head_dim % QBLOCK == 0 and c.lin_head_dim <= 256,
            "lin_head_dim",
            f"lin_head_dim {c.lin_head_dim} is not a multiple of {QBLOCK} of at most 256",
        )
        need(c.conv_kernel >= 2, "conv_kernel", f"conv_kernel must be at least 2, not {c.conv_kernel}")
    cut = {"hidden": c.hidden, "heads x head_dim": c.q_dim, **({"ffn": c.ffn} if c.ffn is not None else {})}
    for what, k in cut.items():
        need(
            k % (c.split * QBLOCK) == 0,
            "split",
            f"split {c.split} does not cut {what} ({k}) into whole blocks of {QBLOCK}",
        )
    need(
        c.hidden % (c.head_split * QBLOCK) == 0,
        "head_split",
        f"head_split {c.head_split} does not cut hidden ({c.hidden}) into whole blocks of {QBLOCK}",
    )


ROPE_TYPES = tuple(k.value for k in ScalingKind)
"""The rope types the rope kernel scales its frequencies by (Hugging Face's `rope_type`): `lane.rope`'s scalings."""


def _check_rope(c: DecoderConfig, need) -> None:
    """A scaled rotation's parameters: a factor of at least 1, the original length where llama3 and dynamic measure
    against it, llama3's band edges in order, more than one pair turned where the base grows."""
    need(
        c.rope_type in ROPE_TYPES, "rope_type", f"rope_type must be one of {', '.join(ROPE_TYPES)}, not {c.rope_type!r}"
    )
    if c.rope_type == "default":
        return
    need(c.rope_factor >= 1, "rope_factor", f"rope_factor must be at least 1, not {c.rope_factor}")
    if c.rope_type in ("dynamic", "llama3"):
        need(
            c.rope_original is not None and c.rope_original >= 1,
            "rope_original",
            f"a {c.rope_type} rope needs rope_original, the length the model was trained at",
        )
    if c.rope_type == "llama3":
        need(
            0 < c.rope_low < c.rope_high,
            "rope_low",
            f"rope_low {c.rope_low} must be positive and under rope_high {c.rope_high}",
        )
    if c.rope_type == "dynamic":
        need((c.rotary_dim or c.head_dim) > 2, "head_dim", "a dynamic rope turns more than one pair of values a head")


def decoder_step(c: DecoderConfig) -> ModuleOp:
    """The step of config `c`: the embedding gathered into the residual, each layer's attention and MLP (or
    mixture) added to it, the final norm, the lm-head and the arg-max; the token (and, with `output_logits`, the
    logits a sampler reads) are the outputs, the key/value caches are state."""
    return _Decoder(c).step()


class _Decoder:
    """The launches of one step of `c`, in order; each tensor and weight is defined just before its first use."""

    def __init__(self, c: DecoderConfig):
        self.c = c
        self.b = StepBuilder(c.name, c.numerics)
        self.weight_elem = "i8" if c.quantized else "f32"
        self.read = Form.QUANT if c.quantized else Form.PLAIN
        """The form projections read their activation in."""
        self.normed = (Form.PLAIN, Form.QUANT) if c.quantized else (Form.PLAIN,)
        """The forms a projection's input is written in."""
        self.ids = self.b.input("ids", (c.rows,), "i32")
        self.pos = self.b.input("pos", (c.rows,), "i32")

    def act(self, n: int) -> tuple[int, ...]:
        """The shape of an activation of `n` values a row."""
        return (n,) if self.c.rows == 1 else (self.c.rows, n)

    def step(self) -> ModuleOp:
        b, c = self.b, self.c
        embed = b.weight("embed", (c.vocab, c.hidden), self.weight_elem)
        x = b.tensor("x0", self.act(c.hidden))
        self.normed_first: TensorValue | None = None
        if c.fuse:  # the first layer's norm made where the embedding is gathered
            self.normed_first = b.tensor("l0.h", self.act(c.hidden), forms=self.normed)
            b.launch(
                "gather_norm",
                ins=[embed, self.ids, b.weight("l0.attn_norm", (c.hidden,))],
                outs=[x, (self.normed_first, self.normed)],
                eps=c.norm_eps,
            )
        else:
            b.launch("gather", ins=[embed, self.ids], outs=[x])
        for layer in range(c.layers):
            p = f"l{layer}."
            mixed = self.attention(p, x, layer) if c.full_attention(layer) else self.linear_attention(p, x)
            x = self.mlp(p, mixed, f"x{layer + 1}", layer)
        if self.normed_first is not None:  # the last mixture normed it
            hf, self.normed_first = self.normed_first, None
        else:
            hf = self.norm("hf", x, b.weight("final_norm", (c.hidden,)), self.normed)
        lm_head = embed if c.tie_embeddings else b.weight("lm_head", (c.vocab, c.hidden), self.weight_elem)
        logits = b.tensor("logits", self.act(c.vocab))
        b.launch("gemv", ins=[(hf, self.read), lm_head], outs=[logits], split=c.head_split)
        token = b.tensor("token", (c.rows,), "i32")
        b.launch("argmax", ins=[logits], outs=[token])
        b.output(token, *([logits] if c.output_logits else []))
        return b.module()

    def norm(self, name: str, x: TensorValue, gain: TensorValue, forms: tuple[Form, ...]) -> TensorValue:
        """`x` RMS-normed into a new tensor `name`, written in `forms`."""
        out = self.b.tensor(name, x.type.dims, forms=forms)
        self.b.launch("norm", ins=[x, gain], outs=[(out, forms)], eps=self.c.norm_eps)
        return out

    def project(self, name: str, x: TensorValue, w: TensorValue, n: int, bias: str | None = None) -> TensorValue:
        """`x` (in the form projections read) times `w` [n, k] into a new tensor `name` of `n` values a row, plus the
        bias weight named `bias` where one is (added where the product writes its sums)."""
        b, c = self.b, self.c
        out = b.tensor(name, self.act(n))
        if bias is not None:
            b.launch("gemv_bias", ins=[(x, self.read), w, b.weight(bias, (n,))], outs=[out], split=c.split)
        else:
            b.launch("gemm_tc" if c.tiles else "gemv", ins=[(x, self.read), w], outs=[out], split=c.split)
        return out

    def rope(self) -> dict[str, int | float | str]:
        """The rotation's parameters: its base, the values of a head it turns, its scaling."""
        c = self.c
        out: dict[str, int | float | str] = {"theta": c.rope_theta}
        if c.rotary_dim not in (None, c.head_dim):
            out["rotary"] = c.rotary_dim
        if c.rope_type != "default":
            out |= {"scaling": c.rope_type, "factor": c.rope_factor}
        if c.rope_type == "llama3":
            out |= {"low_freq": c.rope_low, "high_freq": c.rope_high}
        if c.rope_type in ("dynamic", "llama3"):
            assert c.rope_original is not None  # checked with the config
            out["original"] = c.rope_original
        return out

    def quantized(self, x: TensorValue) -> None:
        """Writes `x`'s quantized form from its plain one, where projections read int8."""
        if self.c.quantized:
            self.b.launch("quantize", ins=[x], outs=[(x, Form.QUANT)])

    def attention(self, p: str, x: TensorValue, layer: int) -> TensorValue:
        """Layer `p`'s attention block added to the residual `x`: the new residual."""
        b, c = self.b, self.c
        h = self.attention_input(p, x)
        q, k, v = self.qkv(p, h)
        if c.qk_norm:
            q = self.norm(p + "qn", q, b.weight(p + "q_norm", (c.head_dim,)), (Form.PLAIN,))
            k = self.norm(p + "kn", k, b.weight(p + "k_norm", (c.head_dim,)), (Form.PLAIN,))
        b.launch("rope", ins=[self.pos], outs=[q], heads=c.heads, **self.rope())
        b.launch("rope", ins=[self.pos], outs=[k], heads=c.kv_heads, **self.rope())
        k_cache = b.state(p + "k_cache", (c.max_len, c.kv_dim))
        v_cache = b.state(p + "v_cache", (c.max_len, c.kv_dim))
        b.launch("kv_store", ins=[k, v, self.pos], outs=[k_cache, v_cache])
        attn = b.tensor(p + "attn", self.act(c.q_dim), forms=Form.PLAIN if c.attn_gate else self.normed)
        splits = {"splits": c.attn_splits} if "splits" in KERNEL_OPS[c.attn_kind].param_names() else {}
        window = {"window": c.windowed(layer)} if c.windowed(layer) else {}
        b.launch(
            c.attn_kind,
            ins=[q, k_cache, v_cache, self.pos],
            outs=[attn],
            heads=c.heads,
            kv_heads=c.kv_heads,
            **splits,
            **window,
        )
        if c.attn_gate:  # Qwen3-Next: the output times the sigmoid of a gate projected beside q
            gate = self.project(p + "gate", h, b.weight(p + "wgate", (c.q_dim, c.hidden), self.weight_elem), c.q_dim)
            gated = b.tensor(p + "gated", self.act(c.q_dim), forms=self.normed)
            b.launch("binary", ins=[attn, gate], outs=[gated], op="gate")
            attn = gated
        self.quantized(attn)
        wo = b.weight(p + "wo", (c.hidden, c.q_dim), self.weight_elem)
        o = self.project(p + "o", attn, wo, c.hidden, p + "bo" if c.o_bias else None)
        return self.add(p + "xa", x, o)

    def attention_input(self, p: str, x: TensorValue) -> TensorValue:
        """Layer `p`'s normed input: made by the fused gather for the first layer, else normed here."""
        if self.normed_first is not None:
            h, self.normed_first = self.normed_first, None
            return h
        return self.norm(p + "h", x, self.b.weight(p + "attn_norm", (self.c.hidden,)), self.normed)

    def linear_attention(self, p: str, x: TensorValue) -> TensorValue:
        """Layer `p`'s linear attention (Qwen3-Next's gated delta rule) added to the residual `x`: q, k and v mixed
        by a causal convolution kept as state, the gates' inputs and the output gate z projected beside, the delta
        rule with its state, its gated norm, and the output projection."""
        b, c = self.b, self.c
        hk, hv, d = c.lin_key_heads, c.lin_value_heads, c.lin_head_dim
        assert hk is not None and hv is not None and d is not None  # a config with delta-rule layers has them
        h = self.attention_input(p, x)
        mixed = self.project(p + "lqkv", h, b.weight(p + "wlqkv", (c.lin_qkv, c.hidden), self.weight_elem), c.lin_qkv)
        z = self.project(p + "z", h, b.weight(p + "wz", (hv * d, c.hidden), self.weight_elem), hv * d)
        ab = self.project(p + "ab", h, b.weight(p + "wab", (2 * hv, c.hidden), self.weight_elem), 2 * hv)
        conv_state = b.state(p + "conv_state", (c.conv_kernel - 1, c.lin_qkv))
        convolved = b.tensor(p + "conv", self.act(c.lin_qkv))
        b.launch("conv", ins=[mixed, b.weight(p + "conv_w", (c.lin_qkv, c.conv_kernel))], outs=[conv_state, convolved])
        delta_state = b.state(p + "delta_state", (hv, d, d))
        o = b.tensor(p + "lo", self.act(hv * d), forms=self.normed)
        gates = [b.weight(p + n, (hv,)) for n in ("a_log", "dt_bias")]
        b.launch(
            "delta",
            ins=[convolved, z, ab, *gates, b.weight(p + "lnorm", (d,))],
            outs=[delta_state, (o, self.normed)],
            key_heads=hk,
            eps=c.norm_eps,
        )
        out = self.project(p + "lout", o, b.weight(p + "wlout", (c.hidden, hv * d), self.weight_elem), c.hidden)
        return self.add(p + "xa", x, out)

    def qkv(self, p: str, h: TensorValue) -> tuple[TensorValue, TensorValue, TensorValue]:
        """Layer `p`'s q, k and v from the normed `h`. A decode row makes them in one projection, as views of its
        result; a chunk's rows would interleave them, so a chunk makes each in its own."""
        b, c = self.b, self.c
        if c.rows > 1:
            q, k, v = (
                self.project(
                    p + name,
                    h,
                    b.weight(p + "w" + name, (n, c.hidden), self.weight_elem),
                    n,
                    p + "b" + name if c.qkv_bias else None,
                )
                for name, n in (("q", c.q_dim), ("k", c.kv_dim), ("v", c.kv_dim))
            )
            return q, k, v
        n = c.q_dim + 2 * c.kv_dim
        wqkv = b.weight(p + "wqkv", (n, c.hidden), self.weight_elem)
        qkv = self.project(p + "qkv", h, wqkv, n, p + "bqkv" if c.qkv_bias else None)
        return (
            b.view(p + "q", qkv, 0, (c.q_dim,)),
            b.view(p + "k", qkv, c.q_dim, (c.kv_dim,)),
            b.view(p + "v", qkv, c.q_dim + c.kv_dim, (c.kv_dim,)),
        )

    def mlp(self, p: str, x: TensorValue, out: str, layer: int) -> TensorValue:
        """Layer `p`'s MLP (or mixture) added to the residual `x`: the new residual `out`."""
        b, c = self.b, self.c
        gain = b.weight(p + "mlp_norm", (c.hidden,))
        gates = {} if c.norm_topk else {"gates": "all"}
        if c.sparse(layer):
            # The mixture reads the normed row in f32, as its f32 router does (its kernels take either form).
            h = self.norm(p + "h2", x, gain, (Form.PLAIN,))
            e, f, d = c.experts, c.expert_ffn, c.hidden
            assert e is not None and f is not None and c.topk is not None  # a mixture config has all three
            weights = [
                b.weight(p + "w_router", (e, d)),
                b.weight(p + "w_gate", (e, f, d), self.weight_elem),
                b.weight(p + "w_up", (e, f, d), self.weight_elem),
                b.weight(p + "w_down", (e, d, f), self.weight_elem),
            ]
            if c.shared_ffn is not None:
                s = c.shared_ffn
                weights += [
                    b.weight(p + "ws_gate", (s, d), self.weight_elem),
                    b.weight(p + "ws_up", (s, d), self.weight_elem),
                    b.weight(p + "ws_down", (d, s), self.weight_elem),
                    b.weight(p + "ws_router", (1, d)),
                ]
            if c.fuse and c.shared_ffn is None:
                # The residual added, and the next layer's input (or the final one) normed, where the mixture
                # writes its result.
                mixed = b.tensor(out, self.act(d))
                last = layer == c.layers - 1
                name, norm = ("hf", "final_norm") if last else (f"l{layer + 1}.h", f"l{layer + 1}.attn_norm")
                self.normed_first = b.tensor(name, self.act(d), forms=self.normed)
                b.launch(
                    "moe_add_norm",
                    ins=[h, *weights, x, b.weight(norm, (d,))],
                    outs=[mixed, (self.normed_first, self.normed)],
                    experts=e,
                    topk=c.topk,
                    eps=c.norm_eps,
                    **gates,
                )
                return mixed
            down = b.tensor(p + "d", self.act(d))
            b.launch(
                "moe_shared" if c.shared_ffn is not None else "moe",
                ins=[h, *weights],
                outs=[down],
                experts=e,
                topk=c.topk,
                **gates,
            )
        else:
            assert c.ffn is not None  # a dense config has it
            h = self.norm(p + "h2", x, gain, self.normed)
            w_gate = b.weight(p + "w_gate", (c.ffn, c.hidden), self.weight_elem)
            w_up = b.weight(p + "w_up", (c.ffn, c.hidden), self.weight_elem)
            m = b.tensor(p + "m", self.act(c.ffn), forms=self.normed)
            if c.mlp_bias:
                biases = [b.weight(p + n, (c.ffn,)) for n in ("b_gate", "b_up")]
                b.launch("glu_bias", ins=[(h, self.read), w_gate, w_up, *biases], outs=[m], split=c.split)
            else:
                b.launch("glu_tc" if c.tiles else "glu", ins=[(h, self.read), w_gate, w_up], outs=[m], split=c.split)
            self.quantized(m)
            w_down = b.weight(p + "w_down", (c.hidden, c.ffn), self.weight_elem)
            down = self.project(p + "d", m, w_down, c.hidden, p + "b_down" if c.mlp_bias else None)
        return self.add(out, x, down)

    def add(self, name: str, a: TensorValue, b: TensorValue) -> TensorValue:
        """`a + b` into a new tensor `name`."""
        out = self.b.tensor(name, a.type.dims)
        self.b.launch("binary", ins=[a, b], outs=[out], op="add")
        return out
