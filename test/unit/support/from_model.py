"""A plain step (`lanearena.model.Step`) as the `lane.step` it describes, built with the `StepBuilder`: so a step
made as plain data (by a test's generator) goes through the real parser, verifiers and passes. The tests' alone
(so it is here, not in the package): the passes and the lowering never build a step again from plain data, they
read and rewrite the IR.

Launches of a kernel kind become that kind's op (`lane.gemv`, ...), whose touches and scratch follow from its
parameters; any other launch becomes a generic `lane.launch` with its writes and scratch spelled out."""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import SSAValue

from lanearena.dialects.kinds import KERNEL_OPS
from lanearena.frontend.builder import StepBuilder
from lanearena.model import Form, Launch, Role, Step, Tensor

_FORMS = tuple(Form)
"""The order forms are written in: plain, then quant."""


def module_of(step: Step) -> ModuleOp:
    """The verified module holding `step` as a `lane.step`; a `ValueError` naming the tensor or launch where the
    step is not one the dialect accepts."""
    b = StepBuilder(step.name, step.numerics)
    values: dict[str, SSAValue] = {}
    for t in _definition_order(step):
        values[t.name] = _define(b, t, values)
    for launch in step.launches:
        if launch.kind in KERNEL_OPS:
            _kernel(b, launch, values)
        else:
            _generic(b, launch, values)
    b.output(*(values[name] for name in step.tensors if name in step.outputs))
    return b.module()


def _definition_order(step: Step) -> list[Tensor]:
    """The step's tensors in their order, each view after the tensor it views."""
    done: dict[str, Tensor] = {}

    def visit(t: Tensor, path: tuple[str, ...]) -> None:
        if t.name in done:
            return
        if t.view_of is not None:
            if t.view_of in path:
                raise ValueError(f"step '{step.name}': view cycle through '{t.name}'")
            if t.view_of not in step.tensors:
                raise ValueError(f"step '{step.name}': view '{t.name}' of unknown tensor '{t.view_of}'")
            visit(step.tensors[t.view_of], (*path, t.name))
        done[t.name] = t

    for t in step.tensors.values():
        visit(t, ())
    return list(done.values())


def _forms(forms) -> tuple[str, ...]:
    return tuple(f.value for f in _FORMS if f in forms)


def _define(b: StepBuilder, t: Tensor, values: dict[str, SSAValue]) -> SSAValue:
    if t.view_of is not None:
        return b.view(t.name, values[t.view_of], t.view_offset, t.shape, _forms(t.forms))
    if t.role is Role.COMPUTED:
        return b.tensor(t.name, t.shape, t.elem, _forms(t.forms))
    define = {Role.INPUT: b.input, Role.WEIGHT: b.weight, Role.STATE: b.state}[t.role]
    return define(t.name, t.shape, t.elem)


def _written_forms(launch: Launch, name: str) -> tuple[str, ...]:
    return _forms({w.form for w in launch.writes if w.tensor == name})


def _kernel(b: StepBuilder, launch: Launch, values: dict[str, SSAValue]) -> None:
    """A launch of a kernel kind: its operands in the kind's order, each read in the form the launch reads it."""
    read_forms: dict[str, list[Form]] = {}
    for r in launch.reads:
        read_forms.setdefault(r.tensor, []).append(r.form)
    ins = []
    for name in launch.ins:
        forms = read_forms.get(name) or [Form.PLAIN]
        ins.append((values[name], forms.pop(0) if len(forms) > 1 else forms[0]))
    outs = [(values[name], _written_forms(launch, name)) for name in launch.outs]
    b.launch(launch.kind, ins, outs, **launch.params)


def _generic(b: StepBuilder, launch: Launch, values: dict[str, SSAValue]) -> None:
    """A launch of any other kernel: every read and write as the launch spells it, and its scratch."""
    ins = [(values[r.tensor], r.form) for r in launch.reads]
    outs = [(values[w.tensor], w.form, w.how) for w in launch.writes]
    b.generic(launch.kind, ins, outs, launch.scratch)
