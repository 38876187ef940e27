"""A decoder step (a Qwen-style transformer, dense or mixture-of-experts, one decode row or a prefill chunk of rows)
as a `lane.step`, from the shapes in a `DecoderConfig`. Shapes only: no weights are needed to build or place it."""

from __future__ import annotations

import dataclasses

from xdsl.dialects.builtin import ModuleOp

from lanearena.dialects.kinds import KERNEL_OPS
from lanearena.frontend.builder import StepBuilder, TensorValue
from lanearena.frontend.decoder_config import (
    FIELD_TYPES,
    LAYERS,
    ConfigError,
    DecoderConfig,
    mixture_reads_int8,
    reads_int8,
    split_fits,
)
from lanearena.model import Form, Numerics
from lanearena.passes.fuse import fuse_module

__all__ = ["FIELD_TYPES", "LAYERS", "ConfigError", "DecoderConfig", "decoder_step", "layer_prefix", "split_fits"]


def layer_prefix(layer: int) -> str:
    """What the names of layer `layer`'s tensors and weights begin with (`names.sources` names the weights so)."""
    return f"l{layer}."


def decoder_step(c: DecoderConfig, batch: int | None = None) -> ModuleOp:
    """The step of config `c`: the embedding gathered into the residual, each layer's attention and MLP (or
    mixture) added to it, the final norm, the lm-head and the arg-max (or, at a temperature above 0, the token drawn
    with the uniform numbers of the `draw` input); the token (and, with `output_logits`, the logits) are the
    outputs, the key/value caches are state. With `lane_fuse` (the default) the launches are fused (`passes.fuse`)
    before anything places them. `batch` (given, it overrides `c.batch`) above 1 builds the decode step of that many
    sequences: row s is slot s's, its state `[batch, ...]` slot-major, each slot the one-sequence step's layout."""
    if batch is not None and batch != c.batch:
        c = dataclasses.replace(c, batch=batch)
    module = _Decoder(c).step()
    return fuse_module(module) if c.lane_fuse else module


