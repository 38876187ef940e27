"""A model on a device, ready to generate: its weights and state (key/value caches, Qwen3-Next's convolution and
delta-rule state) in one set of device buffers, shared by its lowered decode step (one row) and prefill step (a
chunk of rows), each step with its own arena, scratch and counters. The prompt runs through the prefill step a
chunk at a time (what is left over, a row at a time through the decode step, so that no padding row ever reaches
the state), then greedy decode steps, the caches staying on the device throughout.

    session = Session(config, Checkpoint(directory, config))   # or RandomWeights(seed)
    tokens, logits = session.generate([1, 2, 3], 16)           # 16 greedy tokens, and the logits of each
    session.reset()                                            # an empty cache, the weights kept
"""

from __future__ import annotations

import dataclasses
import types

import numpy as np

from lanearena import api, decoding
from lanearena.errors import UserError
from lanearena.frontend.decoder import decoder_step
from lanearena.frontend.decoder_config import DecoderConfig
from lanearena.lowering.compile import new_device, placed
from lanearena.lowering.runtime import load, poison, prepare
from lanearena.lowering.weights import WeightSource, kept, put
from lanearena.options import PlaceOptions

KEPT = ("weight", "state")
"""The roles of the tensors a session keeps on the device across steps."""


class _Lowered:
    """One placed and lowered step of a session, bound to the session's weights and state."""

    def __init__(self, c: DecoderConfig, placing: dict):
        module = decoder_step(c)
        api.place(module, PlaceOptions(**placing))
        step = placed(module)  # verified, and read from the IR
        self.rows = c.rows
        self.arena_bytes = step.plan.bytes
        self.module: types.ModuleType = load(step.source(), f"lanearena_{c.name}_{c.rows}")
        self.buffers: list[int] = []

    def bind(self, dev, addrs: dict[str, int]) -> None:
        """Allocates the step's own buffers on `dev`, its weights and state bound to the session's `addrs`."""
        m = self.module
        inputs = {n: np.zeros(shape, np.int32) for n, (_, _, role, _, shape) in m.FEEDS.items() if role == "input"}
        self.buffers = prepare(dev, inputs, m.BUFFERS, m.FEEDS, m.ALIGN, addrs)

    def run(self, dev, ids: np.ndarray, pos: np.ndarray) -> np.ndarray:
        """The logits of `ids` at positions `pos` (one row each), the state updated."""
        m, b = self.module, self.buffers
        poison(dev, m.BUFFERS, b)  # nothing left by the last step may be read through the arena
        for name, values in (("ids", ids), ("pos", pos)):
            k, off = m.FEEDS[name][:2]
            dev.upload(b[k] + off, values.astype(np.int32))
        m.launches(dev, b)
        k, off, _, _, shape = m.RESULTS["logits"]
        return dev.download(b[k] + off, np.float32, int(np.prod(shape))).reshape(len(ids), -1)


class Session:
    """Config `c`'s decode step (and, where `chunk` > 1, its prefill step of `chunk` rows) placed (`placing`:
    `api.place`'s options, the algorithm, work and time limit) and lowered onto one device of `backend`, with the
    weights `weights` makes uploaded one at a time (all checked first) and zeroed state. `length` is how many
    positions the caches hold."""

    def __init__(self, c: DecoderConfig, weights: WeightSource, backend: str = "numpy", chunk: int = 8, **placing):
        if not c.output_logits:
            raise UserError(f"{c.name}: a session reads the logits (output_logits false)")
        self.config = c
        chunk = min(chunk, c.max_len)
        self.decode = _Lowered(dataclasses.replace(c, rows=1), placing)
        self.prefill = _Lowered(dataclasses.replace(c, rows=chunk), placing) if chunk > 1 else None
        self.steps = [s for s in (self.decode, self.prefill) if s is not None]
        self.device = new_device(backend)
        self.kept = kept((s.module for s in self.steps), KEPT)
        self.addrs = put(self.device, self.kept, weights, self.decode.module.ALIGN)
        for s in self.steps:
            s.bind(self.device, self.addrs)
        self.length = 0

    def reset(self) -> None:
        """Empties the caches and state (the weights stay)."""
        for name, (role, _, _, nbytes) in self.kept.items():
            if role == "state":
                self.device.fill(self.addrs[name], nbytes, 0)
        self.length = 0

    def forward(self, ids) -> np.ndarray:
        """The logits (one row a position, f32) of token `ids` run at the next positions: whole chunks through the
        prefill step, the rest a row at a time through the decode step."""
        ids = np.asarray(ids, np.int64).reshape(-1)
        if self.length + len(ids) > self.config.max_len:
            raise UserError(
                f"{self.length} positions and {len(ids)} more do not fit the caches' max_len {self.config.max_len}"
            )
        if ids.size and (ids.min() < 0 or ids.max() >= self.config.vocab):
            raise UserError(f"token ids must be in [0, {self.config.vocab}), not {ids.min()}..{ids.max()}")
        out = []
        at = 0
        while at < len(ids):
            s = self.prefill if self.prefill is not None and len(ids) - at >= self.prefill.rows else self.decode
            rows = ids[at : at + s.rows]
            out.append(s.run(self.device, rows, self.length + np.arange(len(rows))))
            self.length += len(rows)
            at += len(rows)
        return np.concatenate(out) if out else np.zeros((0, self.config.vocab), np.float32)

    def generate(self, prompt, n: int) -> tuple[list[int], np.ndarray]:
        """`n` tokens generated greedily after `prompt` (the arg-max of each position's logits), and the logits each
        was chosen from (n x vocab, f32); `decoding.generate` samples and stops at end tokens."""
        return decoding.generate(self.forward, list(prompt), n)
