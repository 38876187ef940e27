"""A model directory's safetensors weights, read in the format's own terms (an 8-byte little-endian header length,
a JSON header of each tensor's dtype, shape and byte range, then the bytes), one tensor at a time and widened to
f32: f32 as it is, f16 by numpy, bf16 exactly (its 16 bits are the high half of an f32's). One file
(`model.safetensors`) or shards listed by `model.safetensors.index.json`.

Nothing read is trusted: only regular files are opened; the header length is at most the format's 100 MB and the
file's; the header is an object of tensors (and a `__metadata__` map of strings to strings), each with a dtype
that is a safetensors dtype, a shape of non-negative integers and two integer data offsets; the tensors' bytes
tile the data exactly (no hole, no overlap, none past the end), each as many as its dtype and shape make; the
shards an index names are plain file names in the directory (a symbolic link there, as the Hugging Face cache lays
them out, is followed); and a value that is not finite is refused, naming the tensor and its index, as the tensor
is read."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from lanearena.errors import UserError
from lanearena.frontend.model_files import open_regular, parse_json, read_json

WIDTHS = {"F32": 4, "F16": 2, "BF16": 2}
"""The bytes a value of each dtype read takes."""

OTHER_DTYPES = frozenset(
    {"BOOL", "U8", "I8", "F8_E5M2", "F8_E4M3", "F8_E8M0", "F4", "F6_E2M3", "F6_E3M2", "I16", "U16"}
    | {"I32", "U32", "F64", "I64", "U64"}
)
"""The safetensors dtypes lanearena does not read (a quantized or integer checkpoint's)."""

MAX_HEADER = 100_000_000
"""The longest header the format allows (the safetensors library's limit)."""

CHUNK = 1 << 22
"""Values widened at a time, so that reading a bf16 tensor holds its f32 values and a few MB beside."""

SINGLE = "model.safetensors"
INDEX = "model.safetensors.index.json"
"""The names `save_pretrained` gives one file of weights, and the index of shards."""


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


def _is_int(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _field_error(name: str, info: object) -> str | None:
    """What is wrong with header entry `name: info`, or None."""
    if not isinstance(info, dict):
        return f"tensor '{name}' is described by {type(info).__name__}, not an object"
    for key in ("dtype", "shape", "data_offsets"):
        if key not in info:
            return f"tensor '{name}' has no {key}"
    dtype, shape, offsets = info["dtype"], info["shape"], info["data_offsets"]
    if not isinstance(dtype, str) or dtype not in WIDTHS.keys() | OTHER_DTYPES:
        return f"tensor '{name}' has dtype {dtype!r}, not a safetensors dtype"
    if not isinstance(shape, list) or not all(_is_int(d) and d >= 0 for d in shape):
        return f"tensor '{name}' has shape {shape!r}, not a list of non-negative integers"
    if not isinstance(offsets, list) or len(offsets) != 2 or not all(_is_int(o) and o >= 0 for o in offsets):
        return f"tensor '{name}' has data_offsets {offsets!r}, not two non-negative integers"
    if offsets[0] > offsets[1]:
        return f"tensor '{name}' has data_offsets {offsets}, which end before they start"
    return None


def _header(path: Path) -> dict[str, Entry]:
    """The tensors of safetensors file `path`, by name, every field of its header checked."""
    with open_regular(path, CheckpointError) as f:
        try:
            size = f.seek(0, 2)
            f.seek(0)
            head = f.read(8)
            if len(head) < 8:
                raise CheckpointError(f"{path}: not a safetensors file (shorter than its header's length)")
            (n,) = struct.unpack("<Q", head)
            if n > min(size - 8, MAX_HEADER):
                raise CheckpointError(f"{path}: not a safetensors file (a header of {n} bytes in {size})")
            raw = f.read(n)
        except OSError as e:
            raise CheckpointError(f"cannot read {path}: {e.strerror or e}") from None
    header = parse_json(raw, path, CheckpointError)
    if not isinstance(header, dict):
        raise CheckpointError(f"{path}: a malformed safetensors header (not an object)")
    metadata = header.get("__metadata__", {})
    if not isinstance(metadata, dict) or not all(isinstance(v, str) for v in metadata.values()):
        raise CheckpointError(f"{path}: __metadata__ is {metadata!r}, not an object of strings")
    data = size - 8 - n
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        wrong = _field_error(name, info)
        if wrong:
            raise CheckpointError(f"{path}: a malformed safetensors header: {wrong}")
        dtype, shape, (begin, end) = info["dtype"], tuple(info["shape"]), info["data_offsets"]
        if dtype not in WIDTHS:
            raise CheckpointError(
                f"{path}: tensor '{name}' is {dtype}: lanearena reads {', '.join(WIDTHS)} weights (a quantized "
                "checkpoint's formats are not read)"
            )
        if end - begin != WIDTHS[dtype] * int(np.prod(shape, dtype=object)):
            raise CheckpointError(
                f"{path}: tensor '{name}' of shape {list(shape)} and dtype {dtype} takes "
                f"{WIDTHS[dtype] * int(np.prod(shape, dtype=object))} bytes, not the {end - begin} of its data_offsets"
            )
        out[name] = Entry(name, path, dtype, shape, 8 + n + begin, 8 + n + end)
    _check_tiling(path, list(out.values()), 8 + n, data)
    return out


def _check_tiling(path: Path, found: list[Entry], base: int, data: int) -> None:
    """Refuses tensors whose bytes do not tile the `data` bytes after the header (at `base`) exactly: a hole, an
    overlap, or bytes past the end."""
    at, last = base, None
    for e in sorted(found, key=lambda e: (e.start, e.end)):
        if e.start < at:
            raise CheckpointError(f"{path}: tensor '{e.name}' overlaps tensor '{last}' (data_offsets {e.start - base})")
        if e.start > at:
            raise CheckpointError(
                f"{path}: data bytes [{at - base}, {e.start - base}) belong to no tensor (a hole before '{e.name}')"
            )
        at, last = e.end, e.name
    if at - base != data:
        where = "past the end of the file" if at - base > data else "followed by bytes of no tensor"
        raise CheckpointError(f"{path}: the tensors' data ends at byte {at - base} of {data}: {where}")


def _shard(directory: Path, index: Path, file: object) -> Path:
    """The shard `file` an index names, a plain file name inside `directory`."""
    if not isinstance(file, str) or file in ("", ".", "..") or "/" in file or "\\" in file or "\0" in file:
        raise CheckpointError(f"{index}: shard {file!r} is not a file name in {directory}")
    return directory / file


def entries(directory: Path) -> dict[str, Entry]:
    """Every tensor of the model directory `directory`, by name: from `model.safetensors`, or from the shards
    `model.safetensors.index.json` lists (each listed tensor in the shard the index names)."""
    index = directory / INDEX
    if not index.exists() and not index.is_symlink():
        return _header(directory / SINGLE)
    read = read_json(index, CheckpointError)
    weight_map = read.get("weight_map") if isinstance(read, dict) else None
    if not isinstance(weight_map, dict) or not all(isinstance(f, str) for f in weight_map.values()):
        raise CheckpointError(f"{index}: not a safetensors index (a weight_map of tensor: file): {weight_map!r:.60}")
    shards = {file: _header(_shard(directory, index, file)) for file in sorted(set(weight_map.values()))}
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
    """The values of `entry` as f32, read a chunk at a time (bf16 widened exactly, f16 by numpy), each chunk checked
    finite as it is read."""
    n = int(np.prod(entry.shape))
    out = np.empty(n, np.float32)
    width = WIDTHS[entry.dtype]
    with open_regular(entry.file, CheckpointError) as f:
        f.seek(entry.start)
        for at in range(0, n, CHUNK):
            count = min(CHUNK, n - at)
            part = out[at : at + count]
            raw = f.read(count * width)
            if len(raw) != count * width:
                raise CheckpointError(f"{entry.file}: tensor '{entry.name}' ends early (the file changed?)")
            if entry.dtype == "F32":
                part[:] = np.frombuffer(raw, "<f4")
            elif entry.dtype == "BF16":
                part.view(np.uint32)[:] = np.frombuffer(raw, "<u2").astype(np.uint32) << 16
            else:
                part[:] = np.frombuffer(raw, "<f2")
            finite = np.isfinite(part)
            if not finite.all():
                first = at + int(np.argmin(finite))
                where = tuple(int(i) for i in np.unravel_index(first, entry.shape))
                raise CheckpointError(
                    f"{entry.file}: tensor '{entry.name}' holds {out[first]} at {list(where)}: weights must be finite"
                )
    return out.reshape(entry.shape)
