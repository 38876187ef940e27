"""One launch of a kernel kind as an op of a step, from plain tensors: for the tests that run its kernels or read its
scratch without a whole step. The ops are not verified, so that the kernels' own checks are reached."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from xdsl.ir import Block, Region, SSAValue

from lanearena.dialects import lane
from lanearena.dialects.attrs import ELEMENTS, TensorType
from lanearena.model import Form, Numerics, Role, Tensor


def launch_op(
    kind: str,
    ins: Sequence[tuple[Tensor, Form]],
    outs: Sequence[tuple[Tensor, Form]],
    params: Mapping[str, int | float | str],
    numerics: Numerics,
    extra: Sequence[Tensor] = (),
) -> lane.KernelOp:
    """A launch of `kind` reading `ins` and writing `outs` (each a tensor and a form; an output once a form), in a
    step of `numerics` that defines their tensors and `extra` ones (tensors only viewed)."""
    tensors = {t.name: t for t in extra} | {t.name: t for t, _ in (*ins, *outs)}
    values: dict[str, SSAValue] = {}
    ops = []
    for t in sorted(tensors.values(), key=lambda t: t.view_of is not None):
        shape = TensorType(t.shape, ELEMENTS[t.elem])
        forms = [f.value for f in Form if f in t.forms]
        op: lane.TensorDef
        if t.view_of is not None:
            op = lane.ViewOp(t.name, values[t.view_of], t.view_offset, shape, forms)
        elif t.role is Role.COMPUTED:
            op = lane.TensorOp(t.name, shape, forms)
        else:
            op = {Role.INPUT: lane.InputOp, Role.WEIGHT: lane.WeightOp, Role.STATE: lane.StateOp}[t.role](t.name, shape)
        values[t.name] = op.result
        ops.append(op)
    written: dict[str, list[Form]] = {}
    for t, f in outs:
        written.setdefault(t.name, []).append(f)
    launch = lane.KERNEL_OPS[kind].make(
        [(values[t.name], f) for t, f in ins], [(values[n], tuple(fs)) for n, fs in written.items()], params
    )
    lane.StepOp("s", numerics.value, Region(Block([*ops, launch, lane.OutputOp([])])))
    return launch
