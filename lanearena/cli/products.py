"""What a step of int8 numerics multiplies in f32: the products whose k 32 does not cut (their weights f32, as the
step declares them), said on stderr and kept in a run's report."""

from __future__ import annotations

import sys

from lanearena.dialects.base import step_numerics
from lanearena.dialects.kernel import KernelOp
from lanearena.dialects.kinds.common import works_in_blocks
from lanearena.model import QBLOCK, Numerics


def f32_products(module) -> dict[str, dict[str, int | list[int]]]:
    """Where a step of int8 numerics multiplies some products in f32 (their weights f32, as the step declares them,
    where a k of theirs is no whole number of Q8_0 blocks): how many of its products, and the k that 32 does not cut
    among theirs (a mixture's widths are its matrices' rows), said on stderr too and kept under `f32_products` in the
    report; nothing where every product reads int8 or the step is not int8."""
    products = [op for op in module.walk() if _is_product(op) and (step_numerics(op) or Numerics.F32).quantized]
    plain = [op for op in products if not works_in_blocks(op)]
    if not plain:
        return {}
    ks = sorted({k for op in plain for n in _matrices(op) if (k := op.dims(n)[-1]) % QBLOCK})
    whole = [op.tensor(n).tensor_name for op in plain if not _cut(op) for n in _matrices(op)]
    why = [f"k {', '.join(map(str, ks))} not a multiple of {QBLOCK}"] if ks else []
    if whole:  # rows of whole blocks that the step still reads in f32 (a delta rule's heads under 32 values)
        named = ", ".join(whole[:4]) + (f" and {len(whole) - 4} more" if len(whole) > 4 else "")
        why.append(f"the step keeps {named} in f32")
    print(f"note: int8: {len(plain)} of {len(products)} products run in f32 ({'; '.join(why)})", file=sys.stderr)
    return {"f32_products": {"count": len(plain), "of": len(products), "k": ks}}


def _cut(op: KernelOp) -> bool:
    """Whether a k of product `op`'s matrices is no whole number of Q8_0 blocks."""
    return any(op.dims(n)[-1] % QBLOCK for n in _matrices(op))


def _matrices(op: KernelOp) -> list[str]:
    """The weight matrices of launch `op` (none but weights its kernels may take as Q8_0)."""
    return [n for n in op.WEIGHTS if n not in op.F32_WEIGHTS and n not in op.UNQUANTIZED]


def _is_product(op) -> bool:
    """Whether `op` multiplies an activation `x` by weight matrices (an embedding's gather has a matrix, no `x`)."""
    return isinstance(op, KernelOp) and bool(_matrices(op)) and "x" in op.operand_names()