class _Decoder:
    """The launches of one step of `c`, in order; each tensor and weight is defined just before its first use."""

    def __init__(self, c: DecoderConfig):
        self.c = c
        self.b = StepBuilder(c.name, c.numerics)
        self.router_elem = "bf16" if c.numerics == Numerics.BF16 else "f32"
        """A mixture's routers': never Q8_0 (their logits choose the experts)."""
        self.rows = c.batch if c.batch > 1 else c.rows
        """The step's rows: a prefill chunk's, or a decode row a sequence of the batch."""
        self.seqs: dict[str, int] = {"seqs": c.batch} if c.batch > 1 else {}
        """The parameter of the launches that touch a sequence's state or position, where there are several."""
        self.ids = self.b.input("ids", (self.rows,), "i32")
        self.pos = self.b.input("pos", (self.rows,), "i32")

    def act(self, n: int) -> tuple[int, ...]:
        """The shape of an activation of `n` values a row."""
        return (n,) if self.rows == 1 else (self.rows, n)

    def slots(self, *dims: int) -> tuple[int, ...]:
        """The shape of state of `dims` a sequence: a slot a sequence of the batch, slot-major."""
        return (self.c.batch, *dims) if self.c.batch > 1 else dims

    @staticmethod
    def read(w: TensorValue) -> Form:
        """The form a product by weight matrix `w` reads its activation in: quantized where `w` is Q8_0."""
        return Form.QUANT if w.type.elem == "i8" else Form.PLAIN

    def normed(self, k: int) -> tuple[Form, ...]:
        """The forms an activation of `k` values a row that products read is written in."""
        return (Form.PLAIN, Form.QUANT) if reads_int8(self.c.numerics, k) else (Form.PLAIN,)

    def weight_elem(self, k: int) -> str:
        """The element type of a weight matrix whose rows are `k` values: Q8_0 where products over `k` read int8,
        bf16 under bf16, else f32 (norm gains, biases and the delta rule's gates stay f32)."""
        return "i8" if reads_int8(self.c.numerics, k) else "bf16" if self.c.numerics == Numerics.BF16 else "f32"

    def step(self) -> ModuleOp:
        b, c = self.b, self.c
        embed = b.weight("embed", (c.vocab, c.hidden), self.weight_elem(c.hidden))
        x = b.tensor("x0", self.act(c.hidden))
        self.normed_first: TensorValue | None = None
        if c.fuse:  # the first layer's norm made where the embedding is gathered
            self.normed_first = b.tensor(layer_prefix(0) + "h", self.act(c.hidden), forms=self.normed(c.hidden))
            b.launch(
                "gather_norm",
                ins=[embed, self.ids, b.weight(layer_prefix(0) + "attn_norm", (c.hidden,))],
                outs=[x, (self.normed_first, self.normed(c.hidden))],
                eps=c.norm_eps,
            )
        else:
            b.launch("gather", ins=[embed, self.ids], outs=[x])
        for layer in range(c.layers):
            p = layer_prefix(layer)
            mixed = self.attention(p, x, layer) if c.full_attention(layer) else self.linear_attention(p, x)
            x = self.mlp(p, mixed, f"x{layer + 1}", layer)
        if self.normed_first is not None:  # the last mixture normed it
            hf, self.normed_first = self.normed_first, None
        else:
            hf = self.norm("hf", x, b.weight("final_norm", (c.hidden,)), self.normed(c.hidden))
        lm_head = embed if c.tie_embeddings else b.weight("lm_head", (c.vocab, c.hidden), self.weight_elem(c.hidden))
        logits = b.tensor("logits", self.act(c.vocab))
        b.launch("gemv", ins=[(hf, self.read(lm_head)), lm_head], outs=[logits], split=c.head_split)
        token = b.tensor("token", (self.rows,), "i32")
        if c.temperature > 0:
            draw = b.input("draw", (self.rows,), "f32")
            sampling = {"temperature": c.temperature, "top_k": c.top_k, "top_p": c.top_p}
            b.launch("sample", ins=[logits, draw], outs=[token], **sampling)
        else:
            b.launch("argmax", ins=[logits], outs=[token])
        b.output(token, *([logits] if c.output_logits else []))
        return b.module()

    def norm(self, name: str, x: TensorValue, gain: TensorValue, forms: tuple[Form, ...]) -> TensorValue:
        """`x` RMS-normed into a new tensor `name`, written in `forms`."""
        out = self.b.tensor(name, x.type.dims, forms=forms)
        self.b.launch("norm", ins=[x, gain], outs=[(out, forms)], eps=self.c.norm_eps)
        return out

    def project(self, name: str, x: TensorValue, w: TensorValue, n: int, bias: str | None = None) -> TensorValue:
        """`x` (quantized where `w` is Q8_0) times `w` [n, k] into a new tensor `name` of `n` values a row, plus the
        bias weight named `bias` where one is (added where the product writes its sums)."""
        b, c = self.b, self.c
        out = b.tensor(name, self.act(n))
        if bias is not None:
            b.launch("gemv_bias", ins=[(x, self.read(w)), w, b.weight(bias, (n,))], outs=[out], split=c.split)
        else:
            b.launch("gemm_tc" if c.tiles else "gemv", ins=[(x, self.read(w)), w], outs=[out], split=c.split)
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

    def quantized(self, x: TensorValue, k: int) -> None:
        """Writes `x`'s quantized form from its plain one, where the product over its `k` values a row reads int8."""
        if reads_int8(self.c.numerics, k):
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
        k_cache = b.state(p + "k_cache", self.slots(c.max_len, c.kv_dim))
        v_cache = b.state(p + "v_cache", self.slots(c.max_len, c.kv_dim))
        b.launch("kv_store", ins=[k, v, self.pos], outs=[k_cache, v_cache], **self.seqs)
        attn = b.tensor(p + "attn", self.act(c.q_dim), forms=Form.PLAIN if c.attn_gate else self.normed(c.q_dim))
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
            **self.seqs,
        )
        if c.attn_gate:  # Qwen3-Next: the output times the sigmoid of a gate projected beside q
            gate = self.project(
                p + "gate", h, b.weight(p + "wgate", (c.q_dim, c.hidden), self.weight_elem(c.hidden)), c.q_dim
            )
            gated = b.tensor(p + "gated", self.act(c.q_dim), forms=self.normed(c.q_dim))
            b.launch("binary", ins=[attn, gate], outs=[gated], op="gate")
            attn = gated
        self.quantized(attn, c.q_dim)
        wo = b.weight(p + "wo", (c.hidden, c.q_dim), self.weight_elem(c.q_dim))
        o = self.project(p + "o", attn, wo, c.hidden, p + "bo" if c.o_bias else None)
        return self.add(p + "xa", x, o)

    def attention_input(self, p: str, x: TensorValue) -> TensorValue:
        """Layer `p`'s normed input: made by the fused gather for the first layer, else normed here."""
        if self.normed_first is not None:
            h, self.normed_first = self.normed_first, None
            return h
        return self.norm(p + "h", x, self.b.weight(p + "attn_norm", (self.c.hidden,)), self.normed(self.c.hidden))

    def linear_attention(self, p: str, x: TensorValue) -> TensorValue:
        """Layer `p`'s linear attention (Qwen3-Next's gated delta rule) added to the residual `x`: q, k and v mixed
        by a causal convolution kept as state, the gates' inputs and the output gate z projected beside, the delta
        rule with its state, its gated norm, and the output projection."""
        b, c = self.b, self.c
        hk, hv, d = c.lin_key_heads, c.lin_value_heads, c.lin_head_dim
        assert hk is not None and hv is not None and d is not None  # a config with delta-rule layers has them
        h = self.attention_input(p, x)
        mixed = self.project(
            p + "lqkv", h, b.weight(p + "wlqkv", (c.lin_qkv, c.hidden), self.weight_elem(c.hidden)), c.lin_qkv
        )
        z = self.project(p + "z", h, b.weight(p + "wz", (hv * d, c.hidden), self.weight_elem(c.hidden)), hv * d)
        ab = self.project(p + "ab", h, b.weight(p + "wab", (2 * hv, c.hidden), self.weight_elem(c.hidden)), 2 * hv)
        conv_state = b.state(p + "conv_state", self.slots(c.conv_kernel - 1, c.lin_qkv))
        convolved = b.tensor(p + "conv", self.act(c.lin_qkv))
        conv_w = b.weight(p + "conv_w", (c.lin_qkv, c.conv_kernel))
        b.launch("conv", ins=[mixed, conv_w], outs=[conv_state, convolved], **self.seqs)
        delta_state = b.state(p + "delta_state", self.slots(hv, d, d))
        # The delta rule quantizes its output a head at a time: the output projection reads int8 where a head is whole
        # blocks.
        o = b.tensor(p + "lo", self.act(hv * d), forms=self.normed(d))
        gates = [b.weight(p + n, (hv,)) for n in ("a_log", "dt_bias")]
        b.launch(
            "delta",
            ins=[convolved, z, ab, *gates, b.weight(p + "lnorm", (d,))],
            outs=[delta_state, (o, self.normed(d))],
            key_heads=hk,
            eps=c.norm_eps,
            **self.seqs,
        )
        out = self.project(p + "lout", o, b.weight(p + "wlout", (c.hidden, hv * d), self.weight_elem(d)), c.hidden)
        return self.add(p + "xa", x, out)

    def qkv(self, p: str, h: TensorValue) -> tuple[TensorValue, TensorValue, TensorValue]:
        """Layer `p`'s q, k and v from the normed `h`. A decode row makes them in one projection, as views of its
        result; a chunk's rows would interleave them, so a chunk makes each in its own."""
        b, c = self.b, self.c
        if self.rows > 1:
            q, k, v = (
                self.project(
                    p + name,
                    h,
                    b.weight(p + "w" + name, (n, c.hidden), self.weight_elem(c.hidden)),
                    n,
                    p + "b" + name if c.qkv_bias else None,
                )
                for name, n in (("q", c.q_dim), ("k", c.kv_dim), ("v", c.kv_dim))
            )
            return q, k, v
        n = c.q_dim + 2 * c.kv_dim
        wqkv = b.weight(p + "wqkv", (n, c.hidden), self.weight_elem(c.hidden))
        qkv = self.project(p + "qkv", h, wqkv, n, p + "bqkv" if c.qkv_bias else None)
        return (
            b.view(p + "q", qkv, 0, (c.q_dim,)),
            b.view(p + "k", qkv, c.q_dim, (c.kv_dim,)),
            b.view(p + "v", qkv, c.q_dim + c.kv_dim, (c.kv_dim,)),
        )

    def mlp(self, p: str, x: TensorValue, out: str, layer: int) -> TensorValue:
        """Layer `p`'s MLP (or mixture) added to the residual `x`: the new residual `out`."""
        gain = self.b.weight(p + "mlp_norm", (self.c.hidden,))
        if self.c.sparse(layer):
            return self.mixture(p, x, gain, out, layer)
        return self.add(out, x, self.dense(p, x, gain))

    def mixture(self, p: str, x: TensorValue, gain: TensorValue, out: str, layer: int) -> TensorValue:
        """Layer `p`'s mixture of experts (and shared expert) added to the residual `x`: the new residual `out`."""
        b, c = self.b, self.c
        # Its kernels quantize the hidden rows under int8 (as the seed's do) but for `f32`, which a mixture whose
        # widths 32 does not cut all takes: its matrices f32 then, all of them.
        in_f32 = c.quantized and not mixture_reads_int8(c)
        options: dict[str, int | str] = {} if c.norm_topk else {"gates": "all"}
        options |= ({"f32": 1} if in_f32 else {}) | self.seqs
        # The mixture reads the normed row in f32, as its f32 router does (its kernels take either form).
        h = self.norm(p + "h2", x, gain, (Form.PLAIN,))
        e, f, d = c.experts, c.expert_ffn, c.hidden
        assert e is not None and f is not None and c.topk is not None  # a mixture config has all three
        elem = "f32" if in_f32 else self.weight_elem(d)
        weights = [
            b.weight(p + "w_router", (e, d), self.router_elem),
            b.weight(p + "w_gate", (e, f, d), elem),
            b.weight(p + "w_up", (e, f, d), elem),
            b.weight(p + "w_down", (e, d, f), elem),
        ]
        if c.shared_ffn is not None:
            s = c.shared_ffn
            weights += [
                b.weight(p + "ws_gate", (s, d), elem),
                b.weight(p + "ws_up", (s, d), elem),
                b.weight(p + "ws_down", (d, s), elem),
                b.weight(p + "ws_router", (1, d), self.router_elem),
            ]
        if c.fuse and c.shared_ffn is None:
            # The residual added, and the next layer's input (or the final one) normed, where the mixture writes
            # its result.
            mixed = b.tensor(out, self.act(d))
            last = layer == c.layers - 1
            after = layer_prefix(layer + 1)
            name, norm = ("hf", "final_norm") if last else (after + "h", after + "attn_norm")
            self.normed_first = b.tensor(name, self.act(d), forms=self.normed(d))
            b.launch(
                "moe_add_norm",
                ins=[h, *weights, x, b.weight(norm, (d,))],
                outs=[mixed, (self.normed_first, self.normed(d))],
                experts=e,
                topk=c.topk,
                eps=c.norm_eps,
                **options,
            )
            return mixed
        down = b.tensor(p + "d", self.act(d))
        kind = "moe_shared" if c.shared_ffn is not None else "moe"
        b.launch(kind, ins=[h, *weights], outs=[down], experts=e, topk=c.topk, **options)
        return self.add(out, x, down)

    def dense(self, p: str, x: TensorValue, gain: TensorValue) -> TensorValue:
        """Layer `p`'s dense MLP of the residual `x` (normed by `gain`): its down projection."""
        b, c = self.b, self.c
        assert c.ffn is not None  # a dense config has it
        h = self.norm(p + "h2", x, gain, self.normed(c.hidden))
        w_gate = b.weight(p + "w_gate", (c.ffn, c.hidden), self.weight_elem(c.hidden))
        w_up = b.weight(p + "w_up", (c.ffn, c.hidden), self.weight_elem(c.hidden))
        m = b.tensor(p + "m", self.act(c.ffn), forms=self.normed(c.ffn))
        if c.mlp_bias:
            biases = [b.weight(p + n, (c.ffn,)) for n in ("b_gate", "b_up")]
            b.launch("glu_bias", ins=[(h, self.read(w_gate)), w_gate, w_up, *biases], outs=[m], split=c.split)
        else:
            glu = "glu_tc" if c.tiles else "glu"
            b.launch(glu, ins=[(h, self.read(w_gate)), w_gate, w_up], outs=[m], split=c.split)
        self.quantized(m, c.ffn)
        w_down = b.weight(p + "w_down", (c.hidden, c.ffn), self.weight_elem(c.ffn))
        return self.project(p + "d", m, w_down, c.hidden, p + "b_down" if c.mlp_bias else None)

    def add(self, name: str, a: TensorValue, b: TensorValue) -> TensorValue:
        """`a + b` into a new tensor `name`."""
        out = self.b.tensor(name, a.type.dims)
        self.b.launch("binary", ins=[a, b], outs=[out], op="add")
        return out
