"""Sequences decoded together through a batched decode step (`decoder_step(c, batch=B)`) and each alone through the
one-sequence decode step, on the numpy runtime, one token a step, from zeroed state and the same weights (by name:
the one-row step's fused q/k/v projection the concatenation of the batched step's three)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from lanearena import api
from lanearena.frontend import decoder_step
from lanearena.frontend.decoder_config import DecoderConfig
from lanearena.lowering.codegen.placed import Placed, placed
from lanearena.lowering.runtime.device import NumpyDevice
from lanearena.lowering.runtime.execute import random_feeds, run_step
from lanearena.model import Role


@dataclass(frozen=True)
class Prompt:
    """A sequence of a batch: the step it joins at (its slot idle before), and its prompt (then its greedy tokens)."""

    start: int
    prompt: tuple[int, ...]


def _placed(c: DecoderConfig, batch: int) -> Placed:
    module = decoder_step(c, batch=batch)
    api.place(module)
    return placed(module)


def weights_of(step: Placed, seed: int) -> dict[str, np.ndarray]:
    """Random weights of the batched `step`, by name, with the one-row step's fused q/k/v weights and biases made
    from them."""
    w = {t.name: v for t, v in _named(step, random_feeds(step.step, seed)) if t.role is Role.WEIGHT}
    for layer in {n.split(".", 1)[0] for n in w if n.endswith(".wq")}:
        w[f"{layer}.wqkv"] = np.concatenate([w[f"{layer}.w{n}"] for n in "qkv"])
        if f"{layer}.bq" in w:
            w[f"{layer}.bqkv"] = np.concatenate([w[f"{layer}.b{n}"] for n in "qkv"])
    return w


def _named(step: Placed, feeds: dict[str, np.ndarray]):
    return [(step.step.tensors[n], v) for n, v in feeds.items()]


def _zero_state(step: Placed) -> dict[str, np.ndarray]:
    return {t.name: np.zeros(t.shape, np.float32) for t in step.step.tensors.values() if t.role is Role.STATE}


def _run(step: Placed, weights: dict, state: dict, ids, pos) -> dict[str, np.ndarray]:
    feeds = {n: weights[n] for n, t in step.step.tensors.items() if t.role is Role.WEIGHT and t.view_of is None}
    feeds |= state | {"ids": np.asarray(ids, np.int32), "pos": np.asarray(pos, np.int32)}
    return run_step(NumpyDevice(), step.lowered, feeds)


Run = tuple[list[int], list[np.ndarray], dict[str, np.ndarray]]
"""A sequence's greedy tokens and logits, a step each, and the state it leaves."""


def alone(c: DecoderConfig, weights: dict, prompt: Sequence[int], steps: int) -> Run:
    """A sequence's `steps` steps through the one-sequence step, its prompt fed a token a step, then its tokens."""
    step = _placed(c, 1)
    state, tokens, logits = _zero_state(step), [], []
    for j in range(steps):
        token = prompt[j] if j < len(prompt) else tokens[-1]
        got = _run(step, weights, state, [token], [j])
        state = {n: got[n] for n in state}
        tokens.append(int(got["token"][0]))
        logits.append(got["logits"].reshape(-1))
    return tokens, logits, state


def batched(c: DecoderConfig, weights: dict, seqs: Sequence[Prompt], steps: int) -> list[Run]:
    """Each sequence's steps through the batched step of a row a sequence (row s slot s), `steps` steps in all: its
    slot idle (token 0 at position 0, its results dropped) before it joins, zeroed as it joins (as a session zeroes
    a slot it reuses), then one step a step to the last; and the state each slot is left with."""
    b = len(seqs)
    step = _placed(c, b)
    state = {n: v.reshape(b, *v.shape[b > 1 :]) for n, v in _zero_state(step).items()}  # slot-major (b = 1 too)
    tokens: list[list[int]] = [[] for _ in seqs]
    logits: list[list[np.ndarray]] = [[] for _ in seqs]
    for t in range(steps):
        ids, pos = [], []
        for r, s in enumerate(seqs):
            j = t - s.start
            if j == 0:
                for value in state.values():
                    value[r] = 0
            ids.append((s.prompt[j] if j < len(s.prompt) else tokens[r][-1]) if j >= 0 else 0)
            pos.append(max(j, 0))
        got = _run(step, weights, {n: v.reshape(step.step.tensors[n].shape) for n, v in state.items()}, ids, pos)
        state = {n: got[n].reshape(state[n].shape).copy() for n in state}
        got["logits"] = got["logits"].reshape(b, -1)
        for r, s in enumerate(seqs):
            if t >= s.start:
                tokens[r].append(int(got["token"][r]))
                logits[r].append(got["logits"][r])
    return [(tokens[r], logits[r], {n: v[r] for n, v in state.items()}) for r in range(len(seqs))]
