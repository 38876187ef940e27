"""The `lane` dialect: one step of a model as tensors and launches.

A `lane.step` holds the step's tensors (inputs, weights, state kept across steps, computed tensors and views of
them), its launches in order, and its outputs. A launch reads and writes tensors, each through one of its arrays
(`plain` or `quant`); a kernel-kind op (`lane.gemv`, `lane.norm`, ...) derives how it writes and which scratch it asks
for from its parameters (`lanearena.kinds`), a generic `lane.launch` spells them out."""

from __future__ import annotations

from xdsl.dialects.builtin import (
    StringAttr,
    SymbolNameConstraint,
)
from xdsl.ir import (
    Dialect,
    Region,
    SSAValue,
)
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    prop_def,
    region_def,
    traits_def,
)
from xdsl.traits import IsolatedFromAbove, NoTerminator, SymbolOpInterface
from xdsl.utils.exceptions import VerifyException

from lanearena.dialects.attrs import FormAttr, NumericsAttr, WriteAttr, WriteKind
from lanearena.dialects.lane_launches import KERNEL_OPS, GenericLaunchOp, KernelOp, LaunchOp, PartAttr, ScratchAttr
from lanearena.dialects.lane_tensors import (
    ELEMENTS,
    ComputedDef,
    InputOp,
    OutputOp,
    StateOp,
    TensorDef,
    TensorOp,
    TensorType,
    ViewOp,
    WeightOp,
    _length,
    tensor_def,
    tensor_type,
)
from lanearena.dialects.located import error_at, located_op, where
from lanearena.model import Form, Numerics

__all__ = [
    "ELEMENTS",
    "KERNEL_OPS",
    "LANE",
    "ComputedDef",
    "FormAttr",
    "GenericLaunchOp",
    "InputOp",
    "KernelOp",
    "LaunchOp",
    "NumericsAttr",
    "OutputOp",
    "PartAttr",
    "ScratchAttr",
    "StateOp",
    "StepOp",
    "TensorDef",
    "TensorOp",
    "TensorType",
    "ViewOp",
    "WeightOp",
    "WriteAttr",
    "WriteKind",
    "tensor_def",
]


# --- The step ----------------------------------------------------------------------------------------------------


@located_op
@irdl_op_definition
class StepOp(IRDLOperation):
    """`lane.step @decode numerics(int8) { ... lane.output %y : ... }`: one step of a model, a symbol, ending with
    its `lane.output`."""

    name = "lane.step"
    sym_name = prop_def(SymbolNameConstraint())
    numerics = prop_def(NumericsAttr)
    body = region_def("single_block")
    assembly_format = "$sym_name `numerics` `(` $numerics `)` attr-dict-with-keyword $body"
    # The step's verifier requires lane.output last, with the step's location in its message; NoTerminator keeps
    # xDSL's own check (an unlocated message about whichever op ends the block) from running first.
    traits = traits_def(NoTerminator(), IsolatedFromAbove(), SymbolOpInterface())

    def __init__(self, name: str, numerics: str, body: Region):
        super().__init__(
            properties={"sym_name": StringAttr(name), "numerics": NumericsAttr(Numerics(numerics))}, regions=[body]
        )

    @property
    def step_numerics(self) -> Numerics:
        return self.numerics.data

    def verify_(self) -> None:
        step = f"lane.step @{self.sym_name.data}"
        block = self.body.block
        if block.args:
            raise VerifyException(f"{step}: its body takes no arguments; tensors are defined by lane ops")
        if not isinstance(block.last_op, OutputOp):
            raise VerifyException(
                f"{step}: its body ends with lane.output (the step's terminator), even with no tensors to hand back"
            )
        _verify_unique_symbol(self)
        names: dict[str, TensorDef] = {}
        defined: set[SSAValue] = set()
        for op in block.ops:
            if not isinstance(op, (TensorDef, LaunchOp, OutputOp)) and op.dialect_name() != "arena":
                raise error_at(op, f"{step} holds lane and arena ops only, not {op.name}")
            for v in op.operands:
                if v not in defined:
                    raise error_at(op, f"{op.name} uses a tensor that no op before it in {step} defines")
            defined.update(op.results)
            if isinstance(op, TensorDef):
                if op.tensor_name in names:
                    raise error_at(op, f"{step}: tensor '{op.tensor_name}' defined twice")
                names[op.tensor_name] = op
        _verify_written(step, block)
        _verify_arena(step, block)


