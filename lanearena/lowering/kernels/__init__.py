"""The kernel library: for every launch kind, CUDA kernels (the `.cu` files here, compiled to the `.ptx` beside them,
see `ptx`) and their numpy twins with the same arguments, and the calls one launch makes.

`calls(launch, step, at)` turns a launch into kernel calls over the addresses `at` (an `Operands`) gives;
`TWINS[kernel](device, grid, block, *args)` runs a kernel's twin on a `NumpyDevice`."""

from __future__ import annotations

from collections.abc import Callable

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
    rows,
    tiles,
)
from lanearena.lowering.kernels.base import GRID_LIMITS, KernelCall, Operands, TooLarge, check_launch, fail
from lanearena.model import Launch, Step

_FAMILIES = (rows, pointwise, gemv, attention, attend, moe, mixture, delta, fused, tiles, argmax)

CALLS: dict[str, Callable[[Launch, Step, Operands], list[KernelCall]]] = {
    kind: fn for family in _FAMILIES for kind, fn in family.CALLS.items()
}
"""Each launch kind's lowering to kernel calls."""

TWINS: dict[str, Callable[..., None]] = {name: fn for family in _FAMILIES for name, fn in family.TWINS.items()}
"""Each kernel's numpy twin by the kernel's name: `twin(device, grid, block, *args)`."""


def calls(launch: Launch, step: Step, at: Operands) -> list[KernelCall]:
    """The kernel calls, in order, that run `launch` of `step` over the operands `at` resolves."""
    lower = CALLS.get(launch.kind)
    if lower is None:
        raise fail(launch, "no kernels for this kind")
    check_launch(launch)
    try:
        out = lower(launch, step, at)
    except TooLarge as e:
        raise fail(launch, str(e)) from None
    for c in out:
        if any(not 1 <= g <= m for g, m in zip(c.grid, GRID_LIMITS, strict=False)):
            raise fail(launch, f"{c.kernel} needs a grid of {c.grid} blocks, past CUDA's {GRID_LIMITS}")
    return out


__all__ = ["CALLS", "TWINS", "KernelCall", "Operands", "calls"]
