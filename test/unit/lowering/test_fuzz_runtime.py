"""Random small decoder steps placed by every algorithm, run on the numpy device: the placed run computes what the
run in which nothing shares bytes computes. Both do the same float operations in the same order, so the results
are equal to the bit (the bound asserted is float32 rounding of the values' scale, and what is seen is 0.0). And a
placement corrupted so that an array is overwritten while it is still to be read changes the result: the runtime
is sensitive to what the verifier checks."""

from __future__ import annotations

import dataclasses

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lanearena import api, placement
from lanearena.analysis.plan import ArenaPlan
from lanearena.frontend.decoder import DecoderConfig, decoder_step
from lanearena.lowering.compile import Placed, compare, placed
from lanearena.lowering.device import NumpyDevice
from lanearena.lowering.emit import emit
from lanearena.lowering.runtime import load, max_abs_err, random_feeds
from lanearena.model import QBLOCK, Form, Step, home
from lanearena.options import PlaceOptions

from .test_reference_step import held_to_the_reference

TOLERANCE = 1e-6
"""The largest difference allowed, relative to the largest value the step hands back (float32's epsilon is
1.2e-7): the runs do the same operations in the same order, so any difference is a placement bug."""

FUZZ = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def small_configs(draw) -> DecoderConfig:
    """A decoder of one or two layers small enough to run in milliseconds: any numerics, one to three rows, dense
    or a mixture, projections and the attention split or not."""
    head_dim = draw(st.sampled_from([16, 32]))
    heads = draw(st.sampled_from([2, 4] if head_dim == 16 else [1, 2]))
    kv_heads = draw(st.sampled_from([k for k in (1, 2, 4) if heads % k == 0]))
    hidden = draw(st.sampled_from([32, 64]))
    widths = {"hidden": hidden, "q": heads * head_dim}
    if draw(st.booleans()):
        experts = draw(st.integers(2, 4))
        mlp = {"experts": experts, "topk": draw(st.integers(1, experts)), "expert_ffn": draw(st.sampled_from([32, 64]))}
    else:
        mlp = {"ffn": draw(st.sampled_from([32, 64, 96]))}
        widths["ffn"] = mlp["ffn"]
    splits = [s for s in (1, 2) if all(w % (s * QBLOCK) == 0 for w in widths.values())]
    max_len = 8
    return DecoderConfig(
        "fuzz",
        layers=draw(st.integers(1, 2)),
        hidden=hidden,
        heads=heads,
        kv_heads=kv_heads,
        head_dim=head_dim,
        vocab=draw(st.sampled_from([64, 100])),
        max_len=max_len,
        rows=draw(st.integers(1, 3)),
        numerics=draw(st.sampled_from(["f32", "bf16", "int8", "int8x2"])),
        split=draw(st.sampled_from(splits)),
        head_split=draw(st.sampled_from([s for s in (1, 2) if hidden % (s * QBLOCK) == 0])),
        attn_splits=draw(st.integers(1, 4)),
        qk_norm=draw(st.booleans()),
        tie_embeddings=draw(st.booleans()),
        output_logits=draw(st.booleans()),
        **mlp,
    )


def _placed(config: DecoderConfig, algorithm: str) -> Placed:
    module = decoder_step(config)
    api.place(module, PlaceOptions(algorithm, time_limit=0.05))
    return placed(module)


def _scale(results: dict[str, np.ndarray]) -> float:
    return max((float(np.abs(v).max()) for v in results.values() if v.dtype.kind == "f"), default=1.0)


@settings(FUZZ, max_examples=80)
@given(small_configs(), st.integers(0, 2**16))
def test_every_algorithm_computes_what_the_reference_and_the_unshared_run_compute(config, seed):
    for algorithm in placement.ALGORITHMS:
        p = _placed(config, algorithm)
        run = compare(p, "numpy", seed)
        assert set(run.placed) == set(run.reference)
        assert run.max_abs_err <= TOLERANCE * max(1.0, _scale(run.reference)), (algorithm, run.max_abs_err)
        held_to_the_reference(p, random_feeds(p.step, seed))


