"""`lane-fuse`: every shipped config made small, in every numerics, fused and not, run on the numpy runtime; the
fused step held to the unfused one (to the bit where the fused kernels make the very rows the unfused launches
make), to the run in which nothing shares bytes, and both to the independent float64 reference; the launches a
dense layer is left with; and the places where a fusion must not happen."""

from __future__ import annotations

import re
import shutil
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriteWalker

from lanearena import api
from lanearena.dialects.kinds.fused_products import ROW_LIMIT
from lanearena.errors import UserError
from lanearena.frontend import StepBuilder, decoder_step, load
from lanearena.lowering.codegen.placed import placed
from lanearena.lowering.kernels import ptx, source
from lanearena.lowering.runtime.device import NumpyDevice
from lanearena.lowering.runtime.execute import random_feeds, run
from lanearena.lowering.serving.compare import compare
from lanearena.model import QBLOCK, Form
from lanearena.options import PlaceOptions
from lanearena.passes.convert import step_of, steps
from lanearena.passes.fuse import fuse_module
from lanearena.passes.fuse.products import PRODUCT_PATTERNS

from ..support import reference_step

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "configs"
SMALL = ["layers=2", "vocab=256", "max_len=32", "hidden=128", "heads=4", "kv_heads=2", "head_dim=32", "split=2"]
"""CI-sized: the key sets as shipped or published, the widths small (as test_hf_configs.py makes them)."""

MIXTURE = ["experts=8", "topk=2", "expert_ffn=64"]

SHIPPED: dict[str, list[str]] = {
    "tiny": [],
    "tiny-moe": [],
    "tiny-moe-unsplit": ["split=1"],
    "tiny-prefill": [],
    "tiny-unsplit": ["split=1"],  # the products whole: their epilogues where the block sums
    "qwen3-0.6b": [*SMALL, "ffn=256"],
    "qwen3-30b-a3b": [*SMALL, *MIXTURE],
    "llama-3.2-1b": [*SMALL, "ffn=256"],
    "llama-3.2-1b-biased": [*SMALL, "ffn=256", "qkv_bias=true", "o_bias=true", "mlp_bias=true"],
    "mistral-7b-v0.3": [*SMALL, "ffn=256", "window=12"],
    "qwen2.5-0.5b": [*SMALL, "ffn=256", "window=12", "window_from=1"],
    "smollm2-135m": [*SMALL, "ffn=256"],
    "mixtral-8x7b-v0.1": [*SMALL, *MIXTURE],
    "qwen1.5-moe-a2.7b": [*SMALL, *MIXTURE, "shared_ffn=96", "dense_layers=1", "ffn=256"],
    "qwen3-next-80b-a3b": [
        *SMALL,
        *MIXTURE,
        "shared_ffn=32",
        "rotary_dim=8",
        "lin_key_heads=2",
        "lin_value_heads=4",
        "lin_head_dim=32",
        "attn_interval=2",
    ],
}
"""Every shipped config (the package's and examples/configs') by a name of its own, and the keys that make it
small."""


def _spec(name: str) -> str:
    """The config a case is made of: a shipped one, or an example's config.json."""
    base = name.removesuffix("-biased").removesuffix("-unsplit")
    path = EXAMPLES / f"{base}.json"
    return str(path) if path.exists() else base


def _placed(name: str, *keys: str):
    return placed(api.place(decoder_step(load(_spec(name), [*SHIPPED[name], *keys])), PlaceOptions("greedy")))


DRIFT_TIE = 1e-4
"""How near, in quanta, a value quantized in one word may come to a rounding tie in the feeds a case runs: the fused
and the unfused runs' f32 values are up to 2.7e-7 of their scale apart (measured on qwen2.5-0.5b's int8 chunk over 12
seeds), which moves x / d by up to 127 * 2.7e-7 through x and as much through d, 6.9e-5 of a quantum. A value nearer
may round either way in either run, a whole quantum apart, and a decoder step carries that far: with seed 0 that
chunk's layer-1 normed residual has a value at x / d = -80.4999967 (-80.5 in f32), the fused run rounds it the other
way, and its logits land 4.4e-3 off the reference and the unfused run (that value nudged up by 1e-6 in the
reference puts the fused run within 2.6e-7 of it); with seed 11 its embedding rows normed sit as near one, and
both runs land 1.6e-2 off the reference. (reference_step.TIE, 2.5e-4, bounds the drift of any drawn step; nearly
every seed of a decoder step quantizes some value that near, so these cases take the drift they measure.)"""


