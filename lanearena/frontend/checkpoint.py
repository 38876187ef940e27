"""A model directory (`config.json`, safetensors weights) as the source of a decoder step's weights: every tensor
checked against the step before any is read (missing, misshapen or not used: an error naming the tensor, its file
and the shape expected), then each weight made from its checkpoint tensors when asked for."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from lanearena.frontend.decoder_config import DecoderConfig
from lanearena.frontend.family import FAMILIES
from lanearena.frontend.names import skipped, sources
from lanearena.frontend.safetensors_io import CheckpointError, Entry, entries, read

__all__ = ["Checkpoint", "CheckpointError", "is_model_directory"]


def is_model_directory(path: str | Path) -> bool:
    """Whether `path` is a directory holding a config.json and safetensors weights."""
    p = Path(path)
    has_weights = (p / "model.safetensors").is_file() or (p / "model.safetensors.index.json").is_file()
    return p.is_dir() and (p / "config.json").is_file() and has_weights


class Checkpoint:
    """The weights of model directory `directory` for steps of config `c` (the config the directory's config.json
    makes, perhaps changed by settings that keep its shapes)."""

    def __init__(self, directory: str | Path, c: DecoderConfig):
        self.directory = Path(directory)
        self.config = c
        try:
            self.model_type = json.loads((self.directory / "config.json").read_text())["model_type"]
        except (OSError, json.JSONDecodeError, KeyError, TypeError) as e:
            raise CheckpointError(f"{self.directory / 'config.json'}: no model_type: {e}") from None
        if self.model_type not in FAMILIES:
            raise CheckpointError(f"{self.directory}: no name table for model_type {self.model_type!r}")
        self.family = FAMILIES[self.model_type]
        self.sources = sources(self.family, c)
        self.entries = entries(self.directory)

    def _where(self, name: str) -> str:
        entry = self.entries.get(name)
        return f"{entry.file}" if entry is not None else str(self.directory)

    def check(self, weights: dict[str, tuple[int, ...]]) -> None:
        """Raises a CheckpointError naming every checkpoint tensor that the step `weights` (name: shape) need and
        the directory lacks or holds in another shape, and every tensor the directory holds that no weight uses."""
        problems, used = [], set()
        for weight in weights:
            made = self.sources.get(weight)
            if made is None:
                raise CheckpointError(f"step weight '{weight}' has no {self.model_type} checkpoint name")
            for piece in made:
                used.add(piece.name)
                entry = self.entries.get(piece.name)
                if entry is None:
                    problems.append(f"missing tensor '{piece.name}' (for {weight}, of shape {list(piece.shape)})")
                elif entry.shape != piece.shape:
                    problems.append(
                        f"{entry.file}: tensor '{piece.name}' is {list(entry.shape)}, the config makes it "
                        f"{list(piece.shape)} (for {weight})"
                    )
        for name in sorted(set(self.entries) - used):
            if not skipped(self.family, name, self.config):
                problems.append(f"{self.entries[name].file}: tensor '{name}' is not one a {self.model_type} step uses")
        if problems:
            shown = problems[:12] + ([f"... and {len(problems) - 12} more"] if len(problems) > 12 else [])
            raise CheckpointError(f"{self.directory}: the weights do not fit the config:\n  " + "\n  ".join(shown))

    def values(self, weight: str, shape: tuple[int, ...]) -> np.ndarray:
        """Step weight `weight`'s f32 values, made from its checkpoint tensors (read one at a time)."""
        out = np.empty(shape, np.float32)
        for piece in self.sources[weight]:
            entry: Entry = self.entries[piece.name]
            piece.put(out, read(entry))
        return out
