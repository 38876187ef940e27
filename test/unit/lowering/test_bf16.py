"""bf16 numerics on the numpy runtime: every shipped config made small (and the fused and tiled kinds) runs placed as
unshared, to the bit, with its weight matrices in bf16; a product with bf16 weights is within bf16's rounding of
the f32 product, by a bound stated exactly; and a whole bf16 step is within a few of those roundings of the f32 step
of the same weights, with the same tokens where the f32 step's choice is clear; and a bf16 decoder step is the float64
reference's to f32 rounding. (The reference holds bf16 steps of every kind in test_reference_step's drawn steps too;
transformers holds the tiny families in test_held_to_transformers.)"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from lanearena import api
from lanearena.frontend import StepBuilder, decoder_step, load
from lanearena.frontend.configs import CONFIGS
from lanearena.lowering.compile import compare, placed, run
from lanearena.lowering.device import NumpyDevice
from lanearena.lowering.runtime import random_feeds
from lanearena.model import Role
from lanearena.options import PlaceOptions

from ..dialects.test_roundtrip import _printed, _round_trips
from ..frontend.test_hf_configs import ALL_TYPES, LLAMA, QWEN3, QWEN3_MOE, SMALL, SMALL_BY_TYPE
from ..support import reference_step

UNIT = 2.0**-8
"""bf16's unit roundoff: 8 significant bits, so rounding to nearest moves a value by at most 2^-8 of itself."""

SHIPPED = {
    "tiny": [],
    "tiny-moe": [],
    "tiny-prefill": [],
    "qwen3-0.6b": [*SMALL, *SMALL_BY_TYPE[QWEN3]],
    "qwen3-30b-a3b": [*SMALL, *SMALL_BY_TYPE[QWEN3_MOE]],
    **{config: [*SMALL, *SMALL_BY_TYPE[config]] for config in ALL_TYPES.values()},
    str(Path(LLAMA).with_name("smollm2-135m.json")): [*SMALL, *SMALL_BY_TYPE[LLAMA]],
}
"""Every shipped config (lanearena's own and the examples' Hugging Face ones), with settings that make it small."""


def _short(config: str) -> str:
    return config.rsplit("/", 1)[-1].removesuffix(".json")


def test_every_shipped_config_is_listed():
    examples = {_short(c) for c in SHIPPED if c.endswith(".json")}
    assert set(CONFIGS) <= set(SHIPPED)
    assert examples == {p.stem for p in Path(LLAMA).parent.glob("*.json")}


def test_a_bf16_step_prints_and_parses_back_placed_and_not():
    module = decoder_step(load("tiny-moe", ["numerics=bf16"]))
    text = _printed(module, False)
    assert "numerics(bf16)" in text and 'lane.weight "l0.w_router" : !lane.tensor<4x128xbf16>' in text
    _round_trips(module)
    _round_trips(api.place(module, PlaceOptions("greedy")))


@pytest.mark.parametrize("rows", [1, 8])
@pytest.mark.parametrize("config", SHIPPED, ids=[_short(c) for c in SHIPPED])
def test_shipped_configs_run_placed_as_unshared_in_bf16(config, rows):
    module = decoder_step(load(config, [*SHIPPED[config], "numerics=bf16", f"rows={rows}"]))
    api.place(module, PlaceOptions("best"))
    p = placed(module)
    weights = [t for t in p.step.tensors.values() if t.role is Role.WEIGHT]
    assert {t.elem for t in weights if len(t.shape) >= 2} >= {"bf16"}
    assert {t.elem for t in weights if len(t.shape) == 1} == {"f32"}  # gains and biases stay f32
    result = compare(p, "numpy", seed=rows)
    for name, value in result.placed.items():
        assert not np.isnan(value).any(), name
    assert result.max_abs_err == 0.0


@pytest.mark.parametrize(
    "config, settings, kinds",
    [
        (QWEN3_MOE, ["fuse=true", "attn_kind=attention_shared"], {"gather_norm", "moe_add_norm"}),
        (QWEN3_MOE, ["fuse=true", "rows=8", "tiles=true"], {"moe_add_norm", "gemm_tc"}),
        (QWEN3, ["tiles=true", "rows=8", "split=1"], {"glu_tc"}),
        (QWEN3, ["tiles=true"], {"gemm_tc", "glu_tc"}),
    ],
)
def test_fused_and_tiled_kinds_run_placed_as_unshared_in_bf16(config, settings, kinds):
    module = decoder_step(load(config, [*SMALL, *SMALL_BY_TYPE[config], *settings, "numerics=bf16"]))
    api.place(module, PlaceOptions("best"))
    p = placed(module)
    assert kinds <= {launch.kind for launch in p.step.launches}
    assert compare(p, "numpy", seed=5).max_abs_err == 0.0


