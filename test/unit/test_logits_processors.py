"""`decoding`'s procedure held to transformers' logits processors on the same drawn logits: the repetition penalty
to `RepetitionPenaltyLogitsProcessor` (the same f32 values), temperature, top-k, top-p and min-p each to its
warper and all five in `generate`'s order (`GenerationMixin._get_logits_processor`): the same kept set, the same
probabilities within f32 rounding. Where a cut falls within rounding of a token (its share of the mass at top-p,
its weight at min-p), the two may keep it or not: such draws are left out. Distinct logits where ties would let
transformers' sort keep part of a tie (top-p; the procedure keeps ties together)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from transformers.generation.logits_process import (
    LogitsProcessorList,
    MinPLogitsWarper,
    RepetitionPenaltyLogitsProcessor,
    TemperatureLogitsWarper,
    TopKLogitsWarper,
    TopPLogitsWarper,
)

from lanearena.decoding import Sampling, next_token, penalized, uniform, weights

RTOL = 1e-5
"""Probabilities within f32 rounding: transformers divides by the temperature and takes the softmax in f32."""

MARGIN = 1e-5
"""Draws whose top-p or min-p cut falls this close to a token's mass or weight are left out."""

EXAMPLES = 60


@st.composite
def _logits(draw, distinct: bool) -> np.ndarray:
    n = draw(st.integers(2, 24))
    value = st.floats(-10, 10, width=32, allow_subnormal=False)
    values = draw(st.lists(value, min_size=n, max_size=n, unique=distinct))
    if not distinct:  # a few repeats, for ties at the top-k cut
        values = [values[i % max(1, n // 2)] if i % 3 == 0 else v for i, v in enumerate(values)]
    return np.asarray(values, np.float32)


def _ours(logits: np.ndarray, seen: list[int], s: Sampling) -> np.ndarray:
    w = weights(penalized(logits, seen, s.repetition_penalty), s)
    return w / w.sum()


def _theirs(logits: np.ndarray, seen: list[int], s: Sampling) -> np.ndarray:
    """transformers' processors, each only where `generate` adds it, in its order; the softmax of what they leave."""
    chain = LogitsProcessorList()
    if s.repetition_penalty != 1:
        chain.append(RepetitionPenaltyLogitsProcessor(s.repetition_penalty))
    if s.temperature != 1:
        chain.append(TemperatureLogitsWarper(s.temperature))
    if s.top_k:
        chain.append(TopKLogitsWarper(s.top_k))
    if s.top_p < 1:
        chain.append(TopPLogitsWarper(s.top_p))
    if s.min_p:
        chain.append(MinPLogitsWarper(s.min_p))
    ids = torch.tensor([seen or [0]], dtype=torch.long)  # only the penalty reads them
    scores = chain(ids, torch.from_numpy(logits.copy())[None])
    return torch.softmax(scores, dim=-1)[0].double().numpy()


def _clear_of_cuts(logits: np.ndarray, seen: list[int], s: Sampling) -> bool:
    """Whether no token's share of the mass (top-p) or weight (min-p) is within MARGIN of the cut (in float64)."""
    x = penalized(logits, seen, s.repetition_penalty).astype(np.float64)
    kept = np.ones(len(x), bool)
    if s.top_k:
        kept = x >= np.sort(x)[::-1][min(s.top_k, len(x)) - 1]
    w = np.where(kept, np.exp((x - x.max()) / s.temperature), 0)
    if s.top_p < 1:
        share = np.cumsum(np.sort(w)[::-1]) / w.sum()
        if np.abs(share - s.top_p).min() < MARGIN:
            return False
    return not s.min_p or np.abs(w[w > 0] - s.min_p).min() >= MARGIN


def _same(logits: np.ndarray, seen: list[int], s: Sampling) -> None:
    ours, theirs = _ours(logits, seen, s), _theirs(logits, seen, s)
    assert np.array_equal(ours > 0, theirs > 0), (ours, theirs)
    np.testing.assert_allclose(ours, theirs, rtol=RTOL, atol=0)


_SEEN = st.lists(st.integers(0, 23), min_size=1, max_size=8)  # at least the prompt's last


@settings(max_examples=EXAMPLES, deadline=None)
@given(_logits(distinct=False), _SEEN, st.floats(0.5, 2, width=32))
def test_the_repetition_penalty_is_transformers(logits, seen, penalty):
    """The same f32 logits, every one; and greedy, the same arg-max."""
    theirs = RepetitionPenaltyLogitsProcessor(penalty)(torch.tensor([seen]), torch.from_numpy(logits)[None])
    ours = penalized(logits, seen, penalty)
    assert np.array_equal(ours, theirs[0].numpy())
    assert next_token(logits, seen, Sampling(repetition_penalty=penalty), 0.5) == int(theirs[0].argmax())


@settings(max_examples=EXAMPLES, deadline=None)
@given(_logits(distinct=False), st.floats(0.5, 2, width=32))
def test_the_temperature_is_transformers(logits, temperature):
    _same(logits, [], Sampling(temperature=temperature))


@settings(max_examples=EXAMPLES, deadline=None)
@given(_logits(distinct=False), st.integers(1, 30))
def test_top_k_is_transformers_ties_kept_together(logits, top_k):
    _same(logits, [], Sampling(temperature=1, top_k=top_k))


def _near(values: np.ndarray, rank: int, nudge: float) -> float:
    """A cut near the `rank`-th of `values` (counted from the largest), off it by `nudge` of it: where a wrong cut
    keeps a token too many or too few."""
    return float(np.sort(values)[::-1][rank % len(values)] * (1 + nudge))


_NUDGE = st.floats(-0.02, 0.02)


@settings(max_examples=EXAMPLES, deadline=None)
@given(_logits(distinct=True), st.integers(0, 23), _NUDGE)
def test_top_p_is_transformers(logits, rank, nudge):
    w = np.exp(logits.astype(np.float64) - logits.max())
    top_p = min(1.0, _near(np.cumsum(np.sort(w)[::-1]) / w.sum(), rank, nudge))
    s = Sampling(temperature=1, top_p=top_p)
    assume(_clear_of_cuts(logits, [], s))
    _same(logits, [], s)


@settings(max_examples=EXAMPLES, deadline=None)
@given(_logits(distinct=False), st.integers(0, 23), _NUDGE)
def test_min_p_is_transformers(logits, rank, nudge):
    min_p = min(1.0, _near(np.exp(logits.astype(np.float64) - logits.max()), rank, nudge))
    assume(min_p > 0)
    s = Sampling(temperature=1, min_p=min_p)
    assume(_clear_of_cuts(logits, [], s))
    _same(logits, [], s)


@settings(max_examples=EXAMPLES, deadline=None)
@given(
    _logits(distinct=True),
    _SEEN,
    st.floats(0.5, 2, width=32),
    st.floats(0.5, 2, width=32),
    st.integers(0, 30),
    st.floats(0.05, 1),
    st.sampled_from([0.0, 0.01, 0.1, 0.4]),
)
def test_all_five_in_generates_order_are_transformers(logits, seen, penalty, temperature, top_k, top_p, min_p):
    s = Sampling(temperature, top_k, top_p, min_p=min_p, repetition_penalty=penalty)
    assume(_clear_of_cuts(logits, seen, s))
    _same(logits, seen, s)


def test_draws_follow_the_processed_distribution():
    """Over many uniform numbers each token is drawn about as often as transformers' processed distribution says."""
    logits = np.array([1.0, 0.0, 2.0, -1.0, 1.5, 0.2], np.float32)
    s = Sampling(0.8, 5, 0.95, min_p=0.1, repetition_penalty=1.3)
    seen = [2, 3]
    counts = np.bincount([next_token(logits, seen, s, uniform(5, i)) for i in range(4000)], minlength=len(logits))
    assert np.abs(counts / 4000 - _theirs(logits, seen, s)).max() < 0.03


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"min_p": -0.1}, "--min-p must be in [0, 1]"),
        ({"min_p": 1.5}, "--min-p must be in [0, 1]"),
        ({"repetition_penalty": 0}, "--repetition-penalty must be a finite number above 0"),
        ({"repetition_penalty": float("inf")}, "--repetition-penalty must be a finite number above 0"),
    ],
)
def test_out_of_range_is_refused(kwargs, message):
    with pytest.raises(Exception, match=message.replace("[", r"\[").replace("]", r"\]")):
        Sampling(**kwargs)
