"""A model directory (`config.json`, safetensors weights) as the source of a decoder step's weights: every tensor
checked against the step before any is read (missing, misshapen or not used: an error naming the tensor, its file
and the shape expected), then each weight made from its checkpoint tensors when asked for."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from lanearena.frontend.decoder_config import DecoderConfig
from lanearena.frontend.family import FAMILIES
from lanearena.frontend.model_files import ConfigJson, read_config_json
from lanearena.frontend.names import skipped, sources
from lanearena.frontend.safetensors_io import INDEX, SINGLE, CheckpointError, Entry, entries, read

__all__ = ["Checkpoint", "CheckpointError", "has_weights", "no_weights"]

_LAYER = re.compile(r"^model\.layers\.(\d+)\.")
"""A checkpoint tensor of a layer (every family's table names them so), and the layer's number."""


NUMERICS_OF_DTYPE = {"F32": "f32", "F16": "f32", "BF16": "bf16"}
"""The numerics a checkpoint of each safetensors dtype runs in by default: its own, bf16 for bf16 (its weights kept
as they are stored), f32 for f32 (and for f16, widened exactly). int8 and int8x2 only where a config or --set asks."""

_TORCH_DTYPES = {"float32": "F32", "float16": "F16", "bfloat16": "BF16"}
"""config.json's torch_dtype (dtype in transformers 5) as the safetensors dtype it saves."""


def default_numerics(directory: str | Path, config: dict) -> str:
    """The numerics model directory `directory` (whose config.json holds `config`) runs in where neither its
    config.json nor a setting names them: its weight matrices' dtype's (`NUMERICS_OF_DTYPE`; the tensors of two or
    more dimensions, as norm gains and biases stay f32 under every numerics; f32 where the matrices' dtypes differ),
    else, without weights, that of config.json's torch_dtype, else f32. Only the safetensors headers are read."""
    if has_weights(directory):
        dtypes = {e.dtype for e in entries(Path(directory)).values() if len(e.shape) >= 2}
    else:
        dtypes = {_TORCH_DTYPES.get(str(config.get("dtype", config.get("torch_dtype"))), "F32")}
    return NUMERICS_OF_DTYPE.get(dtypes.pop(), "f32") if len(dtypes) == 1 else "f32"  # a dtype not read: refused later


def has_weights(directory: str | Path) -> bool:
    """Whether `directory` names its safetensors weights (`model.safetensors` or the index of shards), whatever
    they turn out to be: what is there is read, and refused if it is not what it claims."""
    d = Path(directory)
    return any((d / name).exists() or (d / name).is_symlink() for name in (SINGLE, INDEX))


def no_weights(directory: str | Path) -> CheckpointError:
    """The refusal of model directory `directory`, which holds no safetensors weights, naming what it holds."""
    d = Path(directory)
    found = sorted(p.name for p in d.iterdir()) if d.is_dir() else []
    near = [f for f in found if f.lower() in (SINGLE, INDEX)]
    hint = f" ({', '.join(near)}: names are case-sensitive)" if near else ""
    held = ", ".join(found[:8]) + (f" and {len(found) - 8} more" if len(found) > 8 else "") if found else "nothing"
    return CheckpointError(
        f"{d}: no {SINGLE} nor {INDEX} (it holds {held}){hint}: lanearena reads safetensors weights "
        "(transformers' save_pretrained writes them); --random-weights runs the config with random weights"
    )


class Checkpoint:
    """The weights of model directory `directory` for steps of config `c` (the config the directory's config.json
    makes, perhaps changed by settings that keep its shapes), named as the family of config.json's model_type names
    them (config.json as `config_json` holds it where it has been read already, else read here)."""

    def __init__(self, directory: str | Path, c: DecoderConfig, config_json: ConfigJson | None = None):
        self.directory = Path(directory)
        self.config = c
        read = config_json if config_json is not None else read_config_json(self.directory, CheckpointError)
        model_type = read.values.get("model_type")
        if not isinstance(model_type, str) or model_type not in FAMILIES:
            raise CheckpointError(f"{read.path}: no name table for model_type {model_type!r}")
        self.model_type: str = model_type
        self.family = FAMILIES[model_type]
        if not has_weights(self.directory):
            raise no_weights(self.directory)
        self.entries = entries(self.directory)
        held = {int(m.group(1)) for m in map(_LAYER.match, self.entries) if m}
        if c.layers > len(held):
            raise CheckpointError(
                f"{read.path}: the config makes {c.layers} layers, and the checkpoint holds {len(held)}: the "
                "weights do not fit the config"
            )
        self.sources = sources(self.family, c)

    def rounding(self) -> str | None:
        """What is rounded as the weights are uploaded under bf16 numerics, where anything is: tensors of a dtype
        with more bits than bf16 (F32, F16) are rounded to bf16 once, to nearest even; a BF16 tensor keeps its bits."""
        if self.config.numerics != "bf16":
            return None
        wider = sorted({e.dtype for e in self.entries.values() if e.dtype != "BF16" and len(e.shape) >= 2})
        if not wider:
            return None
        return (
            f"{self.directory}: its {' and '.join(wider)} weight matrices are rounded to bf16 (to nearest, ties to "
            "even) for bf16 numerics"
        )

    def check(self, weights: dict[str, tuple[int, ...]]) -> None:
        """Raises a CheckpointError naming every checkpoint tensor that the step `weights` (name: shape; every weight
        of the step, as `step_weights` gives them before it is built) need and the directory lacks or holds in
        another shape, and every tensor the directory holds that no weight uses."""
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

    def where(self, weight: str, shape: tuple[int, ...], index: tuple[int, ...]) -> str:
        """The file and checkpoint tensor that hold value `index` of step weight `weight` (of `shape`): of the
        tensors it is made of (joined q, k and v, experts, ...), the one put there."""
        marks = np.full(shape, -1, np.int64)
        for k, piece in enumerate(self.sources[weight]):
            part = np.full(piece.shape, k, np.int64)
            marks[piece.at] = piece.take(part) if piece.take is not None else part
        piece = self.sources[weight][max(0, int(marks[index]))]
        return f"{self.entries[piece.name].file}: tensor '{piece.name}'"

    def values(self, weight: str, shape: tuple[int, ...]) -> np.ndarray:
        """Step weight `weight`'s f32 values, made from its checkpoint tensors (read one at a time)."""
        out = np.empty(shape, np.float32)
        for piece in self.sources[weight]:
            entry: Entry = self.entries[piece.name]
            piece.put(out, read(entry))
        return out