def _verify_unique_symbol(op: StepOp) -> None:
    """No step before `op` in its block has its name: the second of two is the one at fault, at its location (the
    symbol table's own check, run after the steps verify, names no line)."""
    parent = op.parent
    if parent is None:
        return
    for other in parent.ops:
        if other is op:
            return
        if isinstance(other, StepOp) and other.sym_name == op.sym_name:
            first = where(other).rstrip(": ") or "an earlier op"
            raise error_at(op, f"lane.step @{op.sym_name.data} is defined twice, first at {first}")


def _verify_written(step: str, block) -> None:
    """Every computed tensor the step reads, and every output, is written by some launch of the step (before or
    after the read: a read before the write is legal, it only keeps the array out of the arena). A write through
    any view counts where the elements overlap, in the same form; views are followed whatever their offset, since
    whether a quantized view shares its tensor's array depends on the block size the pass is given."""
    root: dict[SSAValue, tuple[SSAValue, int]] = {}  # a tensor's root tensor, and its first element there
    for op in block.ops:
        if isinstance(op, ViewOp):
            base, offset = root.get(op.source, (op.source, 0))
            root[op.result] = (base, offset + op.view_offset)
        elif isinstance(op, TensorDef):
            root[op.result] = (op.result, 0)

    def span(v: SSAValue) -> tuple[SSAValue, int, int]:
        base, start = root[v]
        return base, start, start + _length(tensor_type(v))

    written: dict[tuple[SSAValue, str], list[tuple[int, int]]] = {}
    for op in block.ops:
        if isinstance(op, LaunchOp):
            for v, forms in op.writes():
                base, start, end = span(v)
                for f in forms:
                    written.setdefault((base, f), []).append((start, end))

    def is_written(v: SSAValue, form: str) -> bool:
        base, start, end = span(v)
        return any(s < end and start < e for s, e in written.get((base, form), ()))

    for op in block.ops:
        if isinstance(op, LaunchOp):
            for v, form in op.reads():
                if isinstance(v.owner, ComputedDef) and not is_written(v, form):
                    raise error_at(
                        op,
                        f"{op.name} reads the {form} form of '{v.owner.tensor_name}', which no launch of {step} "
                        "writes: a computed tensor is written by the step (an input is given to it)",
                    )
        elif isinstance(op, OutputOp):
            for v in op.values:
                if isinstance(v.owner, ComputedDef) and not is_written(v, Form.PLAIN.value):
                    raise error_at(op, f"lane.output '{v.owner.tensor_name}': no launch of {step} writes it")


def _verify_arena(step: str, block) -> None:
    """The step's placement: at most one arena.alloc, before every op that uses it; each scratch or counter
    buffer taken by exactly one launch, with tags distinct within a launch."""
    from lanearena.dialects import arena  # the arena dialect is built on this one

    allocs = [op for op in block.ops if isinstance(op, arena.AllocOp)]
    if len(allocs) > 1:
        raise error_at(allocs[1], f"{step}: more than one arena.alloc (a step has one arena)")
    for op in block.ops:
        if isinstance(op, (arena.ScratchOp, arena.CounterOp)):
            users = [u.operation for u in op.result.uses]
            if len(users) != 1 or not isinstance(users[0], LaunchOp):
                raise error_at(
                    op,
                    f'{op.name} "{op.tag.data}": taken by {len(users)} ops, but a scratch or '
                    "counter buffer is one launch's",
                )
        elif isinstance(op, LaunchOp) and op.buffers:
            owners = [b.owner for b in op.buffers]
            buffers = [o for o in owners if isinstance(o, (arena.ScratchOp, arena.CounterOp))]
            if len(buffers) != len(owners):
                raise error_at(op, f"{op.name}: scratch(...) takes arena.scratch and arena.counter values only")
            tags = [b.tag.data for b in buffers]
            if len(set(tags)) != len(tags):
                raise error_at(op, f"{op.name}: scratch tags taken twice ({', '.join(tags)})")


LANE = Dialect(
    "lane",
    [InputOp, WeightOp, StateOp, TensorOp, ViewOp, OutputOp, GenericLaunchOp, StepOp, *KERNEL_OPS.values()],
    [TensorType, PartAttr, ScratchAttr, NumericsAttr, FormAttr, WriteAttr],
)
