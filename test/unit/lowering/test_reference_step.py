"""Whole steps run on the numpy runtime as placed, against the independent float64 reference (`reference_step`):
drawn steps of every kernel kind over views, nested views, quantized views on and off a block, parts and state,
under all three numerics and every placement algorithm; and the reference's own Q8_0 and views against values
worked out by hand."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, currently_in_test_context, given, reject, settings
from hypothesis import strategies as st

from lanearena import api, placement
from lanearena.frontend import StepBuilder
from lanearena.lowering.codegen.placed import Placed, placed
from lanearena.lowering.runtime.device import NumpyDevice
from lanearena.lowering.runtime.execute import max_abs_err, random_feeds, run, run_step
from lanearena.options import PlaceOptions

from ..support import reference_step
from ..support.kernel_steps import kernel_steps
from ..support.q8_0 import quantized, tie_distance

FUZZ = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def held_to_the_reference(placed_step: Placed, feeds) -> dict:
    """Runs `placed_step` over `feeds` as it is placed, on the numpy runtime, asserts that it computes what the
    reference computes within the tolerance of its numerics, and returns its results. A step with a router whose
    choice of experts is a near tie (so either run may pick either) is no test: a drawn one is rejected, a
    written one fails. So is a drawn step that quantizes a value at a rounding tie (`reference_step.TIE`: either run
    may round it either way, a whole quantum apart, which in a small step can outweigh the tolerance); a written
    one is held as it is (a decoder step quantizes thousands of values, a few of them near a tie, and spreads each
    quantum over wide products), its ties named where it fails."""
    step = placed_step.step
    want = reference_step.run(step, feeds)
    near = want.ambiguous(step.numerics)
    if near:
        assert currently_in_test_context(), f"near ties: {near}"
        reject()
    if want.ties and currently_in_test_context():
        reject()
    got = run(placed_step, NumpyDevice(), feeds)
    off = want.differences(got, step.numerics)
    assert not off, off + want.ties
    return got


@settings(FUZZ, max_examples=300)
@given(kernel_steps(), st.sampled_from(placement.ALGORITHMS), st.integers(0, 2**16))
def test_drawn_steps_compute_what_the_reference_computes(drawn, algorithm, seed):
    api.place(drawn.module, PlaceOptions(algorithm, time_limit=0.05))
    p = placed(drawn.module)
    feeds = random_feeds(p.step, seed)
    got = held_to_the_reference(p, feeds)
    # And a second check: the run in which no two arrays share bytes computes the same, to the bit.
    assert max_abs_err(got, run_step(NumpyDevice(), p.unshared, feeds)) == 0.0


def test_q8_0_as_ggml_defines_it():
    """d = max|x| / 127, q = round(x / d) half to even, zeros stay zeros; two words add (x / d - q) * 127 rounded."""
    x = np.zeros(64)
    x[:6] = [127.0, -63.5, 0.5, 1.5, 2.25, -0.25]
    assert quantized(x, False)[:6].tolist() == [127.0, -64.0, 0.0, 2.0, 2.0, -0.0]
    assert not quantized(x, False)[32:].any()
    # 2.25 is 2 and a low word of round(0.25 * 127) = 32: 2 + 32/127.
    assert quantized(x, True)[4] == 2 + 32 / 127
    # d is an f32 (3/127 rounded), so a block stands for q * d with that d.
    assert quantized(np.full(32, 3.0), False).tolist() == [127 * float(np.float32(3) / np.float32(127))] * 32


def test_a_value_at_a_rounding_tie_makes_the_step_no_test():
    """x / d at 30.5 (d = 127/127 = 1) is a tie in one word; at 30.25 it is a quarter quantum from one. A mixture's
    hidden value at such a tie put a drawn int8 step 2.4e-3 off (reference_step.TIE), so the reference names it."""
    x = np.zeros(32)
    x[:2] = [127.0, 30.5]
    assert tie_distance(x) == 0.0
    x[1] = 30.25
    assert tie_distance(x) == 0.25
    b = StepBuilder("tie", "int8")
    v = b.input("v", (32,))
    t = b.tensor("t", (32,), forms=("plain", "quant"))
    b.launch("binary", [v, v], [t], op="add")
    b.launch("quantize", [t], [(t, "quant")])
    out = b.tensor("out", (1,))
    b.launch("gemv", [(t, "quant"), b.weight("w", (1, 32))], [out])
    b.output(out)
    ((step, _),) = api.placed_steps(b.module())
    half = np.zeros(32)
    half[:2] = [63.5, 15.25]  # doubled: 127 and 30.5
    assert reference_step.run(step, {"v": half, "w": np.ones((1, 32))}).ties == ["'t' quantized at a rounding tie"]
    half[1] = 15.125
    assert not reference_step.run(step, {"v": half, "w": np.ones((1, 32))}).ties


def test_views_and_quantized_views_by_hand():
    """A view of a view reads its base at both offsets added; a quantized view of a quantized view, each a whole
    number of blocks in, reads its base's blocks in place; a view half a block in has blocks of its own, and so does
    a view a whole number of blocks into its base through a view half a block off."""
    b = StepBuilder("views", "int8")
    x = b.input("x", (128,))
    t = b.tensor("t", (128,), forms=("plain", "quant"))
    b.launch("binary", [x, x], [t], op="add")
    b.launch("quantize", [t], [(t, "quant")])
    inner = b.view("inner", t, 32, (96,), ("plain", "quant"))
    nested = b.view("nested", inner, 32, (32,), ("plain", "quant"))  # t's third block, in place
    half = b.view("half", t, 48, (64,), ("plain", "quant"))  # half a block off: blocks of its own
    b.launch("quantize", [half], [(half, "quant")])
    past = b.view("past", half, 32, (32,), ("plain", "quant"))  # in place in half's own blocks
    outs = []
    for name, v, form in (("a", nested, "plain"), ("b", nested, "quant"), ("c", half, "quant"), ("d", past, "quant")):
        out = b.tensor(name, (1,))
        width = 64 if v is half else 32
        b.launch("gemv", [(v, form), b.weight("w" + name, (1, width))], [out])
        outs.append(out)
    b.output(*outs)
    ((step, _),) = api.placed_steps(b.module())
    xs = np.arange(128.0) - 40
    ones = {"wa": np.ones((1, 32)), "wb": np.ones((1, 32)), "wc": np.ones((1, 64)), "wd": np.ones((1, 32))}
    got = reference_step.run(step, {"x": xs, **ones}).results
    t_values = 2 * xs
    assert got["a"][0] == t_values[64:96].sum()
    assert got["b"][0] == quantized(t_values, False)[64:96].sum()
    assert got["c"][0] == quantized(t_values[48:112], False).sum()
    assert got["d"][0] == quantized(t_values[48:112], False)[32:64].sum()


@pytest.mark.parametrize("rows,split", [(1, 1), (3, 1), (3, 2)])
def test_a_router_ranks_nan_above_every_logit(rows, split):
    """An expert whose router row is NaN is chosen first by every router (a decode row's, a chunk's, one cut along k):
    its gate is NaN, and so is the result, as the reference has it; a router that skipped NaN would hand back
    numbers."""
    experts, d, f = 4, 32, 32
    b = StepBuilder("nan", "f32")
    x = b.input("x", (rows, d))
    h = b.tensor("h", (rows, d))
    b.launch("binary", [x, x], [h], op="add")
    weights = [b.weight("wr", (experts, d)), *(b.weight(n, (experts, f, d)) for n in ("wg", "wu"))]
    out = b.tensor("out", (rows, d))
    params = {"experts": experts, "topk": 2} | ({"router_split": split} if split > 1 else {})
    b.launch("moe", [h, *weights, b.weight("wd", (experts, d, f))], [out], **params)
    b.output(out)
    module = b.module()
    api.place(module, PlaceOptions("greedy"))
    p = placed(module)
    feeds = random_feeds(p.step, 0)
    feeds["wr"][2] = np.nan
    got = held_to_the_reference(p, feeds)
    assert np.isnan(got["out"]).all()