def _untied_feeds(step) -> dict[str, np.ndarray]:
    """Feeds of the first seed whose routers choose their experts with no near tie (where the runs and the reference
    may each pick either expert) and that quantize no value in one word within DRIFT_TIE of a rounding tie."""
    for seed in range(20):
        feeds = random_feeds(step, seed)
        meant = reference_step.run(step, feeds)
        if not meant.ambiguous(step.numerics) and meant.nearest_tie > DRIFT_TIE:
            return feeds
    raise AssertionError("a near tie in every draw")


def _products_fused(module):
    """`module` with the product fusions alone made (what `lane-fuse` adds besides: the attention's)."""
    walker = PatternRewriteWalker(GreedyRewritePatternApplier(list(PRODUCT_PATTERNS)), apply_recursively=True)
    walker.rewrite_module(module)
    return module


ROUNDING = {
    "f32": 1e-5,
    "bf16": 1e-5,
    "int8": reference_step.TOLERANCE["int8"],
    "int8x2": reference_step.TOLERANCE["int8x2"],
}
"""How far, relative to a result's largest value, a fused step may be from the unfused one where a fused kernel sums
in an order of its own: f32 rounding (measured: 9.5e-7; bf16's the same, its weights exact in f32 and its sums
f32's), which a later quantization may carry across a rounding tie to a word (int8, int8x2: the reference's
tolerance; measured: 1.8e-4 under int8x2)."""


def _differ(got: dict, want: dict) -> float:
    """The largest difference between two runs' results, each relative to its largest value."""
    return max(float(np.abs(got[r].astype(np.float64) - v).max() / (np.abs(v).max() or 1.0)) for r, v in want.items())


@pytest.mark.parametrize("numerics", ["f32", "bf16", "int8", "int8x2"])
@pytest.mark.parametrize("rows", [1, 4])
@pytest.mark.parametrize("name", SHIPPED)
def test_the_fused_step_computes_what_the_unfused_one_does(name, rows, numerics):
    keys = (f"numerics={numerics}", f"rows={rows}")
    config = load(_spec(name), [*SHIPPED[name], *keys, "lane_fuse=false"])
    unfused = placed(api.place(decoder_step(config), PlaceOptions("greedy")))
    products = placed(api.place(_products_fused(decoder_step(config)), PlaceOptions("greedy")))
    fused = _placed(name, *keys)  # as built: every fusion of lane-fuse
    assert len(fused.step.launches) <= len(products.step.launches) < len(unfused.step.launches)
    assert len(products.plan.arrays) < len(unfused.plan.arrays)  # the arrays between fused launches are gone
    feeds = _untied_feeds(unfused.step)
    assert set(random_feeds(fused.step, 0)) == set(feeds)  # the same inputs, weights and state
    want = run(unfused, NumpyDevice(), feeds)
    # The prologues norm and quantize with the norm's and the quantize's own arithmetic and the epilogues add as
    # binary adds: equal to the bit. A chunk's mixture with its residual (moe_add, moe_shared_add) sums in an order
    # of its own: within rounding.
    got = run(products, NumpyDevice(), feeds)
    mixed_chunk = rows > 1 and any(launch.kind in ("moe_add", "moe_shared_add") for launch in products.step.launches)
    assert _differ(got, want) <= (ROUNDING[numerics] if mixed_chunk else 0.0)
    for step, results in ((products.step, got), (unfused.step, want)):
        meant = reference_step.run(step, feeds)
        assert not meant.differences(results, step.numerics), meant.differences(results, step.numerics)
    assert compare(fused, "numpy", seed=2).max_abs_err == 0.0
    every = run(fused, NumpyDevice(), feeds)
    meant = reference_step.run(fused.step, feeds)
    off = meant.differences(every, fused.step.numerics)
    assert _differ(every, want) <= ROUNDING[numerics]
    assert not off, off


def _layer(launch) -> int | None:
    """The layer a launch of a decoder step is in, by what it writes (`l3.qkv`, the residual `x4`); None for the
    embedding and the head."""
    for name in launch.outs:
        if m := re.match(r"l(\d+)\.", name):
            return int(m.group(1))
        if m := re.fullmatch(r"x(\d+)", name):
            return int(m.group(1)) - 1 if int(m.group(1)) else None
    return None


