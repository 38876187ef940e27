"""Several sequences served by one session on the numpy runtime (`generate_many`): each prompt prefilled in a
slot of its own, the sequences decoded together by the step of a row a slot; every sequence's tokens (and logits)
those of its prompt run alone, greedy and sampled, whichever prompts share the step; a sequence that stops frees its
slot while the others go on; bad prompts refused before anything runs."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lanearena import decoding
from lanearena.decoding import Sampling
from lanearena.errors import UserError
from lanearena.frontend import load
from lanearena.lowering.serving import session as session_module
from lanearena.lowering.serving.sequences import GREEDY, generate_many
from lanearena.lowering.serving.session import Session
from lanearena.lowering.serving.weights import RandomWeights

from ..support.devices import CountingDevice

BATCH = 3
TOKENS = 5


def _config(name: str, numerics: str, **changes):
    return dataclasses.replace(load(name), numerics=numerics, max_len=32, **changes)


def _alone(c, prompts, n: int, sampling: Sampling = GREEDY, stop=()) -> list[tuple[list[int], np.ndarray]]:
    """Each prompt's tokens and logits run alone, by a session of one sequence (one row a decode step)."""
    session = Session(c, RandomWeights(3), chunk=4)
    out = []
    for p in prompts:
        session.reset()
        tokens, logits = decoding.generate(session.next, list(p), n, sampling, stop, keep_logits=True)
        assert logits is not None
        out.append((tokens, logits))
    return out


_SESSIONS: dict = {}


def _batched(c) -> Session:
    """A session of BATCH sequences for `c`, built once (a session is emptied by each generation)."""
    if c not in _SESSIONS:
        _SESSIONS[c] = Session(c, RandomWeights(3), chunk=4, batch=BATCH)
    return _SESSIONS[c]


prompt_sets = st.lists(st.lists(st.integers(0, 255), min_size=1, max_size=9), min_size=1, max_size=BATCH)


@pytest.mark.parametrize(
    ("name", "numerics"), [("tiny", "int8"), ("tiny", "f32"), ("tiny", "bf16"), ("tiny-moe", "int8")]
)
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(prompts=prompt_sets)
def test_each_sequence_is_its_prompt_run_alone(name, numerics, prompts):
    c = _config(name, numerics)
    got = generate_many(_batched(c), prompts, TOKENS, keep_logits=True)
    for g, (tokens, logits) in zip(got, _alone(c, prompts, TOKENS), strict=True):
        assert g.tokens == tokens and g.stopped == "length"
        exact = numerics == "int8" and name == "tiny"  # a mixture's rows sum in another order: f32 rounding
        np.testing.assert_allclose(np.array(g.logits), logits, rtol=0 if exact else 1e-5, atol=0 if exact else 1e-5)


def test_sampled_sequences_are_their_prompts_sampled_alone():
    """The device draws each row's token with the uniform number of its index under the seed, as alone."""
    c = _config("tiny", "int8", temperature=0.8, top_k=20, top_p=0.9)
    prompts = [[1, 2, 3], [42], [7, 7, 7, 7, 7, 7]]
    sampling = Sampling(0.8, 20, 0.9, seed=11)
    got = generate_many(_batched(c), prompts, 8, sampling)
    assert [g.tokens for g in got] == [t for t, _ in _alone(c, prompts, 8, sampling)]


def test_a_sequence_that_stops_frees_its_slot_and_the_others_go_on():
    c = _config("tiny", "int8")
    prompts = [[1, 2, 3], [42], [9, 8]]
    alone = [t for t, _ in _alone(c, prompts, 8)]
    stop = {alone[1][2]}  # the second sequence ends at its third token
    got = generate_many(_batched(c), prompts, 8, stop=stop)
    for g, tokens in zip(got, alone, strict=True):
        end = next((i for i, t in enumerate(tokens) if t in stop), None)
        want = tokens if end is None else tokens[: end + 1]
        assert g.tokens == want and g.stopped == ("eos" if end is not None else "length")
    assert len(got[1].tokens) == 3


def test_a_session_serves_one_set_of_prompts_after_another():
    c = _config("tiny", "int8")
    session = _batched(c)
    first = [g.tokens for g in generate_many(session, [[5, 6], [7]], TOKENS)]
    generate_many(session, [[1] * 9, [2] * 3, [3]], TOKENS)
    assert [g.tokens for g in generate_many(session, [[5, 6], [7]], TOKENS)] == first


def test_a_decode_round_reads_back_a_token_a_slot(monkeypatch):
    monkeypatch.setattr(session_module, "new_device", lambda backend: CountingDevice())
    session = Session(_config("tiny", "int8"), RandomWeights(3), chunk=4, batch=BATCH)
    dev = session.device
    assert isinstance(dev, CountingDevice)
    reads: list[list[int]] = []

    def counted(k: int, token: int) -> None:
        reads.append(list(dev.reads))
        dev.reads.clear()

    generate_many(session, [[1, 2], [3]], 3, on_token=counted)
    # the two prefills' tokens (4 bytes each), then a round of both sequences: BATCH tokens in one read
    assert reads[0] == [4] and reads[1] == [4] and reads[2] == [4 * BATCH] and reads[3] == []


@pytest.mark.parametrize(
    ("prompts", "n", "message"),
    [
        ([], 2, "no prompt"),
        ([[1], []], 2, "prompt 2 is empty"),
        ([[1]] * (BATCH + 1), 2, f"more than the step's {BATCH} sequences"),
        ([[1], [1] * 30], 3, "prompt 2: 30 positions and 3 tokens do not fit the caches' max_len 32"),
        ([[1], [256 * 4]], 1, "prompt 2: token ids must be in"),
    ],
)
def test_bad_prompts_are_refused_before_anything_runs(prompts, n, message, monkeypatch):
    session = _batched(_config("tiny", "int8"))
    monkeypatch.setattr(session, "next", lambda *a, **k: pytest.fail("a step ran"))
    with pytest.raises(UserError, match=message):
        generate_many(session, prompts, n)


def test_a_batch_outside_its_range_is_refused():
    with pytest.raises(UserError, match="1 to 4096 sequences"):
        Session(_config("tiny", "int8"), RandomWeights(3), batch=0)


def test_sequences_chosen_on_the_host_are_chosen_as_alone():
    """A repetition penalty and a min-p choose the token here, from the row of logits read back, after the
    sequence's own tokens (not the others')."""
    c = _config("tiny", "int8")
    prompts = [[1, 2, 3], [42], [7, 7, 7, 7, 7, 7]]
    sampling = Sampling(0.9, 0, 1.0, seed=5, min_p=0.05, repetition_penalty=1.5)
    assert sampling.on_host
    got = generate_many(_batched(c), prompts, 8, sampling)
    assert [g.tokens for g in got] == [t for t, _ in _alone(c, prompts, 8, sampling)]


def test_each_sequence_stops_by_its_own_matcher():
    """`until` makes a matcher a sequence (a stop string's): the one of the prompt [42] stops at its second token."""
    c = _config("tiny", "int8")
    prompts = [[1, 2, 3], [42], [9, 8]]
    got = generate_many(
        _batched(c), prompts, 6, until=lambda prompt: lambda tokens: prompt == [42] and len(tokens) == 2
    )
    assert [len(g.tokens) for g in got] == [6, 2, 6] and [g.stopped for g in got] == ["length", "stop", "length"]
