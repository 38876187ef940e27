"""The attention group's fusion (`passes.fuse.attention`, applied by a PatternRewriteWalker): Qwen3-0.6B's and
Llama-3.2-1B's published configs made small, in f32, int8 and int8x2 (and int8x2's cache in two words), at the first,
a middle and the last position of the caches: the fused step computes what the unfused one computes (within the
numerics' tolerance of the float64 reference's, `reference_step.TOLERANCE`), what the float64 reference computes, and
the same placed as unshared (to the bit), a decode row and a prefill chunk; it has three launches a layer fewer (five
with Qwen3's q/k-norms), and a group that another launch reads from is left as it is."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriteWalker

from lanearena import api
from lanearena.dialects.base import LaunchOp
from lanearena.dialects.lane import OutputOp, TensorOp
from lanearena.frontend import DecoderConfig, decoder_step, load
from lanearena.lowering.codegen.placed import placed
from lanearena.lowering.runtime.device import NumpyDevice
from lanearena.lowering.runtime.execute import random_feeds, run
from lanearena.lowering.serving import session
from lanearena.lowering.serving.compare import compare
from lanearena.lowering.serving.session import Session
from lanearena.lowering.serving.weights import RandomWeights
from lanearena.options import PlaceOptions
from lanearena.passes.fuse.attention import ATTENTION_PATTERNS

from ..lowering.test_reference_step import held_to_the_reference
from ..support.reference_step import TOLERANCE

CONFIGS = Path(__file__).resolve().parents[3] / "examples" / "configs"

MAX_LEN = 48

SMALL = {
    "qwen3-0.6b": ["heads=4", "kv_heads=2", "head_dim=128"],
    "llama-3.2-1b": ["heads=8", "kv_heads=2", "head_dim=64"],
}
"""Each model's heads made few, its head size and q heads a kv head (Qwen3's 2, Llama's 4 as published) kept; its
rope (Qwen3's default at theta 1e6, Llama's llama3 scaling) and Qwen3's q/k-norms as published."""

NUMERICS = [("f32", "attention"), ("int8", "attention"), ("int8x2", "attention"), ("int8x2", "attention_i8x2")]


def config(model: str, numerics: str, attn_kind: str = "attention", rows: int = 1) -> DecoderConfig:
    settings = ["layers=2", "vocab=256", f"max_len={MAX_LEN}", "hidden=128", "ffn=256", "split=2", "attn_splits=2"]
    settings += [*SMALL[model], f"numerics={numerics}", f"attn_kind={attn_kind}", "output_logits=true", f"rows={rows}"]
    settings.append("lane_fuse=false")  # the builder's launches, which the attention pattern fuses here
    return load(str(CONFIGS / f"{model}.json"), settings)


def module(model: str, numerics: str, attn_kind: str = "attention", rows: int = 1) -> ModuleOp:
    return decoder_step(config(model, numerics, attn_kind, rows))


def fused(m: ModuleOp) -> ModuleOp:
    PatternRewriteWalker(GreedyRewritePatternApplier(ATTENTION_PATTERNS)).rewrite_module(m)
    m.verify()
    return m


def kinds(m: ModuleOp) -> list[str]:
    return [op.name.split(".", 1)[1] for op in m.walk() if isinstance(op, LaunchOp)]


