"""Several sequences generated at once by a session of several sequence slots (`Session(..., batch=B)`): each
prompt prefilled in a slot of its own (through the steps of one sequence, bound to that slot's caches and state),
then every live sequence decoded together, a row a slot, by the decode step of B rows; a sequence that stops (its
end token, or the tokens asked for) frees its slot while the others go on.

Each sequence's tokens are chosen as `decoding.generate` chooses them run alone: its `i`-th token drawn with the
uniform number of index `i` under the seed (the same for every sequence), so a sequence's tokens do not depend on
which others share the step (where the rows' logits are those of the sequence run alone)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from lanearena.decoding import Sampling, next_token, uniform
from lanearena.errors import Overflow, UserError

if TYPE_CHECKING:
    from lanearena.lowering.serving.session import Session


GREEDY = Sampling()


@dataclass
class Generated:
    """One sequence's generation: its `tokens`, why it `stopped` ("eos": an end token, the last of `tokens`;
    "stop": a stop string the last token completed; "length": the tokens asked for), and, where kept, the `logits`
    each token was chosen from."""

    tokens: list[int] = field(default_factory=list)
    stopped: str = "length"
    logits: list[np.ndarray] = field(default_factory=list)


def check_prompts(prompts: Sequence[Sequence[int]], n: int, batch: int, max_len: int, vocab: int) -> None:
    """Refuses, before anything runs, prompts that a session of `batch` slots and caches of `max_len` positions
    cannot generate `n` tokens after: none, more than `batch`, an empty one, a token id out of [0, `vocab`), one
    whose positions and `n` pass `max_len`; each refusal names the prompt (counted from 1)."""
    if not prompts:
        raise UserError("no prompt to generate after")
    if len(prompts) > batch:
        raise UserError(f"{len(prompts)} prompts, more than the step's {batch} sequences (--set batch={len(prompts)})")
    if n < 0:
        raise UserError(f"tokens to generate must be at least 0, not {n}")
    for k, p in enumerate(prompts, 1):
        if not len(p):
            raise UserError(f"prompt {k} is empty: it has no token to generate after")
        bad = [t for t in p if not 0 <= t < vocab]
        if bad:
            raise UserError(f"prompt {k}: token ids must be in [0, {vocab}), not {bad[0]}")
        if len(p) + n > max_len:
            raise UserError(f"prompt {k}: {len(p)} positions and {n} tokens do not fit the caches' max_len {max_len}")


def generate_many(
    session: Session,
    prompts: Sequence[Sequence[int]],
    n: int,
    sampling: Sampling = GREEDY,
    stop: Iterable[int] = (),
    on_token: Callable[[int, int], None] = lambda sequence, token: None,
    keep_logits: bool = False,
    until: Callable[[Sequence[int]], Callable[[list[int]], bool]] | None = None,
) -> list[Generated]:
    """At most `n` tokens after each of `prompts` (at most the session's `batch`), each sequence up to and
    including the first of `stop` (or the first after which its own `until(prompt)`, given the tokens generated
    so far, says to stop: a stop string), chosen as `decoding.generate` chooses them (the session's step takes the
    arg-max, or draws by the config's sampling with the uniform numbers of `sampling`'s seed; where
    `sampling.on_host`, `decoding.next_token` chooses from the row of logits read back, after the sequence's own
    tokens); `on_token(k, token)` is called as sequence `k`'s token is chosen. The session's caches are emptied
    first."""
    c = session.config
    check_prompts(prompts, n, session.batch, c.max_len, c.vocab)
    stops = frozenset(stop)
    out = [Generated() for _ in prompts]
    session.reset()
    if n == 0:
        return out
    live = np.zeros(session.batch, bool)
    last = np.zeros(session.batch, np.int64)
    host, read = sampling.on_host, keep_logits or sampling.on_host
    stopping = [until(p) for p in prompts] if until is not None else None

    def chose(k: int, token: int, logits: np.ndarray | None, u: float) -> None:
        g = out[k]
        if host:
            assert logits is not None
            token = next_token(logits, [*prompts[k], *g.tokens], sampling, u)
            if token < 0:
                raise Overflow(f"the logits of sequence {k + 1}'s token {len(g.tokens)} hold NaN or +Inf")
        g.tokens.append(token)
        if keep_logits and logits is not None:
            g.logits.append(logits)
        on_token(k, token)
        if token in stops:
            g.stopped = "eos"
        elif stopping is not None and stopping[k](g.tokens):
            g.stopped = "stop"
        done = g.stopped != "length" or len(g.tokens) == n
        live[k], last[k] = not done, token
        if done:
            session.reset(k)  # its slot freed: emptied for the next sequence

    u = _draw(sampling, 0)
    for k, prompt in enumerate(prompts):  # each prompt prefilled in its slot
        token, logits = session.next(list(prompt), read, 0.0 if host else u, slot=k)
        chose(k, token, logits, u)
    i = 1
    while live.any():
        u = _draw(sampling, i)
        tokens, rows = session.next_all(last, live, np.full(session.batch, 0.0 if host else u), read)
        for slot in map(int, np.flatnonzero(live)):
            chose(slot, int(tokens[slot]), rows[slot] if rows is not None else None, u)
        i += 1
    return out


def _draw(sampling: Sampling, i: int) -> float:
    return uniform(sampling.seed, i) if sampling.temperature else 0.0
