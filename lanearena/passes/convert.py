"""Between the IR and plain data: a `lane.step` as a `model.Step`, a placed step's arena read back as an
`ArenaPlan`, and a plan written into the step (`place_step`: the step rewritten onto its arena)."""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from lanearena.analysis.arena_problem import bytes_of, lives
from lanearena.analysis.plan import ArenaPlan, Counter, OwnArray, PlacedArray, PlacedScratch
from lanearena.dialects import arena, lane
from lanearena.dialects.base import tensor_def
from lanearena.model import QBLOCK, Form, Launch, Numerics, Reason, Role, Step, Tensor, Touch, Write


def steps(module: ModuleOp) -> list[lane.StepOp]:
    """Every `lane.step` in `module`, in order."""
    return [op for op in module.walk() if isinstance(op, lane.StepOp)]


def tensor_of(op: lane.TensorDef) -> Tensor:
    """The tensor a tensor op defines."""
    t = op.result.type
    forms = frozenset(Form(f) for f in op.forms)
    viewed = op.viewed
    if viewed is not None:
        return Tensor(
            op.tensor_name, t.dims, t.elem, Role.COMPUTED, forms, tensor_def(viewed).tensor_name, op.view_offset
        )
    return Tensor(op.tensor_name, t.dims, t.elem, op.ROLE, forms)


def launch_of(op: lane.LaunchOp, numerics: Numerics, index: int) -> Launch:
    """The launch a launch op is, as plain data: what it touches and asks for, from the op's own interface."""

    def name(v: SSAValue) -> str:
        return tensor_def(v).tensor_name

    if isinstance(op, lane.KernelOp):
        ins = tuple(name(op.operand(n)) for n in op.ins())
        outs = tuple(dict.fromkeys(name(op.operand(n)) for n in op.WRITES))
        params = op.params
    else:
        assert isinstance(op, lane.GenericLaunchOp)  # the two kinds of launch
        ins = tuple(name(v) for v in op.ins)
        outs = tuple(dict.fromkeys(name(v) for v in op.outs))
        params = {}
    return Launch(
        kind=op.kind,
        ins=ins,
        outs=outs,
        params=params,
        reads=tuple(Touch(name(v), f) for v, f in op.reads()),
        writes=tuple(Write(name(v), f, how) for v, f, how in op.writes()),
        scratch=tuple(op.scratch(numerics)),
        where=f"launch #{index} ({op.name})",
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
            launches.append(launch_of(child, numerics, len(launches)))
        elif isinstance(child, lane.OutputOp):
            outputs.update(tensor_def(v).tensor_name for v in child.values)
    return Step(op.sym_name.data, numerics, tensors, launches, frozenset(outputs)), values


def alloc_of(op: lane.StepOp) -> arena.AllocOp | None:
    """The step's arena, where it has been placed."""
    return next((c for c in op.body.block.ops if isinstance(c, arena.AllocOp)), None)


def plan_of(op: lane.StepOp, qblock: int = QBLOCK, step: Step | None = None) -> ArenaPlan | None:
    """The arena a placed step is written on, read back from its ops, or None where the step has not been placed.
    Offsets, scratch, counters and reasons are the IR's; the bytes of an array follow from its tensor, and its
    live launches (for reports) from the step's launches. `step` is `step_of(op)`, where the caller has it."""
    alloc = alloc_of(op)
    if alloc is None:
        return None
    if step is None:
        step, _ = step_of(op)
    align = alloc.align.value.data
    plan = ArenaPlan(
        alloc.nbytes.value.data, align, lower_bound=alloc.lower_bound.value.data, algorithm=alloc.algorithm.data
    )
    two = step.numerics.two_words
    life = lives(step, qblock)
    launch = 0
    for c in op.body.block.ops:
        if isinstance(c, arena.TensorOp):
            t = step.tensors[c.tensor_name]
            for form, offset in c.offsets.items():
                span = life.get((t.name, form))
                first, last = (span.first, span.last) if span else (0, 0)
                plan.arrays.append(PlacedArray(t.name, form, offset, bytes_of(t, form, two, align), first, last))
        if isinstance(c, lane.TensorDef):
            t = step.tensors[c.tensor_name]
            plan.own += [OwnArray(t.name, f, bytes_of(t, f, two, align), r) for f, r in c.own.items()]
        elif isinstance(c, lane.LaunchOp):
            for b in c.buffers:
                owner = b.owner
                if isinstance(owner, arena.ScratchOp):
                    plan.scratch.append(
                        PlacedScratch(launch, owner.tag.data, owner.offset.value.data, owner.nbytes.value.data)
                    )
                elif isinstance(owner, arena.CounterOp):
                    plan.counters.append(Counter(launch, owner.tag.data, owner.nbytes.value.data))
            launch += 1
    return plan


def place_step(op: lane.StepOp, step: Step, plan: ArenaPlan) -> None:
    """Rewrites the unplaced step `op` (which is `step`) onto its arena as `plan` places it, through xDSL's
    `Rewriter`, each op that changes replaced by a new one: the arena first, each tensor with a placed array defined
    on it (`arena.tensor`), the arrays left out marked with why, and each launch taking its scratch and counters,
    defined just before it."""
    block = op.body.block
    the_arena = arena.AllocOp(plan.bytes, plan.align, plan.lower_bound, plan.algorithm)
    Rewriter.insert_op(the_arena, InsertPoint.at_start(block))
    offsets: dict[str, dict[Form, int]] = {}
    for a in plan.arrays:
        offsets.setdefault(a.tensor, {})[a.form] = a.offset
    own: dict[str, dict[Form, Reason]] = {}
    for o in plan.own:
        own.setdefault(o.tensor, {})[o.form] = o.reason
    scratch = {(s.launch, s.tag): s for s in plan.scratch}
    counters = {(c.launch, c.tag): c for c in plan.counters}
    launches = iter(enumerate(step.launches))
    for child in list(block.ops):
        if isinstance(child, lane.TensorDef) and child.tensor_name in offsets:
            assert isinstance(child, lane.ComputedDef)  # only a computed tensor's arrays are placed
            name = child.tensor_name
            placed = arena.TensorOp(
                child.tensor, the_arena.result, child.result.type, child.forms_, offsets[name], own.get(name, {})
            )
            placed.location = child.location
            Rewriter.replace_op(child, placed)
        elif isinstance(child, lane.TensorDef) and child.tensor_name in own:
            Rewriter.replace_op(child, child.owning(own[child.tensor_name]))
        elif isinstance(child, lane.LaunchOp):
            i, launch = next(launches)
            if not launch.scratch:
                continue
            made: list[arena.ScratchOp | arena.CounterOp] = []
            for s in launch.scratch:
                if s.counter:
                    made.append(arena.CounterOp(s.tag, counters[(i, s.tag)].bytes))
                else:
                    p = scratch[(i, s.tag)]
                    made.append(arena.ScratchOp(s.tag, the_arena.result, p.offset, p.bytes))
            Rewriter.replace_op(child, [*made, child.taking([m.result for m in made])])