def _elements(step: Step, name: str, at: str) -> tuple[int, int]:
    """The elements of tensor `at` that its view (or itself) `name` covers."""
    start, t = 0, step.tensors[name]
    while t.name != at:
        start, t = start + t.view_offset, step.tensors[t.view_of]
    return start, start + step.tensors[name].length


def _overwrites(step: Step, plan: ArenaPlan) -> list[tuple[int, int]]:
    """Pairs (a, b) of placed plain arrays where b, placed at a's offset, would overwrite elements of a that a later
    launch reads: b is first written while a is live, over bytes that a read after that covers. Only pairs that keep
    b inside the arena."""
    pairs = []
    plain = [(i, a) for i, a in enumerate(plan.arrays) if a.form is Form.PLAIN]
    for i, a in plain:
        for j, b in plain:
            if i == j or not a.first < b.first <= a.last or a.offset + b.bytes > plan.bytes:
                continue
            written = step.tensors[b.tensor].length  # elements of a that b's write covers
            for launch in step.launches[b.first + 1 : a.last + 1]:
                read = [
                    _elements(step, r.tensor, a.tensor)
                    for r in launch.reads
                    if r.form is Form.PLAIN and home(step, r.tensor, r.form) == a.tensor
                ]
                if any(start < written for start, _ in read):
                    pairs.append((i, j))
                    break
    return pairs


def _feeds(step: Step, rows: int, max_len: int, seed: int) -> dict[str, np.ndarray]:
    """`random_feeds`, with the rows at positions past the first, so the attention weighs several cached rows and
    the query matters (at position 0 it hands back the one cached value whatever the query)."""
    feeds = random_feeds(step, seed)
    start = np.random.default_rng(seed).integers(1, max_len - rows + 1)
    feeds["pos"] = (start + np.arange(rows)).astype(np.int32)
    return feeds


@settings(FUZZ, max_examples=50)
@given(small_configs(), st.data())
def test_an_array_placed_over_a_live_one_changes_the_result(config, data):
    # The logits are handed back: an arg-max alone may pick the same token from corrupted logits.
    config = dataclasses.replace(config, output_logits=True)
    p = _placed(config, "greedy")
    step, plan = p.step, p.plan
    pairs = _overwrites(step, plan)
    assert pairs, "every decoder step has an array overwritten while live"
    i, j = data.draw(st.sampled_from(pairs), "pair")
    arrays = list(plan.arrays)
    arrays[j] = dataclasses.replace(arrays[j], offset=arrays[i].offset)
    corrupted = dataclasses.replace(plan, arrays=arrays)
    feeds = _feeds(step, config.rows, config.max_len, data.draw(st.integers(0, 2**16), "seed"))
    reference = load(p.unshared_source()).run(NumpyDevice(), feeds)
    assert max_abs_err(load(emit(p.op, step, corrupted)).run(NumpyDevice(), feeds), reference) > 0


@settings(FUZZ, max_examples=30)
@given(small_configs(), st.sampled_from([16, 32, 64, 128, 512, 4096]), st.integers(0, 2**16))
def test_every_alignment_computes_what_the_unshared_run_computes(config, align, seed):
    """Any power of two from 16 places arrays, views, scratch and Q8_0 weights so that the step still runs."""
    module = decoder_step(config)
    api.place(module, PlaceOptions("greedy", align=align))
    p = placed(module)
    plan = p.plan
    assert plan.align == align and all(a.offset % align == 0 for a in plan.arrays)
    run = compare(p, "numpy", seed)
    assert run.max_abs_err <= TOLERANCE * max(1.0, _scale(run.reference)), (align, run.max_abs_err)
    held_to_the_reference(p, random_feeds(p.step, seed))
