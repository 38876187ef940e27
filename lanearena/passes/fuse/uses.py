"""What a fusion asks of a step before it merges two launches: who reads a tensor, what runs between two launches,
and, once merged, the tensor's declaration brought in line with what is left of it (gone where nothing touches it,
its forms those still touched)."""

from __future__ import annotations

from collections.abc import Iterator

from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint

from lanearena.dialects.attrs import form_attrs
from lanearena.dialects.base import LaunchOp, TensorDef, tensor_def
from lanearena.dialects.lane import TensorOp, ViewOp
from lanearena.model import Form


def root(value: SSAValue) -> TensorDef:
    """The tensor at the bottom of `value`'s views."""
    t = tensor_def(value)
    while isinstance(t, ViewOp):
        t = tensor_def(t.viewed)
    return t


def users(value: SSAValue, but: Operation) -> list[Operation]:
    """The ops that take `value`, `but` aside, each once, in the order of the step."""
    found = {u.operation for u in value.uses if u.operation is not but}
    return sorted(found, key=_position)


def _position(op: Operation) -> int:
    block = op.parent_block()
    assert block is not None  # a launch of a step
    return block.get_operation_index(op)


def between(first: Operation, last: Operation) -> Iterator[Operation]:
    """The ops strictly between `first` and `last` (nothing where `last` does not come after `first`)."""
    op = first.next_op
    while op is not None and op is not last:
        yield op
        op = op.next_op


def after(first: Operation, last: Operation) -> bool:
    """Whether `last` comes after `first` in their block."""
    return first.parent_block() is last.parent_block() and _position(first) < _position(last)


def unwritten_between(first: Operation, last: Operation, *values: SSAValue) -> bool:
    """Whether no launch between `first` and `last` writes any of `values` (through any alias): what `first` read
    of them is what `last` would read."""
    roots = {root(v) for v in values}
    return not any(
        isinstance(op, LaunchOp) and any(root(v) in roots for v, _, _ in op.writes()) for op in between(first, last)
    )


def unplaced(*ops: Operation) -> bool:
    """Whether the launches take no scratch yet: a placed step's launches are left as they are."""
    return all(isinstance(op, LaunchOp) and not op.buffers for op in ops)


def touched_forms(value: SSAValue) -> set[Form]:
    """The forms the launches read or write tensor `value` in."""
    forms: set[Form] = set()
    for use in value.uses:
        op = use.operation
        if isinstance(op, LaunchOp):
            forms |= {f for v, f in op.reads() if v is value}
            forms |= {f for v, f, _ in op.writes() if v is value}
    return forms


def retire(rewriter: PatternRewriter, value: SSAValue) -> None:
    """After a merge: tensor `value`'s declaration erased where nothing takes it any more, else declaring only the
    forms still touched (a form no launch touches any more is no array of the step)."""
    decl = value.owner
    if not isinstance(decl, TensorOp):
        return
    if not value.uses:
        rewriter.erase(decl)
        return
    if any(isinstance(u.operation, ViewOp) for u in value.uses):
        return  # its views touch it too: left as declared
    forms = [f for f in Form if f in touched_forms(value)]
    if forms and tuple(f.value for f in forms) != decl.forms:
        decl.properties["forms"] = form_attrs([f.value for f in forms])
        rewriter.notify_op_modified(decl)


def hoistable(value: SSAValue, before: Operation) -> bool:
    """Whether `value` is defined before `before`, or by an op of no operands (a tensor's or a weight's declaration)
    that `hoist` can move there."""
    decl = value.owner
    return not isinstance(decl, Operation) or not after(before, decl) or not decl.operands


def hoist(rewriter: PatternRewriter, value: SSAValue, before: Operation) -> SSAValue:
    """`value`, its declaration moved before `before` where it comes after (a launch that now writes or reads it
    there must see it defined)."""
    decl = value.owner
    if not isinstance(decl, Operation) or not after(before, decl):
        return value
    moved = decl.clone()
    rewriter.insert(moved, InsertPoint.before(before))
    rewriter.replace_all_uses_with(value, moved.results[0])
    rewriter.erase(decl)
    return moved.results[0]


def writes(op: Operation, value: SSAValue) -> bool:
    """Whether launch `op` writes tensor `value` itself."""
    return isinstance(op, LaunchOp) and any(v is value for v, _, _ in op.writes())
