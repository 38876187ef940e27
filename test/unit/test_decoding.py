"""Choosing tokens from logits (`decoding`): the documented procedure held to a plain-Python one written from its
statement in the module's doc; the uniform numbers keyed by the seed and the token's index; stopping at an end
token; text streamed a token at a time."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lanearena.decoding import Sampling, TextStream, choose, generate, uniform
from lanearena.errors import UserError


def _stated(logits: list[float], temperature: float, top_k: int, top_p: float, u: float) -> int:
    """The procedure as the module states it, in plain Python."""
    n = len(logits)
    if temperature == 0:
        return max(range(n), key=lambda i: (logits[i], -i))
    kept = list(range(n))
    if 0 < top_k < n:
        kth = sorted(logits, reverse=True)[top_k - 1]
        kept = [i for i in kept if logits[i] >= kth]
    top = max(logits)
    weight = {i: math.exp((logits[i] - top) / temperature) for i in kept}
    if top_p < 1:
        whole = sum(weight.values())
        for v in sorted({logits[i] for i in kept}, reverse=True):
            if sum(weight[i] for i in kept if logits[i] >= v) >= top_p * whole:
                kept = [i for i in kept if logits[i] >= v]
                break
    total, running = sum(weight[i] for i in kept), 0.0
    for i in kept:
        running += weight[i]
        if running > u * total and weight[i] > 0:
            return i
    return [i for i in kept if weight[i] > 0][-1]


@settings(max_examples=300)
@given(
    st.lists(st.sampled_from([-3.0, -1.0, 0.0, 0.5, 1.0, 2.0, 2.5]), min_size=1, max_size=12),
    st.sampled_from([0.0, 0.3, 1.0, 2.0]),
    st.integers(0, 5),
    st.sampled_from([0.2, 0.5, 0.9, 1.0]),
    st.floats(0, 1, exclude_max=True),
)
def test_the_choice_is_the_stated_procedure(logits, temperature, top_k, top_p, u):
    s = Sampling(temperature, top_k, top_p)
    assert choose(np.asarray(logits, np.float32), s, u) == _stated(logits, temperature, top_k, top_p, u)


def test_the_draws_follow_the_probabilities():
    """Over many uniform numbers each token is drawn about as often as softmax(logits / T) says."""
    logits = np.array([1.0, 0.0, 2.0, -1.0], np.float32)
    s = Sampling(temperature=0.7)
    counts = np.bincount([choose(logits, s, uniform(3, i)) for i in range(4000)], minlength=4)
    p = np.exp(logits / 0.7) / np.exp(logits / 0.7).sum()
    assert np.abs(counts / 4000 - p).max() < 0.03


def test_a_tokens_uniform_number_depends_on_its_seed_and_index_alone():
    double = float(np.random.Generator(np.random.Philox(key=7, counter=5)).random())
    assert uniform(7, 5) == uniform(7, 5) == math.floor(double * 2**24) / 2**24
    assert all(float(np.float32(uniform(3, i))) == uniform(3, i) < 1 for i in range(200))  # a float32 exactly
    assert len({uniform(7, i) for i in range(50)}) == 50 and uniform(8, 5) != uniform(7, 5)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"temperature": -1}, "--temperature must be a finite number from 0"),
        ({"temperature": float("nan")}, "--temperature must be a finite number from 0"),
        ({"top_k": -1}, "--top-k must be at least 0"),
        ({"top_p": 0}, "--top-p must be in (0, 1]"),
        ({"top_p": 1.5}, "--top-p must be in (0, 1]"),
        ({"seed": -2}, "--seed must be at least 0"),
    ],
)
def test_sampling_out_of_range_is_refused(kwargs, message):
    with pytest.raises(UserError, match=message.replace("(", r"\(").replace("]", r"\]")):
        Sampling(**kwargs)


class _Counting:
    """A model whose next token is the last one plus one (mod 10) (its logits 100 there, 0 elsewhere), and that
    counts the positions it ran and the rows of logits asked of it, and keeps the uniform numbers it was given."""

    def __init__(self):
        self.ran = 0
        self.rows = 0
        self.draws: list[float] = []

    def __call__(self, ids, logits: bool, draw: float) -> tuple[int, np.ndarray | None]:
        self.ran += len(ids)
        self.rows += logits
        self.draws.append(draw)
        token = (ids[-1] + 1) % 10
        return token, 100 * np.eye(10, dtype=np.float32)[token] if logits else None


def test_generation_stops_after_the_first_end_token_and_runs_it_not():
    model = _Counting()
    tokens, logits = generate(model, [3], 10, stop={6, 8}, keep_logits=True)
    assert tokens == [4, 5, 6] and logits is not None and logits.shape == (3, 10)
    assert model.ran == 1 + 2  # the prompt, then 4 and 5: the end token is never run


def test_generation_reads_no_logits_unless_kept_and_hands_each_token_its_uniform_number():
    greedy = _Counting()
    assert generate(greedy, [3], 4) == ([4, 5, 6, 7], None) and greedy.rows == 0 and greedy.draws == [0.0] * 4
    sampled = _Counting()
    tokens, logits = generate(sampled, [3], 4, Sampling(temperature=0.5, seed=1))
    assert tokens == [4, 5, 6, 7] and logits is None and sampled.rows == 0
    assert sampled.draws == [uniform(1, i) for i in range(4)]  # the device draws: the token's index keys its number


def test_without_end_tokens_it_generates_the_count():
    tokens, _ = generate(_Counting(), [3], 10)
    assert tokens == [4, 5, 6, 7, 8, 9, 0, 1, 2, 3]


def test_text_streams_a_piece_a_token_holding_back_an_incomplete_character():
    pieces = {0: "Hel", 1: "lo", 2: b"\xc3".decode("utf-8", "replace"), 3: " w"}
    whole = {(0, 1, 2): "Hello\ufffd", (0, 1, 2, 3): "Hello\u00e9 w"}

    def decode(ids):
        return whole.get(tuple(ids), "".join(pieces[i] for i in ids))

    written: list[str] = []
    stream = TextStream(decode, written.append)
    for token in range(4):
        stream(token)
    assert written == ["Hel", "lo", "\u00e9 w"] and "".join(written) == decode([0, 1, 2, 3])