PRODUCTS = {"norm_gemv", "norm_gemv_bias", "gemv_add", "norm_glu", "gemm_tc", "glu_tc", "gemv", "glu", "quantize"}
"""What no launch between a layer's q/k/v product and its output product may be: a product, or a quantize."""


@pytest.mark.parametrize("numerics", ["f32", "bf16", "int8", "int8x2"])
@pytest.mark.parametrize("name", ["llama-3.2-1b", "mistral-7b-v0.3", "qwen2.5-0.5b", "qwen3-0.6b", "smollm2-135m"])
def test_a_dense_layer_is_four_products_around_its_attention(name, numerics):
    """As published (no key changed but the numerics): every layer is [norm + q/k/v], the attention's launches,
    [o + residual], [norm + gate/up + silu * up (+ quantize)], [down + residual]."""
    step = step_of(steps(decoder_step(load(_spec(name), [f"numerics={numerics}"])))[0])[0]
    layers: dict[int, list[str]] = {}
    for launch in step.launches:
        if (layer := _layer(launch)) is not None:
            layers.setdefault(layer, []).append(launch.kind)
    assert len(layers) == load(_spec(name)).layers
    for kinds in layers.values():
        first, *group, o, mlp, down = kinds
        assert first in ("norm_gemv", "norm_gemv_bias") and (o, mlp, down) == ("gemv_add", "norm_glu", "gemv_add")
        assert not set(group) & PRODUCTS and any("attention" in kind for kind in group)  # the attention's launches
    head = [launch.kind for launch in step.launches if _layer(launch) is None]
    assert head == ["gather", "norm_gemv", "argmax"]


def test_a_dense_layer_reads_its_hidden_rows_quantized_once():
    """Under int8 the gated pair writes its result quantized only, where the down product reads it; the norms'
    rows and the products' results between fused launches are no tensors of the step."""
    step = step_of(steps(decoder_step(load("tiny")))[0])[0]
    assert step.tensors["l0.m"].forms == frozenset({Form.QUANT})
    assert step.tensors["l0.attn"].forms == frozenset({Form.PLAIN})
    assert not {"l0.h", "l0.o", "l0.h2", "l0.d", "hf"} & set(step.tensors)


def _residual_step():
    """A norm whose row is read by a product and by an add (as a residual would be): it must stay."""
    b = StepBuilder("kept", "int8")
    x, g, w = b.input("x", (64,)), b.weight("g", (64,)), b.weight("w", (32, 64), "i8")
    h, y, z = b.tensor("h", (64,), forms=(Form.PLAIN, Form.QUANT)), b.tensor("y", (32,)), b.tensor("z", (64,))
    b.launch("norm", ins=[x, g], outs=[(h, (Form.PLAIN, Form.QUANT))])
    b.launch("gemv", ins=[(h, Form.QUANT), w], outs=[y])
    b.launch("binary", ins=[x, h], outs=[z])
    b.output(y, z)
    return b.module()


def test_a_norm_read_elsewhere_is_not_fused():
    module = fuse_module(_residual_step())
    assert [op.name for op in module.walk() if op.name.startswith("lane.") and "norm" in op.name] == ["lane.norm"]


def test_a_row_longer_than_a_prologue_stages_is_not_fused():
    """A norm of rows past ROW_LIMIT values stays (a prologue could not stage them); its product reads it as built;
    a kind written with one is refused, naming its line."""
    wide = ROW_LIMIT + QBLOCK
    b = StepBuilder("wide", "f32")
    x, g, w = b.input("x", (wide,)), b.weight("g", (wide,)), b.weight("w", (32, wide))
    h, y = b.tensor("h", (wide,)), b.tensor("y", (32,))
    b.launch("norm", ins=[x, g], outs=[h])
    b.launch("gemv", ins=[h, w], outs=[y])
    b.output(y)
    module = fuse_module(b.module())
    assert [op.name for op in module.walk() if op.name in ("lane.norm", "lane.gemv")] == ["lane.norm", "lane.gemv"]
    fused = str(module).replace("lane.norm %x, %g -> %h\n", "").replace("lane.gemv %h, %w", "lane.norm_gemv %x, %g, %w")
    with pytest.raises(UserError, match=f"a prologue stages rows of at most {ROW_LIMIT} values, not {wide}"):
        api.parse(fused, "wide.mlir")


