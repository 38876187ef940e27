"""Generation over a session's logits: the next token chosen from each position's logits (greedy, or sampled by
temperature, top-k, top-p and min-p from a seeded uniform number, the logits of tokens seen already penalized),
stopping at an end-of-sequence token or a stop string, each token handed to a callback as it is chosen (to stream
its text).

The choice is one procedure, given a row of logits, the tokens so far (the prompt's and those generated) and one
uniform number `u` in [0, 1). Its steps are transformers' logits processors in the order `generate` applies them
(`GenerationMixin._get_logits_processor`: `RepetitionPenaltyLogitsProcessor`, then, sampling, the warpers
`TemperatureLogitsWarper`, `TopKLogitsWarper`, `TopPLogitsWarper`, `MinPLogitsWarper`), and give the same kept set
and, within f32 rounding, the same probabilities:

0. repetition penalty other than 1: the logit of each token seen so far (each once, however often seen) divided by
   it where it is positive or 0, multiplied where negative, in f32 (greedy too, as transformers);
1. temperature 0: the arg-max (the first of equal largest values);
2. a NaN or +Inf among the logits: no token (-1; nothing to draw from: the weights overflowed);
3. else the logits kept are those from the `top_k`-th largest up (counted with repeats; 0: all), ties kept together;
4. weights `exp((logit - largest) / temperature)` (the largest kept weighs 1);
5. top-p under 1: of those kept, the fewest largest whose weight reaches `top_p` of theirs (ties kept together);
6. min-p above 0: of those kept, those whose weight is at least `min_p` (of the largest's, 1);
7. the token is the first kept, in id order, whose running sum of weights exceeds `u` times their sum (the last
   kept where rounding leaves none).

`choose` states steps 1-7 (in float64, or in the kernel's f32 for its numpy twin), `penalized` step 0, `next_token`
the whole. Where it runs: the `lane.sample` kernel computes steps 1-5 and 7 on the device (in f32) and only the
token is read back; with a repetition penalty or a min-p (`Sampling.on_host`), the step takes the arg-max instead,
its row of logits is read back and the token chosen here by `next_token`. No step sorts: a kernel finds the
`top_k`-th largest by a radix select and the top-p cut by a search over values, and draws in id order. The uniform
number of the `i`-th generated token (from 0) is the first double of numpy's Philox-4x64 generator keyed by the
seed at counter `i`, cut to a multiple of 2^-24 (a float32 exactly, as the step's `draw` input takes it): the same
seed gives the same tokens wherever the logits are the same, and one token's draw does not depend on how many were
drawn before (a counter-based generator)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from lanearena.errors import Overflow, UserError


@dataclass(frozen=True)
class Sampling:
    """How a token is chosen from logits: `temperature` 0 for the arg-max, else sampled, from the `top_k` most
    likely tokens (0: all), of those the fewest whose probability reaches `top_p`, of those the ones at least
    `min_p` as likely as the likeliest (0: all), by the uniform numbers of `seed`; the logits of the tokens seen so
    far penalized by `repetition_penalty` (1: none)."""

    temperature: float = 0.0
    top_k: int = 0
    top_p: float = 1.0
    seed: int = 0
    min_p: float = 0.0
    repetition_penalty: float = 1.0

    def __post_init__(self) -> None:
        if not self.temperature >= 0 or self.temperature == float("inf"):
            raise UserError(f"--temperature must be a finite number from 0, not {self.temperature}")
        if self.top_k < 0:
            raise UserError(f"--top-k must be at least 0 (0: every token), not {self.top_k}")
        if not 0 < self.top_p <= 1:
            raise UserError(f"--top-p must be in (0, 1], not {self.top_p}")
        if self.seed < 0:
            raise UserError(f"--seed must be at least 0, not {self.seed}")
        if not 0 <= self.min_p <= 1:
            raise UserError(f"--min-p must be in [0, 1] (0: every token), not {self.min_p}")
        if not 0 < self.repetition_penalty < float("inf"):
            raise UserError(
                f"--repetition-penalty must be a finite number above 0 (1: none), not {self.repetition_penalty}"
            )

    @property
    def on_host(self) -> bool:
        """Whether the token is chosen here from the logits read back (a repetition penalty, or a min-p sampled),
        not drawn on the device."""
        return self.repetition_penalty != 1 or (self.temperature > 0 and self.min_p > 0)


def uniform(seed: int, i: int) -> float:
    """The uniform number in [0, 1) of the `i`-th generated token under `seed`: a multiple of 2^-24."""
    double = np.random.Generator(np.random.Philox(key=seed, counter=i)).random()
    return float(np.floor(double * 2.0**24) / 2.0**24)


def penalized(logits: np.ndarray, seen: Sequence[int], penalty: float) -> np.ndarray:
    """Step 0 of the procedure: `logits` (f32) with those of the tokens `seen` divided by `penalty` where positive
    or 0, multiplied where negative (ids past the row are no logit's, and left)."""
    x = np.array(logits, np.float32)
    if penalty == 1 or not len(seen):
        return x
    ids = np.unique(np.asarray(seen, np.int64))
    ids = ids[(ids >= 0) & (ids < len(x))]
    v, p = x[ids], np.float32(penalty)
    x[ids] = np.where(v < 0, v * p, v / p)
    return x


def weights(logits: np.ndarray, s: Sampling, dtype: type[np.floating] = np.float64) -> np.ndarray:
    """Steps 3-6 of the procedure: the weight of each token of `logits` (finite, sampled at `s.temperature` above
    0), 0 for those not kept, in `dtype`; their share of the sum is the distribution drawn from."""
    x = np.asarray(logits, np.float32)
    kept = np.ones(len(x), bool)
    if 0 < s.top_k < len(x):
        kept = x >= np.partition(x, len(x) - s.top_k)[len(x) - s.top_k]
    xs: np.ndarray = x.astype(dtype)
    w = np.where(kept, np.exp((xs - xs.max()) / dtype(s.temperature)), dtype(0))
    if s.top_p < 1:
        order = np.argsort(-x, kind="stable")[: int(kept.sum())]  # the kept, largest first
        values, mass = x[order], np.cumsum(w[order], dtype=dtype)  # type: np.ndarray, np.ndarray
        ends = np.flatnonzero(np.append(values[1:] != values[:-1], True))  # each run of equal values' last
        cut = values[ends[int(np.argmax(mass[ends] >= dtype(s.top_p) * w.sum(dtype=dtype)))]]
        w = np.where(x >= cut, w, dtype(0))
    if s.min_p > 0:
        w = np.where(w >= dtype(s.min_p), w, dtype(0))  # the largest weighs exp(0), 1 exactly
    return w


def choose(logits: np.ndarray, s: Sampling, u: float, dtype: type[np.floating] = np.float64) -> int:
    """The token `s` chooses from one position's `logits` (penalized already) with uniform number `u` (steps 1-7
    of the module's procedure, its weights and sums in `dtype`), -1 where the logits hold a NaN or +Inf."""
    x = np.asarray(logits, np.float32)
    if s.temperature == 0:
        return int(np.argmax(x))
    if np.isnan(x).any() or np.isposinf(x).any() or not len(x) or x.max() == -np.inf:
        return -1
    w = weights(x, s, dtype)
    running: np.ndarray = np.cumsum(w, dtype=dtype)
    passed = np.flatnonzero((running > dtype(u) * running[-1]) & (w > 0))
    return int(passed[0]) if len(passed) else int(np.flatnonzero(w > 0)[-1])


def next_token(logits: np.ndarray, seen: Sequence[int], s: Sampling, u: float) -> int:
    """The token the module's procedure chooses from one position's raw `logits`, after the tokens `seen` (the
    prompt's and those generated so far), by `s` with uniform number `u`; -1 where the logits hold a NaN or +Inf."""
    return choose(penalized(logits, seen, s.repetition_penalty), s, u)


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
    until: Callable[[list[int]], bool] | None = None,
) -> tuple[list[int], np.ndarray | None]:
    """At most `n` tokens after `prompt`, up to and including the first of `stop` (or the first after which
    `until`, given the tokens generated so far, says to stop: a stop string), each the token `run` gives for the
    ids run at the next positions, drawn with the uniform number of its index under `sampling`'s seed (`run` draws
    by `sampling`'s temperature, top-k and top-p: a session built with them; greedy, it takes the arg-max), or,
    where `sampling.on_host`, chosen here by `next_token` from the row of logits `run` gives (a session built
    greedy); and, where `keep_logits`, the logits each was chosen from (one row a token, f32, as the step gave
    them), else None. Only the token is read back unless `keep_logits` or `sampling.on_host`. `on_token` is called
    with each token as soon as it is chosen. With `n` 0 nothing is run."""
    stops = frozenset(stop)
    host = sampling.on_host
    tokens: list[int] = []
    seen: list[np.ndarray] = []
    ids = prompt
    for i in range(n):
        u = uniform(sampling.seed, i) if sampling.temperature else 0.0
        token, logits = run(ids, keep_logits or host, 0.0 if host else u)
        if host:
            assert logits is not None
            token = next_token(logits, [*prompt, *tokens], sampling, u)
            if token < 0:
                raise Overflow(f"the logits of generated token {i} hold NaN or +Inf: the weights overflow")
        tokens.append(token)
        if keep_logits:
            assert logits is not None
            seen.append(logits)
        on_token(token)
        if token in stops or (until is not None and until(tokens)):
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
