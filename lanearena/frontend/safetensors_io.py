"""A model directory's safetensors weights, read in the format's own terms (an 8-byte header length, a JSON header
of each tensor's dtype, shape and byte range, then the bytes), one tensor at a time and widened to f32: f32 as it
is, f16 by numpy, bf16 exactly (its 16 bits are the high half of an f32's). One file (`model.safetensors`) or shards
listed by `model.safetensors.index.json`."""

from __future__ import annotations

import json
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from lanearena.errors import UserError

WIDTHS = {"F32": 4, "F16": 2, "BF16": 2}
"""The bytes a value of each dtype read takes."""

CHUNK = 1 << 22
"""Values widened at a time, so that reading a bf16 tensor holds its f32 values and a few MB beside."""


class CheckpointError(UserError):
    """A model directory whose weights cannot be read, or do not fit the step: the message names the tensor, its
    file and the shape expected."""


@dataclass(frozen=True)
class Entry:
    """One tensor of a checkpoint: its `name`, the `file` holding it, its `dtype`, `shape`, and its bytes
    `[start, end)` in the file."""

    name: str
    file: Path
    dtype: str
    shape: tuple[int, ...]
    start: int
    end: int


def _header(path: Path) -> dict[str, Entry]:
    """The tensors of safetensors file `path`, by name."""
    try:
        with open(path, "rb") as f:
            head = f.read(8)
            if len(head) < 8:
                raise CheckpointError(f"{path}: not a safetensors file (shorter than its header's length)")
            (n,) = struct.unpack("<Q", head)
            size = path.stat().st_size
            if n > size - 8:
                raise CheckpointError(f"{path}: not a safetensors file (a header of {n} bytes in {size})")
            header = json.loads(f.read(n))
    except OSError as e:
        raise CheckpointError(f"cannot read {path}: {e.strerror or e}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise CheckpointError(f"{path}: a malformed safetensors header: {e}") from None
    if not isinstance(header, dict):
        raise CheckpointError(f"{path}: a malformed safetensors header (not an object)")
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        try:
            dtype, shape, (begin, end) = info["dtype"], tuple(int(d) for d in info["shape"]), info["data_offsets"]
        except (KeyError, TypeError, ValueError):
            raise CheckpointError(f"{path}: tensor '{name}' has a malformed header entry {info!r}") from None
        if dtype not in WIDTHS:
            raise CheckpointError(
                f"{path}: tensor '{name}' is {dtype}: lanearena reads {', '.join(WIDTHS)} weights (a quantized "
                "checkpoint's formats are not read)"
            )
        if end - begin != WIDTHS[dtype] * int(np.prod(shape)) or not 0 <= begin <= end <= size - 8 - n:
            raise CheckpointError(f"{path}: tensor '{name}' of shape {list(shape)} does not fit its bytes")
        out[name] = Entry(name, path, dtype, shape, 8 + n + begin, 8 + n + end)
    return out


def entries(directory: Path) -> dict[str, Entry]:
    """Every tensor of the model directory `directory`, by name: from `model.safetensors`, or from the shards
    `model.safetensors.index.json` lists (each listed tensor in the shard the index names)."""
    index = directory / "model.safetensors.index.json"
    single = directory / "model.safetensors"
    if not index.is_file():
        if not single.is_file():
            raise CheckpointError(f"{directory}: no model.safetensors nor model.safetensors.index.json")
        return _header(single)
    try:
        weight_map = json.loads(index.read_text())["weight_map"]
    except (OSError, json.JSONDecodeError, KeyError, TypeError) as e:
        raise CheckpointError(f"{index}: not a safetensors index (a weight_map of tensor: file): {e}") from None
    shards = {file: _header(directory / file) for file in sorted(set(weight_map.values()))}
    out = {}
    for name, file in weight_map.items():
        if name not in shards[file]:
            raise CheckpointError(f"{index}: tensor '{name}' is listed in {file}, which does not hold it")
        out[name] = shards[file][name]
    for file, held in shards.items():
        unlisted = sorted(set(held) - set(weight_map))
        if unlisted:
            raise CheckpointError(f"{directory / file}: tensor '{unlisted[0]}' is not listed in {index.name}")
    return out


def read(entry: Entry) -> np.ndarray:
    """The values of `entry` as f32, read a chunk at a time (bf16 widened exactly, f16 by numpy)."""
    n = int(np.prod(entry.shape))
    out = np.empty(n, np.float32)
    width = WIDTHS[entry.dtype]
    with open(entry.file, "rb") as f:
        f.seek(entry.start)
        for at in range(0, n, CHUNK):
            count = min(CHUNK, n - at)
            if entry.dtype == "F32":
                f.readinto(out[at : at + count].data.cast("B"))
                continue
            raw = np.frombuffer(f.read(count * width), "<u2" if entry.dtype == "BF16" else "<f2")
            if entry.dtype == "BF16":
                out[at : at + count].view(np.uint32)[:] = raw.astype(np.uint32) << 16
            else:
                out[at : at + count] = raw
    return out.reshape(entry.shape)
