"""The lives of a function's `memref.alloc`s, from op order: which allocations may share one arena and over which op
positions each is live, and why each of the others keeps its own allocation. IR in, plain intervals out; nothing is
rewritten here.

Every op of the function gets a position in pre-order, so the ops of a region op's regions come right after it. An
allocation lives from its position to its last use through any alias; a use nested in a region op of the
allocation's block is a use at that region op's last position (the region may run again, or a loop may carry the
bytes to its next iteration). An allocation inside a loop body therefore lives within one run of the body: it is
allocated anew on every iteration and, not escaping, holds nothing across iterations, while a buffer live across the
loop covers every position of the body and so shares no byte with it."""

from __future__ import annotations

from dataclasses import dataclass
from math import prod

from xdsl.dialects import affine, func, gpu, memref, scf
from xdsl.dialects.builtin import (
    AnyFloat,
    ComplexType,
    IndexType,
    IntegerType,
    MemRefType,
    NoneAttr,
    VectorType,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.traits import IsTerminator

ALIASES: dict[type[Operation], str] = {
    memref.SubviewOp: "source",
    memref.ViewOp: "source",
    memref.CastOp: "source",
    memref.ReinterpretCastOp: "source",
    memref.CollapseShapeOp: "src",
    memref.ExpandShapeOp: "src",
}
"""The ops whose result views the bytes of one operand (named here): a use of the result is a use of the operand."""

SEQUENTIAL = (scf.ForOp, scf.WhileOp, scf.IfOp, scf.IndexSwitchOp, scf.ExecuteRegionOp, affine.ForOp, affine.IfOp)
"""Region ops that run their regions one at a time, so an allocation inside them may go into the function's arena.
Inside any other region op (`scf.parallel`, `gpu.launch`...) copies of one allocation may be live at once."""

INDEX_BYTES = 8
"""Bytes of an `index` element (MLIR's default data layout)."""

ARENA_ATTR = "lanearena.bytes"
"""The attribute that marks an arena made by `memref-arena-place` (its bytes): never placed again."""


@dataclass(frozen=True)
class Life:
    """An allocation of `size` bytes that may go into the arena, live over the positions `[lower, upper)`;
    `deallocs` are the `memref.dealloc`s of it (through any alias) that the arena makes redundant."""

    alloc: memref.AllocOp
    size: int
    lower: int
    upper: int
    deallocs: tuple[memref.DeallocOp, ...]


@dataclass(frozen=True)
class Kept:
    """An allocation that keeps its own allocation, and why."""

    alloc: memref.AllocOp
    reason: str


@dataclass(frozen=True)
class FunctionLives:
    """The allocations of one function that may share an arena, and those that may not."""

    lives: list[Life]
    kept: list[Kept]


def element_bytes(element: Attribute) -> int | None:
    """Bytes of one element of type `element` in memory, None for a type without a whole number of bytes."""
    if isinstance(element, IndexType):
        return INDEX_BYTES
    if isinstance(element, IntegerType | AnyFloat):
        width = element.bitwidth
        return width // 8 if width % 8 == 0 else None
    return None


def function_lives(function: func.FuncOp, align: int) -> FunctionLives:
    """The lives of `function`'s allocations in an arena whose offsets are multiples of `align`: an allocation that
    needs an alignment (its `alignment`, else its element's bytes) that does not divide `align` keeps its own."""
    allocs = [op for op in function.walk() if isinstance(op, memref.AllocOp) and ARENA_ATTR not in op.attributes]
    if len(function.body.blocks) > 1:
        return FunctionLives([], [Kept(a, "the function has more than one block") for a in allocs])
    positions, ends = _positions(function)
    lives: list[Life] = []
    kept: list[Kept] = []
    for alloc in allocs:
        size, reason = _placeable(alloc, function, align)
        if reason is None:
            life = _life(alloc, positions, ends)
            if isinstance(life, str):
                reason = life
            else:
                last, deallocs = life
                lives.append(Life(alloc, size, positions[alloc], last + 1, deallocs))
                continue
        kept.append(Kept(alloc, reason))
    return FunctionLives(lives, kept)


def _positions(function: func.FuncOp) -> tuple[dict[Operation, int], dict[Operation, int]]:
    """Each op's position in pre-order, and the last position within it (its own for an op without regions)."""
    positions: dict[Operation, int] = {}
    for i, op in enumerate(function.walk()):
        positions[op] = i
    ends: dict[Operation, int] = {}
    for op in function.walk(reverse=True, region_first=True):
        ends[op] = max([positions[op]] + [ends[o] for r in op.regions for b in r.blocks for o in b.ops])
    return positions, ends


def _placeable(alloc: memref.AllocOp, function: func.FuncOp, align: int) -> tuple[int, str | None]:
    """The bytes of `alloc` and None when its type and place let it go into the arena, else why not."""
    kind = alloc.memref.type
    assert isinstance(kind, MemRefType)
    if alloc.dynamic_sizes or alloc.symbol_operands or any(d < 0 for d in kind.get_shape()):
        return 0, "dynamic sizes"
    if not isinstance(kind.layout, NoneAttr):
        return 0, "a layout other than the identity"
    if not isinstance(kind.memory_space, NoneAttr):
        return 0, "a memory space other than the default"
    width = element_bytes(kind.get_element_type())
    if width is None:
        return 0, f"element type {kind.get_element_type()} has no whole number of bytes"
    size = prod(kind.get_shape()) * width
    if size == 0:
        return 0, "no bytes"
    need = width if alloc.alignment is None else alloc.alignment.value.data  # asked for, or the elements' own
    if align % need:
        return 0, f"alignment {need} does not divide the arena's {align}"
    op = alloc.parent_op()
    while op is not function and op is not None:
        if not isinstance(op, SEQUENTIAL):
            return 0, f"inside {op.name}, whose regions may run side by side"
        if any(len(r.blocks) > 1 for r in op.regions):
            return 0, f"inside {op.name} with more than one block"
        op = op.parent_op()
    return size, None


def _life(
    alloc: memref.AllocOp, positions: dict[Operation, int], ends: dict[Operation, int]
) -> tuple[int, tuple[memref.DeallocOp, ...]] | str:
    """The last position at which `alloc` is used and its deallocs, or how it escapes."""
    block = alloc.parent_block()
    last = positions[alloc]
    deallocs: list[memref.DeallocOp] = []
    values: list[SSAValue] = [alloc.memref]
    while values:
        value = values.pop()
        for use in value.uses:
            user = use.operation
            if isinstance(user, memref.DeallocOp):
                deallocs.append(user)
                continue
            escape = _escape(user, value)
            if escape is not None:
                return escape
            source = ALIASES.get(type(user))
            if source is not None and getattr(user, source) is value:
                values.append(user.results[0])
            while user.parent_block() is not block:
                user = user.parent_op()
                assert user is not None, "a use outside the block of its definition"
            last = max(last, ends[user])
    return last, tuple(deallocs)


_SCALARS = (IntegerType, IndexType, AnyFloat, ComplexType, VectorType)


def _escape(user: Operation, value: SSAValue) -> str | None:
    """How using `value` in `user` may let its bytes outlive its last use, or None when it may not: a terminator
    passes it out of its region, a store keeps it, an asynchronous op may use it after it returns, and an op that is
    not a known alias and gives anything but numbers may give it back. A call that gives only numbers counts as a use
    while it runs (a callee must not keep a buffer it was lent, as MLIR's ownership-based deallocation assumes)."""
    if user.has_trait(IsTerminator):
        return f"escapes through {user.name}"
    if isinstance(user, memref.StoreOp) and user.value is value:
        return "stored"
    if isinstance(user, memref.ExtractAlignedPointerAsIndexOp):
        return "its address is taken"
    source = ALIASES.get(type(user))
    if source is not None and getattr(user, source) is value:
        return None
    if any(isinstance(r.type, gpu.AsyncTokenType) for r in user.results):
        return f"{user.name} is asynchronous: it may use it after it returns"
    if any(not isinstance(r.type, _SCALARS) for r in user.results):
        return f"{user.name} may give it back"
    return None
