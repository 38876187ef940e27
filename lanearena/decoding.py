"""Generation over a session's logits: the next token chosen from each position's logits (greedy, or sampled by
temperature, top-k and top-p from a seeded uniform number), stopping at an end-of-sequence token, each token handed
to a callback as it is chosen (to stream its text).

The choice is one procedure, which the `lane.sample` kernel computes on the device (in f32) and `choose` states
(in float64, or in the kernel's f32 for its numpy twin), given a row of logits and one uniform number `u` in [0, 1):

1. temperature 0: the arg-max (the first of equal largest values);
2. a NaN or +Inf among the logits: no token (-1; nothing to draw from: the weights overflowed);
3. else the logits kept are those from the `top_k`-th largest up (counted with repeats; 0: all), ties kept together;
4. weights `exp((logit - largest) / temperature)`;
5. top-p under 1: of those kept, the fewest largest whose weight reaches `top_p` of theirs (ties kept together);
6. the token is the first kept, in id order, whose running sum of weights exceeds `u` times their sum (the last
   kept where rounding leaves none).

No step sorts: a kernel finds the `top_k`-th largest by a radix select and the top-p cut by a search over values,
and draws in id order. The uniform number of the `i`-th generated token (from 0) is the first double of numpy's
Philox-4x64 generator keyed by the seed at counter `i`, cut to a multiple of 2^-24 (a float32 exactly, as the step's
`draw` input takes it): the same seed gives the same tokens wherever the logits are the same, and one token's draw
does not depend on how many were drawn before (a counter-based generator)."""

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
    """The uniform number in [0, 1) of the `i`-th generated token under `seed`: a multiple of 2^-24."""
    double = np.random.Generator(np.random.Philox(key=seed, counter=i)).random()
    return float(np.floor(double * 2.0**24) / 2.0**24)


def choose(logits: np.ndarray, s: Sampling, u: float, dtype: type[np.floating] = np.float64) -> int:
    """The token `s` chooses from one position's `logits` with uniform number `u` (the module's procedure, its
    weights and sums in `dtype`), -1 where the logits hold a NaN or +Inf."""
    x = np.asarray(logits, np.float32)
    if s.temperature == 0:
        return int(np.argmax(x))
    if np.isnan(x).any() or np.isposinf(x).any() or not len(x) or x.max() == -np.inf:
        return -1
    kept = np.ones(len(x), bool)
    if 0 < s.top_k < len(x):
        kept = x >= np.partition(x, len(x) - s.top_k)[len(x) - s.top_k]
    xs: np.ndarray = x.astype(dtype)
    weights = np.where(kept, np.exp((xs - xs.max()) / dtype(s.temperature)), dtype(0))
    if s.top_p < 1:
        order = np.argsort(-x, kind="stable")[: int(kept.sum())]  # the kept, largest first
        values, mass = x[order], np.cumsum(weights[order], dtype=dtype)  # type: np.ndarray, np.ndarray
        ends = np.flatnonzero(np.append(values[1:] != values[:-1], True))  # each run of equal values' last
        cut = values[ends[int(np.argmax(mass[ends] >= dtype(s.top_p) * weights.sum(dtype=dtype)))]]
        weights = np.where(x >= cut, weights, dtype(0))
    running: np.ndarray = np.cumsum(weights, dtype=dtype)
    passed = np.flatnonzero((running > dtype(u) * running[-1]) & (weights > 0))
    return int(passed[0]) if len(passed) else int(np.flatnonzero(weights > 0)[-1])


Next = Callable[[list[int], bool, float], tuple[int, "np.ndarray | None"]]
"""A model run on token ids at its next positions (a `Session.next`): the token of the last, the arg-max or drawn
with the given uniform number, and (where the flag asks) its row of logits."""


def generate(
    run: Next,
    prompt: list[int],
    n: int,
    sampling: Sampling = Sampling(),
    stop: Iterable[int] = (),
    on_token: Callable[[int], None] = lambda token: None,
    keep_logits: bool = False,
) -> tuple[list[int], np.ndarray | None]:
    """At most `n` tokens after `prompt`, up to and including the first of `stop`, each the token `run` gives for
    the ids run at the next positions, drawn with the uniform number of its index under `sampling`'s seed (`run`
    draws by `sampling`'s temperature, top-k and top-p: a session built with them; greedy, it takes the arg-max);
    and, where `keep_logits`, the logits each was chosen from (one row a token, f32), else None. Only the token is
    read back unless `keep_logits`. `on_token` is called with each token as soon as it is chosen. With `n` 0 nothing
    is run."""
    stops = frozenset(stop)
    tokens: list[int] = []
    seen: list[np.ndarray] = []
    ids = prompt
    for i in range(n):
        token, logits = run(ids, keep_logits, uniform(sampling.seed, i) if sampling.temperature else 0.0)
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
