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

from lanearena.decoding import Sampling, uniform
from lanearena.errors import UserError

if TYPE_CHECKING:
    from lanearena.lowering.serving.session import Session


GREEDY = Sampling()


@dataclass
class Generated:
    """One sequence's generation: its `tokens`, why it `stopped` ("eos": an end token, the last of `tokens`;
    "length": the tokens asked for), and, where kept, the `logits` each token was chosen from."""

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
) -> list[Generated]:
    """At most `n` tokens after each of `prompts` (at most the session's `batch`), each sequence up to and
    including the first of `stop`, chosen as `decoding.generate` chooses them (the session's step takes the
    arg-max, or draws by the config's sampling with the uniform numbers of `sampling`'s seed); `on_token(k,
    token)` is called as sequence `k`'s token is chosen. The session's caches are emptied first."""
    c = session.config
    check_prompts(prompts, n, session.batch, c.max_len, c.vocab)
    stops = frozenset(stop)
    out = [Generated() for _ in prompts]
    session.reset()
    if n == 0:
        return out
    live = np.zeros(session.batch, bool)
    last = np.zeros(session.batch, np.int64)

    def chose(k: int, token: int, logits: np.ndarray | None) -> None:
        g = out[k]
        g.tokens.append(token)
        if logits is not None:
            g.logits.append(logits)
        on_token(k, token)
        done = token in stops or len(g.tokens) == n
        if token in stops:
            g.stopped = "eos"
        live[k], last[k] = not done, token
        if done:
            session.reset(k)  # its slot freed: emptied for the next sequence

    first = _draw(sampling, 0)
    for k, prompt in enumerate(prompts):
        token, logits = session.next(list(prompt), keep_logits, first, slot=k)
        chose(k, token, logits)
    i = 1
    while live.any():
        tokens, rows = session.next_all(last, live, np.full(session.batch, _draw(sampling, i)), keep_logits)
        for slot in map(int, np.flatnonzero(live)):
            chose(slot, int(tokens[slot]), rows[slot] if rows is not None else None)
        i += 1
    return out


def _draw(sampling: Sampling, i: int) -> float:
    return uniform(sampling.seed, i) if sampling.temperature else 0.0
