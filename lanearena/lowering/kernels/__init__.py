"""The kernel library: for every launch kind, CUDA kernels (the `.cu` files here, compiled to PTX when a device needs
it, see `ptx`) and their numpy twins with the same arguments, and the calls one launch makes.

A kind's launcher is found from its op class (`@lowers(GemvOp, ...)` on the launcher), a kernel's twin from the
kernel (`@kernel` on the twin, named as the kernel): `calls(op, at)` turns a launch op into kernel calls over the
addresses `at` (an `Operands`) gives; `twin_of(kernel)(device, grid, block, *args)` runs a kernel's twin on a
`NumpyDevice`. A kind of one's own registers the same way (`docs/adding-a-kind.md`)."""

from __future__ import annotations

from collections.abc import Callable

from lanearena.dialects.kernel import KernelOp
from lanearena.lowering.kernels import (  # noqa: F401  # each family registers its launchers and twins
    argmax,
    attend,
    attention,
    delta,
    fused,
    fused_products,
    gemv,
    mixture,
    mixture_twins,
    moe,
    pointwise,
    rope_attention,
    rows,
    sample,
    source,
    tiles,
)
from lanearena.lowering.kernels.base import (
    GRID_LIMITS,
    KERNELS,
    LAUNCHERS,
    KernelCall,
    Launcher,
    Operands,
    TooLarge,
    fail,
    kernel,
    lowers,
)


def launcher(kind: type[KernelOp]) -> Launcher | None:
    """The launcher of launch kind `kind` (or of the nearest of its bases that has one), None where none lowers it."""
    return next((LAUNCHERS[c] for c in kind.__mro__ if c in LAUNCHERS), None)


def twin_of(name: str) -> Callable[..., None] | None:
    """The numpy twin of kernel `name` (a variant's is its kernel's: the same semantics), None where no kernel of
    that name has one."""
    try:
        return KERNELS.get(source.variant(name)[0])
    except KeyError:  # no kernel's name, nor a variant's
        return None


def calls(op: KernelOp, at: Operands) -> list[KernelCall]:
    """The kernel calls, in order, that run launch `op` over the operands `at` resolves."""
    lower = launcher(type(op))
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


__all__ = ["KernelCall", "Operands", "calls", "kernel", "launcher", "lowers", "twin_of"]
