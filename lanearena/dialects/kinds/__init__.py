"""The launch kinds of lanearena's kernel library, one op class each (`lane.gemv`, `lane.norm`, ...): the class is
the kind's definition (its operands, parameters, shape checks and scratch; `docs/adding-a-kind.md`). Its kernels
and their numpy twins are in `lowering.kernels`, found by the kind's name."""

from __future__ import annotations

from lanearena.dialects.kernel import KernelOp
from lanearena.dialects.kinds import attention, fused_attention, fused_products, mixtures, products, recurrent, rows

KERNEL_OPS: dict[str, type[KernelOp]] = {
    op.name.split(".", 1)[1]: op
    for family in (rows, products, fused_products, attention, fused_attention, mixtures, recurrent)
    for op in family.OPS
}
"""The op class of each kind, by the kind's name."""
