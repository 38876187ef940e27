"""What MLIR writes that xDSL does not read as MLIR means it, turned into what it does (each reported in
docs/upstream.md): a float splat given by its bits (`dense<0xFF800000> : tensor<f32>`, MLIR's way to write an
infinity or a NaN), which xDSL reads as the integer 4286578688 turned into a float, is rewritten before parsing into
the hex string of its bytes, which xDSL reads as bytes; the `invariant` property of `memref.load`, which MLIR's generic
form always writes, is taken off after parsing."""

from __future__ import annotations

import re

from xdsl.dialects import memref
from xdsl.dialects.builtin import BoolAttr, ModuleOp

INVARIANT = "invariant"
"""`memref.load`'s property that MLIR added in 2025: the loaded bytes do not change while the op runs (a hint)."""


def accept_mlir_properties(module: ModuleOp) -> None:
    """Drops the `invariant` property of every `memref.load` of `module` that xDSL does not define, when it says
    false (MLIR's default); a true one becomes a discardable attribute, so the hint is kept and printed."""
    for op in module.walk():
        if isinstance(op, memref.LoadOp) and INVARIANT in op.properties:
            value = op.properties.pop(INVARIANT)
            if value != BoolAttr.from_bool(False):
                op.attributes[INVARIANT] = value


FLOAT_BYTES = {"f16": 2, "bf16": 2, "f32": 4, "f64": 8}
"""Bytes of each float type whose splat MLIR may write by its bits."""

_FLOAT_SPLAT_BITS = re.compile(r"dense<(0x[0-9A-Fa-f]+)>(\s*:\s*(?:tensor|vector)<(?:[0-9?]+x)*(f16|bf16|f32|f64)>)")
"""A float splat written by its bits, and its type."""


def float_splats_as_bytes(text: str) -> str:
    """`text` with every float splat written by its bits (`dense<0xFF800000> : tensor<f32>`) written as the hex
    string of its bytes, little-endian as MLIR's hex strings are (`dense<"0x000080FF"> : tensor<f32>`): the same
    value, in the form xDSL reads as MLIR does. A line holding one gets two characters longer after it."""

    def as_bytes(found: re.Match[str]) -> str:
        bits, kind, element = found.group(1), found.group(2), found.group(3)
        raw = int(bits, 16).to_bytes(FLOAT_BYTES[element], "little")
        return f'dense<"0x{raw.hex().upper()}">{kind}'

    return _FLOAT_SPLAT_BITS.sub(as_bytes, text)
