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
import math
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
from lanearena.lowering.serving.weights import KEPT, Held, RandomWeights, WeightSource, kept, put
from lanearena.model import ALIGN, Role, Step, aligned
from lanearena.options import PlaceOptions
from lanearena.passes.arena_place import place_module

Admit = Callable[[Step, int], None]
"""A check of a step before the session allocates anything for it: given the step (plain data) and the bytes the
session is about to allocate for it (its own arena, counters and computed buffers, and the weights and state that
no step built before holds), it raises where they do not fit."""


MAX_BATCH = 4096
"""The most sequences a session serves at once (as `DecoderConfig`'s `batch` allows)."""

_ELEM_BYTES = {"f32": 4, "i32": 4, "bf16": 2}


def slot_bytes(t: Held, batch: int = 1) -> int:
    """The bytes of one sequence slot's part of state `t` (of `batch` slots): its values, slot after slot."""
    return math.prod(t.shape[1:] if batch > 1 else t.shape) * _ELEM_BYTES[t.elem]


def slots(t: Held, batch: int) -> Held:
    """One sequence's state `t` made the state of `batch` sequences, slot after slot (each slot's part laid out as
    `t`): the buffer that steps of one sequence and the step of a row a slot share."""
    return Held(t.role, t.elem, (batch, *t.shape), max(aligned(batch * slot_bytes(t), ALIGN), t.bytes))


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
        self.replays: dict[int, Callable[[], None]] = {}
        self.strides: dict[int, int] = {}
        """Where the step serves one sequence of a session of several: each state buffer's bytes a slot (slot s's
        state at its slot-0 address plus s times them)."""

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
        self.replays = {0: self.replay}
        self.device, self.graph = dev, graph

    def at_slot(self, slot: int) -> Callable[[], None]:
        """The replay of the step over sequence slot `slot`'s state (its own arena, inputs and outputs shared by
        every slot), made the first time the slot is asked for."""
        if slot not in self.replays:
            b = list(self.buffers)
            for k, stride in self.strides.items():
                b[k] += slot * stride
            self.replays[slot] = replayer(self.device, self.lowered, b, self.graph)
        return self.replays[slot]

    def run(self, dev, ids: np.ndarray, pos: np.ndarray, draw, poisoned: bool, slot: int = 0) -> None:
        """The step run on `ids` at positions `pos` (one row each), the state (of sequence slot `slot`) updated,
        each row's token drawn with uniform number `draw` (one, or one a row) where the step samples; its arena and
        computed buffers poisoned first where `poisoned`."""
        lowered, b = self.lowered, self.buffers
        if poisoned:
            poison(dev, lowered, b)
        feeds: dict[str, np.ndarray] = {"ids": ids.astype(np.int32), "pos": pos.astype(np.int32)}
        if "draw" in lowered.feeds:  # a prompt's: only the last row's token is ever read
            feeds["draw"] = np.broadcast_to(np.asarray(draw, np.float32), (len(ids),)).copy()
        for name, values in feeds.items():
            f = lowered.feeds[name]
            dev.upload(b[f.buffer] + f.offset, values)
        self.at_slot(slot)()

    def token(self, dev, row: int) -> int:
        """The token of row `row` of the last run, the arg-max or drawn (4 bytes read back)."""
        return int(self.tokens(dev, range(row, row + 1))[0])

    def tokens(self, dev, rows: range) -> np.ndarray:
        """The tokens of `rows` of the last run, the arg-max or drawn (4 bytes a row read back)."""
        t = self.lowered.results["token"]
        return dev.download(self.buffers[t.buffer] + t.offset + 4 * rows.start, np.int32, len(rows))

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
        batch: int = 1,
        **placing,
    ):
        if not c.output_logits:
            raise UserError(f"{c.name}: a session reads the logits (output_logits false)")
        if isinstance(weights, RandomWeights) and weights.widths is None:  # q, k and v the same in every step
            weights = weights.joined(c.q_dim, c.kv_dim)
        self.config, self.weights, self.placing, self.admit = c, weights, placing, admit
        self.graph, self.debug_poison = graph, debug_poison
        if not 1 <= batch <= MAX_BATCH:
            raise UserError(f"{c.name}: a session serves 1 to {MAX_BATCH} sequences at once, not {batch}")
        self.chunk = min(chunk, c.max_len)
        self.batch = batch
        self.kept: dict[str, Held] = {}
        self.addrs: dict[str, int] = {}
        self.lengths = [0] * batch
        """The positions each sequence slot's caches hold."""
        self.device = new_device(backend)
        self.decode = self._bound(1)
        self.prefill: _Bound | None = None
        self.batched = self._bound(batch, batch) if batch > 1 else None
        """The decode step of a row a slot, where the session serves several sequences."""

    @property
    def length(self) -> int:
        """The positions the caches hold (of slot 0, the only one of a session of one sequence)."""
        return self.lengths[0]

    def _bound(self, rows: int, batch: int = 1) -> _Bound:
        """The step of `rows` rows serving `batch` sequences, built, placed and lowered, admitted, and bound to the
        session's weights and state, those it is the first to hold put on the device (made by the session's
        weights). In a session of several sequences, a step of one serves any slot: its state is a slot's part of
        the state of all (`slots`)."""
        c = dataclasses.replace(self.config, rows=rows, batch=batch)
        step = _Bound(c, self.placing)
        held = kept([step.lowered], KEPT)
        if self.batch > 1 and batch == 1:
            step.strides = {
                step.lowered.feeds[n].buffer: slot_bytes(t) for n, t in held.items() if t.role is Role.STATE
            }
            held = {n: slots(t, self.batch) if t.role is Role.STATE else t for n, t in held.items()}
        for name, t in held.items():
            had = self.kept.get(name, t)
            if had != t and not (t.role is Role.STATE and had.shape == t.shape and t.bytes <= had.bytes):
                raise AssertionError(f"{name}: the steps disagree on it ({had} and {t})")
        new = {name: t for name, t in held.items() if name not in self.kept}
        if self.admit is not None:
            self.admit(step.step, step.own_bytes() + sum(t.bytes for t in new.values()))
        self.addrs |= put(self.device, new, self.weights, step.lowered.align, self.kept)
        self.kept |= new
        step.bind(self.device, self.addrs, self.graph)
        return step

    @property
    def steps(self) -> list[_Bound]:
        """The steps built so far: the decode step, the prefill step once a prompt has asked for it, and the decode
        step of several sequences where the session serves them."""
        return [s for s in (self.decode, self.prefill, self.batched) if s is not None]

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

    def reset(self, slot: int | None = None) -> None:
        """Empties the caches and state (the weights stay): of sequence slot `slot`, else of every slot."""
        for name, t in self.kept.items():
            if t.role is Role.STATE:
                if slot is None:
                    self.device.fill(self.addrs[name], t.bytes, 0)
                else:
                    one = slot_bytes(t, self.batch)
                    self.device.fill(self.addrs[name] + slot * one, one, 0)
        for s in range(self.batch) if slot is None else [slot]:
            self.lengths[s] = 0

    def _run(self, ids, draw: float = 0.0, slot: int = 0) -> Iterator[tuple[_Bound, int]]:
        """Token `ids` run at the next positions of sequence slot `slot`, whole chunks through the prefill step,
        the rest a row at a time through the decode step (a sampling step's rows drawn with uniform number `draw`):
        each step run, and the rows it ran, as it is run."""
        ids = np.asarray(ids, np.int64).reshape(-1)
        length = self.lengths[slot]
        if length + len(ids) > self.config.max_len:
            raise UserError(
                f"{length} positions and {len(ids)} more do not fit the caches' max_len {self.config.max_len}"
            )
        if ids.size and (ids.min() < 0 or ids.max() >= self.config.vocab):
            raise UserError(f"token ids must be in [0, {self.config.vocab}), not {ids.min()}..{ids.max()}")
        at = 0
        while at < len(ids):
            s = self._prefill() if self.chunk > 1 and len(ids) - at >= self.chunk else self.decode
            rows = ids[at : at + s.rows]
            s.run(self.device, rows, self.lengths[slot] + np.arange(len(rows)), draw, self.debug_poison, slot)
            self.lengths[slot] += len(rows)
            at += len(rows)
            yield s, len(rows)

    def forward(self, ids) -> np.ndarray:
        """The logits (one row a position, f32) of token `ids` run at the next positions."""
        out = [s.logits(self.device, range(rows)) for s, rows in self._run(ids)]
        return np.concatenate(out) if out else np.zeros((0, self.config.vocab), np.float32)

    def next(self, ids, logits: bool = False, draw: float = 0.0, slot: int = 0) -> tuple[int, np.ndarray | None]:
        """Token `ids` (at least one) run at the next positions of sequence slot `slot`: the token of the last (its
        4 bytes read back), the arg-max, or where the config samples drawn on the device with uniform number
        `draw`; and its row of logits where `logits` asks (else None). A token of -1 (NaN or +Inf among the
        logits, as the step finds them) is refused."""
        if not len(ids):
            raise UserError("no token ids to run")
        *_, (s, rows) = self._run(ids, draw, slot)
        token = s.token(self.device, rows - 1)
        if token < 0:
            raise self._overflow(self.lengths[slot] - 1)
        return token, s.logits(self.device, range(rows - 1, rows))[0] if logits else None

    def next_all(self, ids, live, draws, logits: bool = False) -> tuple[np.ndarray, np.ndarray | None]:
        """One decode row for each sequence slot: slot s's token `ids[s]` run at its next position where `live[s]`
        (a slot that is not live runs token 0 at position 0 of its own caches, left to be emptied before it is
        used again), through the decode step of a row a slot, each row's token drawn with `draws[s]` where the
        config samples. The tokens of every slot (4 bytes each read back) and, where `logits` asks, their logits
        (a row a slot); a live slot's token of -1 is refused."""
        s = self.batched or self.decode
        live = np.asarray(live, bool)
        pos = np.where(live, np.asarray(self.lengths), 0)
        if (pos[live] >= self.config.max_len).any():
            raise UserError(f"a sequence fills the caches' max_len {self.config.max_len}: it cannot go on")
        s.run(self.device, np.where(live, np.asarray(ids), 0), pos, draws, self.debug_poison)
        for slot in np.flatnonzero(live):
            self.lengths[slot] += 1
        tokens = s.tokens(self.device, range(self.batch))
        bad = np.flatnonzero(live & (tokens < 0))
        if bad.size:
            raise self._overflow(self.lengths[bad[0]] - 1)
        return tokens, s.logits(self.device, range(self.batch)) if logits else None

    def _overflow(self, position: int) -> Overflow:
        return Overflow(
            f"{self.config.name}: the logits at position {position} hold NaN or Inf: the weights or the "
            f"{self.config.numerics} numerics overflow"
        )

    def generate(self, prompt, n: int) -> tuple[list[int], np.ndarray]:
        """`n` tokens generated greedily after `prompt` (the arg-max of each position's logits), and the logits each
        was chosen from (n x vocab, f32); `decoding.generate` samples and stops at end tokens."""
        tokens, logits = decoding.generate(self.next, list(prompt), n, keep_logits=True)
        assert logits is not None
        return tokens, logits
