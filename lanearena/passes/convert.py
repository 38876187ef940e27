"""Between the IR and plain data: a `lane.step` as a `model.Step`, its `arena` ops as an `ArenaPlan`, and a plan
written back as `arena` ops."""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue

from lanearena import kinds
from lanearena.analysis.plan import ArenaPlan, Counter, OwnArray, PlacedArray, PlacedScratch
from lanearena.dialects import arena, lane
from lanearena.model import Form, Launch, Numerics, Other, Part, Role, Scratch, Step, Tensor, Touch, Whole, Write

ARENA_OPS = (arena.AllocOp, arena.ArrayOp, arena.ScratchOp, arena.CounterOp, arena.OwnOp)


def steps(module: ModuleOp) -> list[lane.StepOp]:
    """Every `lane.step` in `module`, in order."""
    return [op for op in module.walk() if isinstance(op, lane.StepOp)]


def tensor_of(op: lane.TensorDef) -> Tensor:
    """The tensor a tensor op defines."""
    t = op.result.type
    role = Role(op.ROLE)
    forms = frozenset(Form(f) for f in op.forms)
    if isinstance(op, lane.ViewOp):
        return Tensor(op.tensor_name, t.dims, t.elem, role, forms, op.source.owner.tensor_name, op.offset.data)
    return Tensor(op.tensor_name, t.dims, t.elem, role, forms)


def _how(attr) -> Whole | Part | Other:
    if isinstance(attr, lane.PartAttr):
        return Part(attr.pitch.data, attr.start.data, attr.width.data)
    return Whole() if attr.data == "whole" else Other()


def launch_of(op: lane.LaunchOp, tensors: dict[str, Tensor], numerics: Numerics, index: int) -> Launch:
    """The launch a launch op is: its touches and scratch, derived from its kind or spelled out."""
    where = f"launch #{index} ({op.name})"
    name = lambda v: v.owner.tensor_name  # noqa: E731
    if isinstance(op, lane.KernelOp):
        ins = [(tensors[name(v)], Form(f)) for v, f in op.reads()]
        outs = [(tensors[name(v)], Form(f)) for v, forms in op.writes() for f in forms]
        return kinds.launch(op.KIND.name, ins, outs, op.param_values(), numerics, where)
    assert isinstance(op, lane.GenericLaunchOp)
    writes = tuple(
        Write(name(v), Form(f), _how(how)) for (v, forms), how in zip(op.writes(), op.out_how.data) for f in forms
    )
    return Launch(
        kind=op.kernel.data,
        ins=tuple(name(v) for v in op.ins),
        outs=tuple(dict.fromkeys(name(v) for v in op.outs)),
        reads=tuple(dict.fromkeys(Touch(name(v), Form(f)) for v, f in op.reads())),
        writes=writes,
        scratch=tuple(Scratch(s.tag.data, s.elem.data, s.bytes.data, bool(s.counter.data)) for s in op.scratch.data),
        where=where,
    )


def step_of(op: lane.StepOp) -> tuple[Step, dict[str, SSAValue]]:
    """The step a `lane.step` is, and each tensor's SSA value by name."""
    numerics = op.step_numerics
    tensors: dict[str, Tensor] = {}
    values: dict[str, SSAValue] = {}
    launches: list[Launch] = []
    outputs: set[str] = set()
    for child in op.body.block.ops:
        if isinstance(child, lane.TensorDef):
            tensors[child.tensor_name] = tensor_of(child)
            values[child.tensor_name] = child.result
        elif isinstance(child, lane.LaunchOp):
            launches.append(launch_of(child, tensors, numerics, len(launches)))
        elif isinstance(child, lane.OutputOp):
            outputs.update(v.owner.tensor_name for v in child.values)
    return Step(op.sym_name.data, numerics, tensors, launches, frozenset(outputs)), values


def plan_of(op: lane.StepOp) -> ArenaPlan | None:
    """The arena a placed step holds, or None where the step has not been placed."""
    allocs = [c for c in op.body.block.ops if isinstance(c, arena.AllocOp)]
    if not allocs:
        return None
    a = allocs[0]
    plan = ArenaPlan(a.bytes.data, a.align.data, lower_bound=a.lower_bound.data, algorithm=a.algorithm.data)
    for c in op.body.block.ops:
        if isinstance(c, arena.ArrayOp):
            plan.arrays.append(PlacedArray(c.tensor_name, c.array_form, c.offset.data, c.bytes.data, c.first.data,
                                           c.last.data))
        elif isinstance(c, arena.ScratchOp):
            plan.scratch.append(PlacedScratch(c.launch.data, c.tag.data, c.offset.data, c.bytes.data))
        elif isinstance(c, arena.CounterOp):
            plan.counters.append(Counter(c.launch.data, c.tag.data, c.bytes.data))
        elif isinstance(c, arena.OwnOp):
            plan.own.append(OwnArray(c.tensor_name, c.array_form, c.bytes.data, c.reason.data))
    return plan


def write_plan(op: lane.StepOp, plan: ArenaPlan, values: dict[str, SSAValue]) -> None:
    """Replaces the step's `arena` ops with `plan`'s, at the end of its body."""
    block = op.body.block
    for c in [c for c in block.ops if isinstance(c, ARENA_OPS)]:
        block.erase_op(c)
    new: list[Operation] = [arena.AllocOp(plan.bytes, plan.align, plan.lower_bound, plan.algorithm)]
    new += [arena.ArrayOp(values[a.tensor], a.form.value, a.offset, a.bytes, a.first, a.last) for a in plan.arrays]
    new += [arena.ScratchOp(s.launch, s.tag, s.offset, s.bytes) for s in plan.scratch]
    new += [arena.CounterOp(c.launch, c.tag, c.bytes) for c in plan.counters]
    new += [arena.OwnOp(values[o.tensor], o.form.value, o.bytes, o.reason) for o in plan.own]
    block.add_ops(new)

