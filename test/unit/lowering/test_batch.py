"""A decode step of several sequences (`decoder_step(c, batch=B)`) on the numpy runtime: every sequence's greedy
tokens are the ones its prompt makes alone through the one-sequence step (same weights, same numerics), its logits
the same to the bit under int8 where the products are the same (a dense step unfused) and within f32 rounding
otherwise, for every shipped config made small under f32, int8 and bf16, sequences joining at steps of their own
(each row its own position); and each slot of the batched step's state is the state the sequence leaves alone, laid
out as the one-sequence step's. The batched step places at its lower bound and verifies."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lanearena import api
from lanearena.frontend import ConfigError, decoder_step, load
from lanearena.passes.convert import step_of, steps

from ..support.batches import Prompt, alone, batched, weights_of
from ..support.batches import _placed as placed_step
from .test_bf16 import SHIPPED, _short

SMALL = ["layers=2", "vocab=512", "rows=1"]
"""Over the shipped configs' small settings: two layers (Qwen3-Next's one delta rule and one full attention),
decode rows (tiny-prefill's made a decode step)."""

NUMERICS = ("f32", "int8", "bf16")

BATCH = (Prompt(0, (1, 2, 3)), Prompt(2, (5,)), Prompt(1, (7, 8, 9, 10)))
"""Three sequences, joining at steps 0, 2 and 1 (so their positions differ at every step)."""


def _config(config: str, *more: str):
    qwen3_next = ["attn_interval=2"] if "qwen3-next" in config else []
    return load(config, [*SHIPPED[config], *SMALL, *qwen3_next, *more])


def assert_each_as_alone(c, seqs: tuple[Prompt, ...], steps: int, exact: bool, seed: int = 1) -> None:
    """Every sequence of `seqs` through the batched step as through the one-sequence step alone: the same tokens,
    logits to the bit where `exact` (else within 1e-5 of the largest), and its slot of the state left the same."""
    weights = weights_of(placed_step(c, len(seqs)), seed)
    for s, (tokens, logits, state) in zip(seqs, batched(c, weights, seqs, steps), strict=True):
        want_tokens, want_logits, want_state = alone(c, weights, s.prompt, steps - s.start)
        assert tokens == want_tokens
        for got, want in zip(logits, want_logits, strict=True):
            if exact:
                np.testing.assert_array_equal(got, want)
            else:
                np.testing.assert_allclose(got, want, rtol=0, atol=1e-5 * float(np.abs(want).max()))
        for name, value in want_state.items():
            np.testing.assert_allclose(state[name], value, rtol=0, atol=1e-5 * max(float(np.abs(value).max()), 1))


@pytest.mark.parametrize("numerics", NUMERICS)
@pytest.mark.parametrize("config", SHIPPED, ids=[_short(c) for c in SHIPPED])
def test_every_sequence_of_a_batch_decodes_as_it_does_alone(config, numerics):
    c = _config(config, f"numerics={numerics}")
    assert_each_as_alone(c, BATCH, 5, exact=False)


@pytest.mark.parametrize("config", ["tiny", "tiny-moe"])
@pytest.mark.parametrize("lane_fuse", ["true", "false"])
def test_int8_rows_are_the_bits_they_are_alone(config, lane_fuse):
    """Under int8, fused and unfused: a dense step's rows to the bit, a mixture's unfused too (its batched rows
    gathered in f32 as a decode row reads them: `seqs` on the mixture), fused within rounding (its combine adds the
    choices in another order than the decode row's down projection)."""
    c = _config(config, "numerics=int8", f"lane_fuse={lane_fuse}")
    assert_each_as_alone(c, BATCH, 5, exact=config == "tiny" or lane_fuse == "false")


@settings(max_examples=10, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 3), st.lists(st.integers(0, 511), min_size=1, max_size=4)),
        min_size=1,
        max_size=4,
    ),
    st.sampled_from(["tiny", "tiny-moe", str(next(c for c in SHIPPED if "qwen3-next" in c))]),
    st.sampled_from(NUMERICS),
)
def test_drawn_batches_decode_as_each_sequence_alone(drawn, config, numerics):
    seqs = tuple(Prompt(start, tuple(prompt)) for start, prompt in drawn)
    c = _config(config, f"numerics={numerics}")
    assert_each_as_alone(c, seqs, max(s.start for s in seqs) + 3, exact=False)


def test_the_batched_step_is_the_interface_the_session_binds():
    """Inputs and outputs a row a sequence, the state slot-major ([batch, ...], a slot the one-sequence step's
    layout), the launches that touch a sequence's state or position with seqs(batch), the weights the prefill
    chunk's (q, k and v projected each on its own); `batch` given to decoder_step overrides the config's."""
    c = _config(next(c for c in SHIPPED if "qwen3-next" in c), "numerics=int8")
    one, many = (step_of(steps(decoder_step(c, batch=b))[0])[0] for b in (1, 3))
    assert many.tensors["ids"].shape == many.tensors["pos"].shape == many.tensors["token"].shape == (3,)
    assert many.tensors["logits"].shape == (3, c.vocab)
    states = [t for t in one.tensors.values() if t.role.value == "state"]
    assert {t.name for t in states} == {"l0.conv_state", "l0.delta_state", "l1.k_cache", "l1.v_cache"}
    for t in states:
        assert many.tensors[t.name].shape == (3, *t.shape)
    seqs = {launch.kind: launch.params.get("seqs") for launch in many.launches if "seqs" in launch.params}
    assert seqs == {"conv": 3, "delta": 3, "norm_rope_attention": 3, "moe_shared_add": 3}
    assert "l1.wq" in many.tensors and "l1.wqkv" not in many.tensors
    assert step_of(steps(decoder_step(load("tiny", ["batch=3"]), batch=1))[0])[0].tensors["ids"].shape == (1,)


@pytest.mark.parametrize(
    "settings, message",
    [
        (["batch=0"], "batch must be between 1 and 4096, not 0"),
        (["batch=4097"], "batch must be between 1 and 4096, not 4097"),
        (["batch=8", "rows=4"], "a batched prefill chunk is not built"),
        (["batch=2", "rope_type=dynamic", "rope_factor=2", "rope_original=16"], "dynamic rope"),
    ],
)
def test_what_a_batch_cannot_be_is_refused_naming_batch(settings, message):
    with pytest.raises(ConfigError, match=message) as refused:
        load("tiny", settings)
    assert refused.value.key == "batch"


def test_rows_of_the_batch_are_allowed():
    assert load("tiny", ["batch=8", "rows=8"]).batch == 8


@pytest.mark.parametrize("batch", [8, 64])
@pytest.mark.parametrize("config", SHIPPED, ids=[_short(c) for c in SHIPPED])
def test_batched_steps_place_at_their_lower_bound(config, batch):
    module = decoder_step(_config(config), batch=batch)
    api.place(module)
    api.verify(module)
    ((_, plan),) = api.placed_steps(module)
    assert plan is not None and plan.bytes == plan.lower_bound
