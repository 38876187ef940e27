"""The table of launch kinds, made from their op classes (`docs/kinds.md` holds it; a test holds it current):
`python -m lanearena.dialects.kinds.catalog > docs/kinds.md` writes it again."""

from __future__ import annotations

import re

from xdsl.dialects.builtin import ArrayAttr, FloatAttr, IntegerAttr, UnitAttr
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute

from lanearena.dialects.attrs import FormAttr, PartAttr
from lanearena.dialects.kernel import KernelOp
from lanearena.dialects.kinds import KERNEL_OPS

HEADER = """# Launch kinds

Generated from the op classes by `python -m lanearena.dialects.kinds.catalog > docs/kinds.md`: do not edit.
Each kind is one op class, `lane.<kind>` (`lanearena/dialects/kinds/`): its operands by name, its parameters as typed
properties with defaults, its shape checks in `verify_`, and its scratch (the seed's `scratch()`) in
`scratch(numerics)`; the placement, the verifiers, the builder and the lowering find everything through it.
An operand marked `(quant)` may be read quantized, `(plain, quant)` written in both forms; a parameter without a
default is required. `docs/adding-a-kind.md` adds a kind of one's own.

| kind | reads -> writes | parameters | what it computes |
|---|---|---|---|
"""


def _default(attr: Attribute | None) -> str:
    """A parameter's default as the IR writes it, an enumeration's with its choices (nothing where required)."""
    if isinstance(attr, IntegerAttr):
        return f"({attr.value.data})"
    if isinstance(attr, FloatAttr):
        return f"({attr.value.data:g})"
    if isinstance(attr, EnumAttribute):
        return f"({attr.data.value}; of {', '.join(e.value for e in type(attr.data))})"
    return ""


def parameters(kind: type[KernelOp]) -> str:
    """The kind's parameters, each with its default, a flag as `[name]`, a part as `part<pitch, start, width>`."""
    out = []
    for name, prop in kind.get_irdl_definition().properties.items():
        bases = prop.constr.get_bases() or set()
        if bases & {FormAttr, ArrayAttr}:
            continue
        base = next(iter(bases)) if len(bases) == 1 else None
        if base is UnitAttr:
            out.append(f"[{name}]")
        elif base is PartAttr:
            out.append("[part<pitch, start, width>]")
        else:
            out.append(name + _default(prop.default_value))
    return ", ".join(out)


def operands(kind: type[KernelOp]) -> str:
    """What the kind reads and writes, in its operand order, each operand with the forms it may take."""
    props = kind.get_irdl_definition().properties

    def shown(name: str) -> str:
        if f"{name}_form" in props:
            return f"{name}(quant)"
        return f"{name}(plain, quant)" if f"{name}_forms" in props else name

    return f"{', '.join(map(shown, kind.ins()))} -> {', '.join(map(shown, kind.WRITES))}"


def summary(kind: type[KernelOp]) -> str:
    """What the kind computes: its docstring's first paragraph, less the example that opens it."""
    text = " ".join((kind.__doc__ or "").split("\n\n")[0].split())
    return re.sub(r"^`[^`]*`:\s*", "", text).replace("|", "\\|")


def markdown() -> str:
    """`docs/kinds.md`: every kind of the package, in the order of `KERNEL_OPS`."""
    rows = [
        f"| `{name}` | {operands(kind)} | {parameters(kind)} | {summary(kind)} |" for name, kind in KERNEL_OPS.items()
    ]
    return HEADER + "\n".join(rows) + "\n"


if __name__ == "__main__":
    print(markdown(), end="")
