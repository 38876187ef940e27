"""A model on a device, ready to generate: its weights and state (key/value caches, Qwen3-Next's convolution and
delta-rule state) in one set of device buffers, shared by its lowered decode step (one row) and prefill step (a
chunk of rows, built the first time a prompt has a chunk of rows), each step with its own arena, scratch and
counters. The prompt runs through the prefill step a chunk at a time (what is left over, a row at a time through the
decode step, so that no padding row ever reaches the state), then decode steps, the caches staying on the device
throughout.

Each step is bound once (its buffers prepared) and then replayed (`graph.replayer`: on a GPU the CUDA graph
captured once after `prepare`; on the numpy runtime the launch plan): a run writes only the ids and positions into
the step's inputs and reads back only what is asked, the arg-max token (4 bytes, which the step computes) or a
row of logits. The arena and computed buffers are poisoned before each run only under `debug_poison` (a placement
check: nothing left by the last step may be read through the arena).

    session = Session(config, Checkpoint(directory, config))   # or RandomWeights(seed)
    tokens, logits = session.generate([1, 2, 3], 16)           # 16 greedy tokens, and the logits of each
    token, _ = session.next([4])                               # the next token alone, 4 bytes read back
    session.reset()                                            # an empty cache, the weights kept
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator

import numpy as np
from xdsl.utils.exceptions import DiagnosticException

from lanearena import decoding
from lanearena.errors import Overflow, UserError
from lanearena.frontend.decoder import decoder_step
from lanearena.frontend.decoder_config import DecoderConfig
from lanearena.lowering.codegen.lowered import Lowered
from lanearena.lowering.codegen.placed import placed
from lanearena.lowering.replay.graph import replayer
from lanearena.lowering.runtime.backend import new_device
from lanearena.lowering.runtime.execute import poison, prepare
from lanearena.lowering.serving.weights import KEPT, Held, WeightSource, kept, put
from lanearena.model import Role, Step
from lanearena.options import PlaceOptions
from lanearena.passes.arena_place import place_module

Admit = Callable[[Step, int], None]
"""A check of a step before the session allocates anything for it: given the step (plain data) and the bytes the
session is about to allocate for it (its own arena, counters and computed buffers, and the weights and state that
no step built before holds), it raises where they do not fit."""


class _Bound:
    """One placed and lowered step of a session (built, placed, verified and lowered once), bound to the session's
    weights and state."""

    def __init__(self, c: DecoderConfig, placing: dict):
        module = decoder_step(c)
        try:
            place_module(module, PlaceOptions(**placing))
        except DiagnosticException as e:
            raise UserError(str(e)) from e
        step = placed(module)  # verified, and read from the IR
        self.module = module
        self.rows = c.rows
        self.step: Step = step.step
        self.lowered: Lowered = step.lowered
        self.buffers: list[int] = []

    def own_bytes(self) -> int:
        """The bytes of the step's buffers that hold no weight nor state: its arena, counters and computed
        buffers."""
        shared = {f.buffer for f in self.lowered.feeds.values() if f.role in KEPT}
        return sum(b.bytes for k, b in enumerate(self.lowered.buffers) if k not in shared)

    @property
    def arena_bytes(self) -> int:
        return self.lowered.arena_bytes

    def bind(self, dev, addrs: dict[str, int], graph: bool) -> None:
        """Allocates the step's own buffers on `dev`, its weights and state bound to the session's `addrs`, and makes
        its replay (a CUDA graph where `dev` is a GPU and `graph`)."""
        inputs = {
            n: np.zeros(f.shape, np.int32 if f.elem == "i32" else np.float32)
            for n, f in self.lowered.feeds.items()
            if f.role is Role.INPUT
        }
        self.buffers = prepare(dev, self.lowered, inputs, addrs)
        self.replay = replayer(dev, self.lowered, self.buffers, graph)

    def run(self, dev, ids: np.ndarray, pos: np.ndarray, draw: float, poisoned: bool) -> None:
        """The step run on `ids` at positions `pos` (one row each), the state updated, the last row's token drawn
        with uniform number `draw` where the step samples; its arena and computed buffers poisoned first where
        `poisoned`."""
        lowered, b = self.lowered, self.buffers
        if poisoned:
            poison(dev, lowered, b)
        feeds = {"ids": ids.astype(np.int32), "pos": pos.astype(np.int32)}
        if "draw" in lowered.feeds:  # only the last row's token is ever read
            feeds["draw"] = np.full(len(ids), draw, np.float32)
        for name, values in feeds.items():
            f = lowered.feeds[name]
            dev.upload(b[f.buffer] + f.offset, values)
        self.replay()

    def token(self, dev, row: int) -> int:
        """The token of row `row` of the last run, the arg-max or drawn (4 bytes read back)."""
        t = self.lowered.results["token"]
        return int(dev.download(self.buffers[t.buffer] + t.offset + 4 * row, np.int32, 1)[0])

    def logits(self, dev, rows: range) -> np.ndarray:
        """The logits of `rows` of the last run (f32, one row each)."""
        t = self.lowered.results["logits"]
        vocab = t.length // self.rows
        at = self.buffers[t.buffer] + t.offset + 4 * vocab * rows.start
        return dev.download(at, np.float32, vocab * len(rows)).reshape(len(rows), vocab)


class Session:
    """Config `c`'s decode step (and, where `chunk` > 1, its prefill step of `chunk` rows, built when a prompt
    first has that many rows left) placed (`placing`: `lane-arena-place`'s options, the algorithm, work and time
    limit) and lowered onto one device of `backend`, with the weights `weights` makes uploaded one at a time (all
    checked first) and zeroed state. `length` is how many positions the caches hold. `admit` checks each step
    before its buffers are allocated (the decode step's before any weight is made). On a GPU each step replays as a
    CUDA graph unless `graph` is false (then its launch plan, on the device's stream); `debug_poison` poisons the
    arena and computed buffers before every run."""

    def __init__(
        self,
        c: DecoderConfig,
        weights: WeightSource,
        backend: str = "numpy",
        chunk: int = 8,
        admit: Admit | None = None,
        graph: bool = True,
        debug_poison: bool = False,
        **placing,
    ):
        if not c.output_logits:
            raise UserError(f"{c.name}: a session reads the logits (output_logits false)")
        self.config, self.weights, self.placing, self.admit = c, weights, placing, admit
        self.graph, self.debug_poison = graph, debug_poison
        self.chunk = min(chunk, c.max_len)
        self.kept: dict[str, Held] = {}
        self.addrs: dict[str, int] = {}
        self.device = new_device(backend)
        self.decode = self._bound(1)
        self.prefill: _Bound | None = None
        self.length = 0

    def _bound(self, rows: int) -> _Bound:
        """The step of `rows` rows, built, placed and lowered, admitted, and bound to the session's weights and
        state, those it is the first to hold put on the device (made by the session's weights)."""
        step = _Bound(dataclasses.replace(self.config, rows=rows), self.placing)
        held = kept([step.lowered], KEPT)
        for name, t in held.items():
            if self.kept.get(name, t) != t:
                raise AssertionError(f"{name}: the steps disagree on it ({self.kept[name]} and {t})")
        new = {name: t for name, t in held.items() if name not in self.kept}
        if self.admit is not None:
            self.admit(step.step, step.own_bytes() + sum(t.bytes for t in new.values()))
        self.addrs |= put(self.device, new, self.weights, step.lowered.align, self.kept)
        self.kept |= new
        step.bind(self.device, self.addrs, self.graph)
        return step

    @property
    def steps(self) -> list[_Bound]:
        """The steps built so far: the decode step, and the prefill step once a prompt has asked for it."""
        return [s for s in (self.decode, self.prefill) if s is not None]

    def _prefill(self) -> _Bound:
        """The prefill step, built, placed, lowered and bound the first time it is asked for."""
        if self.prefill is None:
            self.prefill = self._bound(self.chunk)
        return self.prefill

    def ready(self, positions: int) -> None:
        """Builds the steps a prompt of `positions` ids runs through (the prefill step where it has a whole chunk),
        so that the prompt's run is only a run."""
        if self.chunk > 1 and positions >= self.chunk:
            self._prefill()

    def reset(self) -> None:
        """Empties the caches and state (the weights stay)."""
        for name, t in self.kept.items():
            if t.role is Role.STATE:
                self.device.fill(self.addrs[name], t.bytes, 0)
        self.length = 0

    def _run(self, ids, draw: float = 0.0) -> Iterator[tuple[_Bound, int]]:
        """Token `ids` run at the next positions, whole chunks through the prefill step, the rest a row at a time
        through the decode step (a sampling step's rows drawn with uniform number `draw`): each step run, and the
        rows it ran, as it is run."""
        ids = np.asarray(ids, np.int64).reshape(-1)
        if self.length + len(ids) > self.config.max_len:
            raise UserError(
                f"{self.length} positions and {len(ids)} more do not fit the caches' max_len {self.config.max_len}"
            )
        if ids.size and (ids.min() < 0 or ids.max() >= self.config.vocab):
            raise UserError(f"token ids must be in [0, {self.config.vocab}), not {ids.min()}..{ids.max()}")
        at = 0
        while at < len(ids):
            s = self._prefill() if self.chunk > 1 and len(ids) - at >= self.chunk else self.decode
            rows = ids[at : at + s.rows]
            s.run(self.device, rows, self.length + np.arange(len(rows)), draw, self.debug_poison)
            self.length += len(rows)
            at += len(rows)
            yield s, len(rows)

    def forward(self, ids) -> np.ndarray:
        """The logits (one row a position, f32) of token `ids` run at the next positions."""
        out = [s.logits(self.device, range(rows)) for s, rows in self._run(ids)]
        return np.concatenate(out) if out else np.zeros((0, self.config.vocab), np.float32)

    def next(self, ids, logits: bool = False, draw: float = 0.0) -> tuple[int, np.ndarray | None]:
        """Token `ids` (at least one) run at the next positions: the token of the last (its 4 bytes read back),
        the arg-max, or where the config samples drawn on the device with uniform number `draw`; and its row of
        logits where `logits` asks (else None). A token of -1 (NaN or +Inf among the logits, as the step finds
        them) is refused."""
        if not len(ids):
            raise UserError("no token ids to run")
        *_, (s, rows) = self._run(ids, draw)
        token = s.token(self.device, rows - 1)
        if token < 0:
            raise Overflow(
                f"{self.config.name}: the logits at position {self.length - 1} hold NaN or Inf: the weights or "
                f"the {self.config.numerics} numerics overflow"
            )
        return token, s.logits(self.device, range(rows - 1, rows))[0] if logits else None

    def generate(self, prompt, n: int) -> tuple[list[int], np.ndarray]:
        """`n` tokens generated greedily after `prompt` (the arg-max of each position's logits), and the logits each
        was chosen from (n x vocab, f32); `decoding.generate` samples and stops at end tokens."""
        tokens, logits = decoding.generate(self.next, list(prompt), n, keep_logits=True)
        assert logits is not None
        return tokens, logits