def test_a_placed_step_is_left_as_it_is():
    module = api.place(decoder_step(load("tiny", ["lane_fuse=false"])), PlaceOptions("greedy"))
    text = str(module)
    assert str(fuse_module(module)) == text


def _fused_text(settings: list[str]) -> str:
    return str(decoder_step(load("tiny", settings)))


@pytest.mark.parametrize(
    "settings, edit, message",
    [
        ([], lambda t: t.replace("numerics(int8)", "numerics(f32)"), "quantize in the prologue of a step of f32"),
        (
            [],
            lambda t: t.replace('"l0.mlp_norm" : !lane.tensor<128xf32>', '"l0.mlp_norm" : !lane.tensor<64xf32>'),
            "gain 'l0.mlp_norm' of 64 values",
        ),
        (
            [],
            lambda t: t.replace(
                "lane.gemv_add %l0.m(quant), %l0.w_down, %l0.xa", "lane.gemv_add %l0.m(quant), %l0.w_down, %l0.qkv"
            ),
            "residual 'l0.qkv' holds 256 values",
        ),
        (
            ["numerics=bf16"],
            lambda t: t.replace('"l0.w_up" : !lane.tensor<256x128xbf16>', '"l0.w_up" : !lane.tensor<256x128xf32>'),
            "lane.norm_glu: weights of bf16, f32, .* bf16 all or none",
        ),
    ],
    ids=["quantize-under-f32", "gain-length", "residual-length", "bf16-and-f32-matrices"],
)
def test_a_fused_kind_refuses_shapes_its_kernels_cannot_run(settings, edit, message):
    text = edit(_fused_text(settings))
    with pytest.raises(UserError, match=message) as e:
        api.parse(text, "fused.mlir")
    assert str(e.value).startswith("fused.mlir:")


@pytest.mark.skipif(shutil.which("nvcc") is None or shutil.which("ptxas") is None, reason="needs nvcc and ptxas")
@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_the_fused_kernels_compile_and_assemble(arch):
    text = ptx.compile_ptx(source.sources()["fused_products"], (), ptx.compiler())  # compute_80, checked for sm_80
    assert ptx.assemble(text, arch) is None
    kernels = ("gemv_fused", "gemv_add_norm", "glu_fused")
    assert {*kernels, *(f"{k}_bf16" for k in kernels)} <= set(re.findall(r"\.entry\s+(\w+)", text))


@pytest.mark.parametrize("numerics", ["f32", "bf16", "int8"])
@pytest.mark.parametrize("name", ["llama-3.2-1b", "qwen3-0.6b"])
def test_a_dense_layer_of_the_small_models_is_at_most_five_launches(name, numerics):
    """Issue 32's bound, as published (the weights bf16 too: the fused kinds take bf16 matrices as the unfused
    products do): the q/k/v product, the attention, the output product, the gated pair, the down product."""
    step = step_of(steps(decoder_step(load(_spec(name), [f"numerics={numerics}"])))[0])[0]
    per_layer = Counter(_layer(x) for x in step.launches if _layer(x) is not None)
    assert len(per_layer) == load(_spec(name)).layers
    assert max(per_layer.values()) <= 5, per_layer


def test_launch_counts_of_the_families():
    """Launches a layer, fused and not, of each family as published (int8; what docs/fusion.md tabulates)."""
    counts = {}
    for name in ("llama-3.2-1b", "mixtral-8x7b-v0.1", "qwen3-next-80b-a3b"):
        for fuse in ("false", "true"):
            step = step_of(steps(decoder_step(load(_spec(name), ["layers=4", f"lane_fuse={fuse}"])))[0])[0]
            counts[name, fuse] = sorted(
                set(Counter(_layer(x) for x in step.launches if _layer(x) is not None).values())
            )
    assert counts == {
        ("llama-3.2-1b", "false"): [14],
        ("llama-3.2-1b", "true"): [5],
        ("mixtral-8x7b-v0.1", "false"): [12],
        ("mixtral-8x7b-v0.1", "true"): [4],
        ("qwen3-next-80b-a3b", "false"): [11, 16],
        ("qwen3-next-80b-a3b", "true"): [6, 7],
    }
