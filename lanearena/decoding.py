"""Generation over a session's logits: the next token chosen from each position's logits (greedy, or sampled by
temperature, top-k and top-p from a seeded uniform number), stopping at an end-of-sequence token, each token handed
to a callback as it is chosen (to stream its text).

The choice is one procedure that a device kernel can mirror, given the logits and one uniform number `u` in [0, 1):

1. temperature 0: the arg-max (the first of equal largest values);
2. else the tokens ordered by logit, largest first (ties: the lower id first), the first `top_k` kept (0: all);
3. weights `exp((logit - largest) / temperature)` in float64 over those kept;
4. top-p under 1: the shortest prefix whose weights reach `top_p` of their sum kept (at least one token);
5. the token is the first of the prefix whose running sum of weights exceeds `u` times their sum.

The uniform number of the `i`-th generated token (from 0) is the first double of numpy's Philox-4x64 generator keyed
by the seed at counter `i`: the same seed gives the same tokens wherever the logits are the same, and one token's
draw does not depend on how many were drawn before (a counter-based generator, as a kernel's would be)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from lanearena.errors import UserError


@dataclass(frozen=True)
class Sampling:
    """How a token is chosen from logits: `temperature` 0 for the arg-max, else sampled, from the `top_k` most
    likely tokens (0: all), of those the fewest whose probability reaches `top_p`, by the uniform numbers of
    `seed`."""

    temperature: float = 0.0
    top_k: int = 0
    top_p: float = 1.0
    seed: int = 0

    def __post_init__(self) -> None:
        if not self.temperature >= 0 or self.temperature == float("inf"):
            raise UserError(f"--temperature must be a finite number from 0, not {self.temperature}")
        if self.top_k < 0:
            raise UserError(f"--top-k must be at least 0 (0: every token), not {self.top_k}")
        if not 0 < self.top_p <= 1:
            raise UserError(f"--top-p must be in (0, 1], not {self.top_p}")
        if self.seed < 0:
            raise UserError(f"--seed must be at least 0, not {self.seed}")


def uniform(seed: int, i: int) -> float:
    """The uniform number in [0, 1) of the `i`-th generated token under `seed`."""
    return float(np.random.Generator(np.random.Philox(key=seed, counter=i)).random())


def choose(logits: np.ndarray, s: Sampling, u: float) -> int:
    """The token `s` chooses from one position's `logits` with uniform number `u` (the module's procedure)."""
    if s.temperature == 0:
        return int(np.argmax(logits))
    order = np.argsort(-logits.astype(np.float64), kind="stable")
    if s.top_k:
        order = order[: s.top_k]
    kept = logits[order].astype(np.float64)
    weights = np.exp((kept - kept[0]) / s.temperature)
    sums = np.cumsum(weights)
    if s.top_p < 1:
        cut = int(np.searchsorted(sums, s.top_p * sums[-1])) + 1
        sums = sums[: max(1, min(cut, len(sums)))]
    at = int(np.searchsorted(sums, u * sums[-1], side="right"))
    return int(order[min(at, len(sums) - 1)])


Next = Callable[[list[int], bool], tuple[int, "np.ndarray | None"]]
"""A model run on token ids at its next positions (a `Session.next`): the arg-max token of the last, and (where
the flag asks) its row of logits."""


def generate(
    run: Next,
    prompt: list[int],
    n: int,
    sampling: Sampling = Sampling(),
    stop: Iterable[int] = (),
    on_token: Callable[[int], None] = lambda token: None,
    keep_logits: bool = False,
) -> tuple[list[int], np.ndarray | None]:
    """At most `n` tokens after `prompt`, up to and including the first of `stop`, each the arg-max token `run`
    gives for the ids run at the next positions (greedy: no logits read), or sampled from the logits it gives;
    and, where `keep_logits`, the logits each was chosen from (one row a token, f32), else None. `on_token` is
    called with each token as soon as it is chosen. With `n` 0 nothing is run."""
    stops = frozenset(stop)
    logits_read = keep_logits or sampling.temperature > 0
    tokens: list[int] = []
    seen: list[np.ndarray] = []
    ids = prompt
    for i in range(n):
        token, logits = run(ids, logits_read)
        if sampling.temperature:
            assert logits is not None
            token = choose(logits, sampling, uniform(sampling.seed, i))
        tokens.append(token)
        if keep_logits:
            assert logits is not None
            seen.append(logits)
        on_token(token)
        if token in stops:
            break
        ids = [token]
    if not keep_logits:
        return tokens, None
    return tokens, np.array(seen, np.float32) if seen else np.zeros((0, 0), np.float32)


class TextStream:
    """Text written as tokens come: after each token the text the tokens decode to so far, less what was written
    already, is passed to `write` (held back while it ends in an incomplete character, which decodes as U+FFFD)."""

    def __init__(self, decode: Callable[[list[int]], str], write: Callable[[str], None]):
        self.decode, self.write = decode, write
        self.tokens: list[int] = []
        self.shown = ""

    def __call__(self, token: int) -> None:
        self.tokens.append(token)
        text = self.decode(self.tokens)
        if text.endswith("\ufffd"):
            return
        same = 0
        while same < min(len(text), len(self.shown)) and text[same] == self.shown[same]:
            same += 1
        if same < len(self.shown):  # the decoder took back part of what was written: write on from here
            self.write("\n")
        self.write(text[same:])
        self.shown = text