@pytest.mark.parametrize("model", list(SMALL))
@pytest.mark.parametrize("numerics,attn_kind", NUMERICS)
@pytest.mark.parametrize("rows", [1, 4])
def test_the_fused_step_computes_what_the_unfused_one_computes(model, numerics, attn_kind, rows):
    """A decode row, and a prefill chunk of 4 rows (its new rows made and appended by a kernel first)."""
    before, after = module(model, numerics, attn_kind, rows), fused(module(model, numerics, attn_kind, rows))
    normed = model.startswith("qwen3")
    fused_kind = "norm_rope_attention" if normed else "rope_attention"
    assert kinds(after).count(fused_kind) == 2  # one a layer
    assert len(kinds(before)) - len(kinds(after)) == 2 * (5 if normed else 3)
    steps = []
    for m in (before, after):
        api.place(m, PlaceOptions("best", time_limit=1.0))
        steps.append(placed(m))
    unfused, fused_step = steps
    assert compare(fused_step, "numpy", seed=2).max_abs_err == 0.0  # placed = unshared, to the bit
    for p in (0, MAX_LEN // 2, MAX_LEN - rows):  # the rows at p, p + 1, ...: first, middle and last
        feeds = random_feeds(unfused.step, seed=p)
        feeds["pos"] = np.arange(p, p + rows, dtype=np.int32)
        want = run(unfused, NumpyDevice(), feeds)
        got = held_to_the_reference(fused_step, feeds)
        for name in ("logits", "l0.k_cache", "l1.v_cache"):
            scale = float(np.abs(want[name]).max())
            err = float(np.abs(got[name].astype(np.float64) - want[name]).max()) / scale
            assert err <= TOLERANCE[numerics], (name, p, err)


def test_a_group_whose_turned_q_another_launch_reads_is_kept():
    """The first layer's q/k/v projection made an output: the ropes turn its q and k views in place, so a fused
    attention (which leaves them as projected) would change what the step outputs; the second layer's fuses."""
    m = module("llama-3.2-1b", "f32")
    qkv = next(op for op in m.walk() if isinstance(op, TensorOp) and op.tensor_name == "l0.qkv")
    out = next(op for op in m.walk() if isinstance(op, OutputOp))
    out.operands = [*out.operands, qkv.result]
    launches = kinds(m)
    after = kinds(fused(m))
    assert after.count("rope_attention") == 1
    assert len(launches) - len(after) == 3


INTERLEAVED = """\
lane.step @s numerics(f32) {
  %pos = lane.input "pos" : !lane.tensor<1xi32>
  %h = lane.input "h" : !lane.tensor<128xf32>
  %w = lane.weight "w" : !lane.tensor<256x128xf32>
  %g = lane.weight "g" : !lane.tensor<128xf32>
  %qkv = lane.tensor "qkv" : !lane.tensor<256xf32>
  lane.gemv %h, %w -> %qkv
  %q = lane.view "q" %qkv[0] : !lane.tensor<128xf32>
  %k = lane.view "k" %qkv[128] : !lane.tensor<64xf32>
  %v = lane.view "v" %qkv[192] : !lane.tensor<64xf32>
  lane.rope %pos -> %q heads(4)
  %other = lane.tensor "other" : !lane.tensor<128xf32>
  lane.norm %h, %g -> %other
  lane.rope %pos -> %k heads(2)
  %kc = lane.state "kc" : !lane.tensor<16x64xf32>
  %vc = lane.state "vc" : !lane.tensor<16x64xf32>
  lane.kv_store %k, %v, %pos -> %kc, %vc
  %a = lane.tensor "a" : !lane.tensor<128xf32>
  lane.attention %q, %kc, %vc, %pos -> %a heads(4) kv_heads(2)
  lane.output %a, %other : !lane.tensor<128xf32>, !lane.tensor<128xf32>
}
"""


def test_a_group_with_another_launch_among_its_own_is_kept():
    """A norm of something else between the ropes: the fused launch, where the attention is, would move the first
    rope past it; the pattern keeps the group as it is (the launches between must all be the group's). With the norm
    before the group, it fuses."""
    m = api.parse(INTERLEAVED)
    launches = kinds(m)
    assert kinds(fused(m)) == launches
    rope_q = "  lane.rope %pos -> %q heads(4)\n"
    before = INTERLEAVED.replace(rope_q, "").replace("  lane.rope %pos -> %k", rope_q + "  lane.rope %pos -> %k")
    assert "rope_attention" in kinds(fused(api.parse(before)))  # the norm before the group: it fuses


@pytest.mark.parametrize("numerics,attn_kind", [("f32", "attention"), ("int8x2", "attention_i8x2")])
def test_a_session_of_fused_steps_generates_what_the_unfused_one_does(numerics, attn_kind, monkeypatch):
    """Prefill chunks and decode rows sharing the caches on one device: the fused steps' logits, token after
    token, are the unfused steps' within the numerics' tolerance (their caches written alike, in f32; under
    int8x2 the fused steps keep the new rows' two words, which the unfused attention_i8x2 re-quantizes to)."""
    c = config("qwen3-0.6b", numerics, attn_kind)
    prompt = [3, 1, 4, 1, 5, 9, 2]  # a chunk of 4, then 3 decode rows, then 12 tokens
    unfused = Session(c, RandomWeights(5), chunk=4).generate(prompt, 12)
    built: list[list[str]] = []

    def fused_step(config: DecoderConfig) -> ModuleOp:
        m = fused(decoder_step(config))
        built.append(kinds(m))
        return m

    monkeypatch.setattr(session, "decoder_step", fused_step)
    got = Session(c, RandomWeights(5), chunk=4).generate(prompt, 12)
    assert [k.count("norm_rope_attention") for k in built] == [2, 2]  # the decode step's and the chunk's
    scale = float(np.abs(unfused[1]).max())
    assert float(np.abs(got[1] - unfused[1]).max()) / scale <= TOLERANCE[numerics]
    assert got[0] == unfused[0]