def _product(elem: str, k: int, n: int, rows: int, split: int):
    b = StepBuilder("product", "bf16" if elem == "bf16" else "f32")
    x = b.input("x", (rows, k))
    out = b.tensor("out", (rows, n))
    b.launch("gemv", [x, b.weight("w", (n, k), elem)], [out], split=split)
    b.output(out)
    module = b.module()
    api.place(module, PlaceOptions("greedy"))
    return placed(module)


@pytest.mark.parametrize("k, n, rows, split", [(256, 64, 1, 1), (96, 130, 3, 2), (1000, 40, 2, 4)])
def test_a_bf16_product_is_within_bf16s_rounding_of_the_f32_product(k, n, rows, split):
    """Each weight rounded to bf16 moves by at most 2^-8 of itself, so a result by at most 2^-8 of the sum of its
    terms' magnitudes, sum |x w|; the two runs' f32 sums add at most k f32 roundings (2^-24 each) of that sum."""
    rng = np.random.default_rng(k)
    x = rng.standard_normal((rows, k)).astype(np.float32)
    w = (rng.standard_normal((n, k)) / np.sqrt(k)).astype(np.float32)
    f32 = run(_product("f32", k, n, rows, split), NumpyDevice(), {"x": x, "w": w})["out"]
    bf16 = run(_product("bf16", k, n, rows, split), NumpyDevice(), {"x": x, "w": w})["out"]
    magnitude = np.abs(x).astype(np.float64) @ np.abs(w).T.astype(np.float64)
    moved = np.abs(bf16.astype(np.float64) - f32.reshape(bf16.shape))
    assert (moved <= (UNIT + k * 2.0**-24) * magnitude).all()
    assert moved.max() > UNIT / 100 * magnitude.max()  # the weights were rounded: the bound is no formality


STEP_BOUND = 4 * UNIT
"""A bf16 decoder step's logits against the f32 step's of the same weights, as a share of the largest logit. Every
projection moves its result by at most 2^-8 of the sum of its terms' magnitudes (the product test above); with
weights and activations of either sign those moves add as random errors through the layers' norms and residual
sums, and on the tiny configs over three seeds they came to 0.0042 to 0.0073 (1.1 to 1.9 units): four units."""


@pytest.mark.parametrize("config", ["tiny", "tiny-moe", "tiny-prefill"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_bf16_step_is_within_bf16s_rounding_of_the_f32_step(config, seed):
    steps = {}
    for numerics in ("f32", "bf16"):
        module = decoder_step(load(config, [f"numerics={numerics}"]))
        api.place(module, PlaceOptions("greedy"))
        steps[numerics] = placed(module)
    feeds = random_feeds(steps["f32"].step, seed)  # f32 weights, which the bf16 run rounds as it uploads them
    f32, bf16 = (run(steps[n], NumpyDevice(), feeds) for n in ("f32", "bf16"))
    want, got = f32["logits"].reshape(-1, CONFIGS[config].vocab), bf16["logits"].reshape(-1, CONFIGS[config].vocab)
    scale = np.abs(want).max()
    assert np.abs(got - want).max() <= STEP_BOUND * scale
    top2 = np.sort(want, axis=1)[:, -2:]
    clear = top2[:, 1] - top2[:, 0] > 2 * STEP_BOUND * scale
    assert (f32["token"].reshape(-1)[clear] == bf16["token"].reshape(-1)[clear]).all()


TIGHT = 1e-5
"""A bf16 decoder step against the float64 reference, relative to each result's largest value: the weights are the
same exact values on both sides, so only the runtime's f32 arithmetic differs, as under f32 (measured on these
steps: 3.3e-7 to 5.9e-7 in bf16, 3.4e-7 to 5.3e-7 in f32). The reference's own bf16 tolerance is f32's looser 2e-4,
which the delta rule in chunks needs."""


@pytest.mark.parametrize("config", ["tiny", "tiny-moe", "tiny-prefill"])
def test_a_bf16_step_is_the_float64_reference_to_f32_rounding(config):
    p = placed(api.place(decoder_step(load(config, ["numerics=bf16"])), PlaceOptions("greedy")))
    feeds = random_feeds(p.step, 2)
    assert any(p.step.tensors[name].elem == "bf16" for name in feeds)
    want, got = reference_step.run(p.step, feeds).results, run(p, NumpyDevice(), feeds)
    for name, values in want.items():
        if name != "token":
            have = np.asarray(got[name], np.float64).reshape(values.shape)
            assert np.abs(have - values).max() <= TIGHT * np.abs(values).max(), name
    assert np.array_equal(got["token"].reshape(-1), want["token"].reshape(-1).astype(got["token"].dtype))
