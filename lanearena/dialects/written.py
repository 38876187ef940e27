"""The step's dataflow check that the `lane.step` verifier runs: every computed tensor read, and every output, is
written by a launch of the step. Over the ops of the step's block, through the tensor and launch base classes
(`dialects.base`), so that the lane dialect that runs it is not imported here."""

from __future__ import annotations

from xdsl.ir import Block, SSAValue
from xdsl.traits import IsTerminator

from lanearena.dialects.base import LaunchOp, TensorDef, tensor_def, tensor_type
from lanearena.dialects.located import located
from lanearena.model import Form


def check_written(step: str, block: Block) -> None:
    """Every computed tensor that `block` (the body of `step`) reads, and every output, is written by some launch of
    it (before or after the read: a read before the write is legal, it only keeps the array out of the arena). A
    write through any view counts where the elements overlap, in the same form; views are followed whatever their
    offset, since whether a quantized view shares its tensor's array depends on the block size the pass is given."""
    root: dict[SSAValue, tuple[SSAValue, int]] = {}  # a tensor's root tensor, and its first element there
    launches: list[LaunchOp] = []
    for child in block.ops:
        if isinstance(child, TensorDef):
            source = child.viewed
            base, offset = root.get(source, (source, 0)) if source is not None else (child.result, 0)
            root[child.result] = (base, offset + child.view_offset)
        elif isinstance(child, LaunchOp):
            launches.append(child)

    def span(v: SSAValue) -> tuple[SSAValue, int, int]:
        base, start = root[v]
        return base, start, start + tensor_type(v).length

    written: dict[tuple[SSAValue, Form], list[tuple[int, int]]] = {}
    for launch in launches:
        for v, form, _ in launch.writes():
            base, start, end = span(v)
            written.setdefault((base, form), []).append((start, end))

    def is_written(v: SSAValue, form: Form) -> bool:
        base, start, end = span(v)
        return any(s < end and start < e for s, e in written.get((base, form), ()))

    for launch in launches:
        for v, form in launch.reads():
            if tensor_def(v).computed and not is_written(v, form):
                raise located(
                    launch,
                    f"{launch.name} reads the {form.value} form of '{tensor_def(v).tensor_name}', which no launch of "
                    f"{step} writes: a computed tensor is written by the step (an input is given to it)",
                )
    output = block.last_op  # the step's terminator, lane.output
    if output is not None and output.has_trait(IsTerminator):
        for v in output.operands:
            if tensor_def(v).computed and not is_written(v, Form.PLAIN):
                raise located(output, f"lane.output '{tensor_def(v).tensor_name}': no launch of {step} writes it")
