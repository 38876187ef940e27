"""The kernel library: for every launch kind, CUDA kernels (the `.cu` files here, compiled to the `.ptx` beside them,
see `ptx`) and their numpy twins with the same arguments, and the calls one launch makes.

`calls(op, at)` turns a launch op into kernel calls over the addresses `at` (an `Operands`) gives;
`TWINS[kernel](device, grid, block, *args)` runs a kernel's twin on a `NumpyDevice`."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from lanearena.dialects.kernel import KernelOp
from lanearena.lowering.kernels import (
    argmax,
    attend,
    attention,
    delta,
    fused,
    gemv,
    mixture,
    moe,
    pointwise,
    ptx,
    rows,
    tiles,
)
from lanearena.lowering.kernels.base import GRID_LIMITS, KernelCall, Operands, TooLarge, fail

_FAMILIES = (rows, pointwise, gemv, attention, attend, moe, mixture, delta, fused, tiles, argmax)

Launcher = Callable[[KernelOp, Operands], list[KernelCall]]

CALLS: dict[type[KernelOp], Launcher] = {kind: fn for family in _FAMILIES for kind, fn in family.CALLS.items()}
"""Each launch kind's lowering to kernel calls, by the kind's op class."""

TWINS: dict[str, Callable[..., None]] = {name: fn for family in _FAMILIES for name, fn in family.TWINS.items()}
"""Each kernel's numpy twin by the kernel's name: `twin(device, grid, block, *args)`."""


def register(kind: type[KernelOp], launcher: Launcher, ptx_module: str, twins: dict[str, Callable[..., None]]) -> None:
    """Adds the lowering of a launch kind defined outside the package (`docs/adding-a-kind.md`): `launcher` turns
    its op into kernel calls, `ptx_module` is its kernels' PTX (as nvcc compiles them), `twins` their numpy twins by
    kernel name."""
    CALLS[kind] = launcher
    ptx.add_module(kind.name, ptx_module)
    TWINS.update(twins)


def unregister(kind: type[KernelOp], twins: Iterable[str]) -> None:
    """Takes back what `register` added for `kind`."""
    CALLS.pop(kind, None)
    ptx.add_module(kind.name, "")
    for name in twins:
        TWINS.pop(name, None)


def calls(op: KernelOp, at: Operands) -> list[KernelCall]:
    """The kernel calls, in order, that run launch `op` over the operands `at` resolves."""
    lower = CALLS.get(type(op))
    if lower is None:
        raise fail(op, "no kernels for this kind")
    try:
        out = lower(op, at)
    except TooLarge as e:
        raise fail(op, str(e)) from None
    for c in out:
        if any(not 1 <= g <= m for g, m in zip(c.grid, GRID_LIMITS, strict=False)):
            raise fail(op, f"{c.kernel} needs a grid of {c.grid} blocks, past CUDA's {GRID_LIMITS}")
    return out


__all__ = ["CALLS", "TWINS", "KernelCall", "Operands", "calls", "register", "unregister"]
