"""A session's runs on the numpy runtime: each step bound once and replayed, greedy decoding reading back only the
arg-max token the step computes (4 bytes a decode token, counted at the device), the logits only where asked, and
the same tokens as the host's arg-max of the logits, with or without the arena poisoned before every run."""

from __future__ import annotations

import dataclasses
import functools

import numpy as np
import pytest

from lanearena.errors import Overflow
from lanearena.frontend import load
from lanearena.lowering.serving import session as session_module
from lanearena.lowering.serving.session import Session
from lanearena.lowering.serving.weights import RandomWeights

from ..support.devices import CountingDevice

PROMPT = [5, 1, 4, 1, 5, 9, 2, 6, 5, 3]
"""A prompt of one prefill chunk of 8 rows and two decode rows."""


@pytest.fixture
def counted(monkeypatch):
    monkeypatch.setattr(session_module, "new_device", lambda backend: CountingDevice())


def _session(config: str = "tiny", **kwargs) -> Session:
    return Session(load(config), RandomWeights(3), chunk=8, **kwargs)


@pytest.mark.parametrize("config", ["tiny", "tiny-moe"])
def test_greedy_decoding_reads_back_the_token_alone(counted, config):
    session = _session(config)
    session.ready(len(PROMPT))
    dev = session.device
    assert isinstance(dev, CountingDevice)
    dev.reads.clear()
    token, logits = session.next(PROMPT)
    assert logits is None and dev.reads == [4]  # the last row's token, not the prompt's logits
    for _ in range(5):
        dev.reads.clear()
        token, logits = session.next([token])
        assert logits is None and dev.reads == [4]
    dev.reads.clear()
    token, logits = session.next([token], logits=True)
    vocab = session.config.vocab
    assert logits is not None and logits.shape == (vocab,) and dev.reads == [4, 4 * vocab]


@pytest.mark.parametrize("debug_poison", [False, True])
def test_the_steps_token_is_the_hosts_arg_max_of_its_logits(debug_poison):
    """Tokens read back alone, against the arg-max (the first of equals) of the logits each was chosen from, read
    back whole by another session of the same weights; the same with the arena poisoned before every run."""
    tokens, logits = _session(debug_poison=debug_poison).generate(PROMPT, 6)
    assert tokens == [int(np.argmax(row)) for row in logits]
    again = _session(debug_poison=not debug_poison)
    token, _ = again.next(PROMPT)
    alone = [token]
    for _ in range(5):
        token, _ = again.next([token])
        alone.append(token)
    assert alone == tokens
    assert np.isfinite(logits).all()


def test_a_poisoned_run_fills_the_arena_with_nan_first():
    """Under debug_poison the arena holds NaN bytes before each run (read between the poisoning and the run); by
    default a run leaves what the last left."""
    for poisoned in (False, True):
        session = _session(debug_poison=poisoned)
        session.next([1])
        step = session.decode
        arena = session.device.download(step.buffers[0], np.uint8, step.lowered.arena_bytes)
        assert not (arena == 0xFF).all()  # what the run left
        seen = []
        step.replay = functools.partial(_seen, seen, session.device, step.buffers[0], step.lowered.arena_bytes)
        try:
            session.next([2])
        except Overflow:  # the token of a run that did not run: its poisoned bytes read as -1, refused
            assert poisoned
        assert (seen[0] == 0xFF).all() == poisoned


def _seen(seen: list, dev, addr: int, nbytes: int) -> None:
    """A replay that only notes the arena's bytes."""
    seen.append(dev.download(addr, np.uint8, nbytes))


@pytest.mark.parametrize(("config", "numerics"), [("tiny", "int8"), ("tiny", "f32"), ("tiny-moe", "f32")])
def test_random_weights_are_the_same_in_the_prefill_and_the_decode_step(config, numerics):
    """The prefill step projects q, k and v each by its own weight, the decode step by their join: random weights
    draw the join as its parts, so the prompt's logits through the prefill step are those of its rows run one at a
    time through the decode step (the same weights read): to the bit in int8, within the products' f32 rounding
    else. (An int8 mixture's chunk path quantizes its hidden rows where the decode row's does not: not compared.)"""
    c = dataclasses.replace(load(config), numerics=numerics)
    chunked = Session(c, RandomWeights(3), chunk=8).forward(PROMPT)
    alone = Session(c, RandomWeights(3), chunk=1).forward(PROMPT)
    np.testing.assert_allclose(
        chunked, alone, rtol=0 if numerics == "int8" else 1e-5, atol=0 if numerics == "int8" else 1e-5
    )


def test_random_weights_do_not_depend_on_the_order_they_are_drawn_in():
    a, b = RandomWeights(7), RandomWeights(7)
    first = a.values("l0.wo", (4, 8))
    b.values("l1.wo", (4, 8))
    assert np.array_equal(b.values("l0.wo", (4, 8)), first)
    assert not np.array_equal(a.values("l1.wo", (4, 8)), first)
    joined = a.joined(8, 4).values("l0.wqkv", (16, 8))
    parts = [a.values(f"l0.w{p}", (n, 8)) for p, n in (("q", 8), ("k", 4), ("v", 4))]
    assert np.array_equal(joined, np.concatenate(parts))
