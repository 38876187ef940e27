"""What MLIR writes that xDSL's ops do not take, turned into what they do right after parsing (each reported in
docs/upstream.md): the `invariant` property of `memref.load`, which MLIR's generic form always writes."""

from __future__ import annotations

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
