"""The lives of a function's `memref.alloc`s, from op order: which allocations may share one arena and over which op
positions each is live, and why each of the others keeps its own allocation. IR in, plain intervals out; nothing is
rewritten here.

Every op of the function gets a position in pre-order, so the ops of a region op's regions come right after it. An
allocation lives from its first use (a write, a read, an alias taken; the `memref.alloc` itself is none) to the end
of its last use, through any alias. A use nested in a region op of the allocation's block is a use over that whole
region op (the region may run again, or a loop may carry the bytes to its next iteration). A use ends where the
table of `uses` says: when its op returns, or, for an asynchronous op, at the op of its block that awaits it. An
allocation inside a loop body therefore lives within one run of the body: it is allocated anew on every iteration
and, not escaping, holds nothing across iterations, while a buffer live across the loop covers every position of
the body and so shares no byte with it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from math import prod

from xdsl.dialects import affine, func, gpu, memref, scf
from xdsl.dialects.builtin import (
    AffineMapAttr,
    AnyFloat,
    ComplexType,
    IndexType,
    IntAttr,
    IntegerAttr,
    IntegerType,
    MemRefType,
    NoneAttr,
    StridedLayoutAttr,
    VectorType,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.traits import IsTerminator

from lanearena.memref.uses import USE_ENDS, Awaited, UseEnd, op_name, rule, tokens
from lanearena.model import DEVICE_BYTES

ALIASES: dict[type[Operation], str] = {
    memref.SubviewOp: "source",
    memref.ViewOp: "source",
    memref.CastOp: "source",
    memref.ReinterpretCastOp: "source",
    memref.CollapseShapeOp: "src",
    memref.ExpandShapeOp: "src",
}
"""The ops whose result views the bytes of one operand (named here): a use of the result is a use of the operand."""

SEQUENTIAL = (
    scf.ForOp,
    scf.WhileOp,
    scf.IfOp,
    scf.IndexSwitchOp,
    scf.ExecuteRegionOp,
    affine.ForOp,
    affine.IfOp,
    memref.AllocaScopeOp,
)
"""Region ops that run their regions one at a time, so an allocation inside them may go into the function's arena.
Inside any other region op (`scf.parallel`, `gpu.launch`...) copies of one allocation may be live at once."""

REGISTERS = (gpu.HostRegisterOp, gpu.HostUnregisterOp)
"""Ops that map a buffer's bytes for a device, beyond the arena's own lifetime."""

INDEX_BYTES = 8
"""Bytes of an `index` element (MLIR's default data layout)."""

ARENA_ATTR = "lanearena.bytes"
"""The attribute that marks an arena made by `memref-arena-place` (its bytes): never placed again."""


@dataclass(frozen=True)
class Life:
    """An allocation of `size` bytes that may go into the arena, live over the positions `[lower, upper)`; its first
    use is in `first`, the op of its block before which its view goes (the allocation itself when it has no use);
    `deallocs` are the `memref.dealloc`s of it (through any alias) that the arena makes redundant."""

    alloc: memref.AllocOp
    size: int
    lower: int
    upper: int
    first: Operation
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
    """Bytes of one element of type `element` in memory as MLIR's default data layout stores it (`DataLayout::
    getTypeSize`: its bits rounded up to whole bytes, so an `i1` takes a byte), None for a type it does not size."""
    if isinstance(element, IndexType):
        return INDEX_BYTES
    if isinstance(element, IntegerType | AnyFloat):
        return -(-element.bitwidth // 8)
    return None


def identity_layout(kind: MemRefType) -> bool:
    """Whether `kind` lays its elements out row-major from its start: no layout, the identity map written out, or
    the row-major strides at offset 0 (those exactly: MLIR casts between them and no layout)."""
    layout = kind.layout
    if isinstance(layout, NoneAttr):
        return True
    shape = kind.get_shape()
    if isinstance(layout, AffineMapAttr):
        return layout.data == AffineMap.identity(len(shape))
    if isinstance(layout, StridedLayoutAttr):
        row_major = [prod(shape[d + 1 :]) for d in range(len(shape))]
        return layout.offset == IntAttr(0) and list(layout.strides.data) == [IntAttr(s) for s in row_major]
    return False


def default_space(kind: MemRefType) -> bool:
    """Whether `kind` is in the default memory space: none written, or 0 (which MLIR drops)."""
    space = kind.memory_space
    return isinstance(space, NoneAttr) or (isinstance(space, IntegerAttr) and space.value.data == 0)


def function_lives(function: func.FuncOp, align: int, ends: Mapping[str, UseEnd] = USE_ENDS) -> FunctionLives:
    """The lives of `function`'s allocations in an arena whose offsets are multiples of `align`, each use ending as
    the table `ends` says: an allocation that needs an alignment (its `alignment`, else its element's bytes) that
    does not divide `align` keeps its own."""
    order = list(function.walk())
    allocs = [op for op in order if isinstance(op, memref.AllocOp) and ARENA_ATTR not in op.attributes]
    if len(function.body.blocks) > 1:
        return FunctionLives([], [Kept(a, "the function has more than one block") for a in allocs])
    positions, last = _positions(order)
    lives: list[Life] = []
    kept: list[Kept] = []
    for alloc in allocs:
        size, reason = _placeable(alloc, function, align)
        if reason is None:
            life = _life(alloc, size, positions, last, ends)
            if isinstance(life, Life):
                lives.append(life)
                continue
            reason = life
        kept.append(Kept(alloc, reason))
    return FunctionLives(lives, kept)


def _positions(order: list[Operation]) -> tuple[dict[Operation, int], dict[Operation, int]]:
    """Each op's position in `order` (a function's ops in pre-order), and the last position within it (its own for
    an op without regions): that of the last op of its blocks, which comes after its parent's in reverse order."""
    positions = {op: i for i, op in enumerate(order)}
    last: dict[Operation, int] = {}
    for op in reversed(order):
        end = positions[op]
        for region in op.regions:
            for block in region.blocks:
                if block.last_op is not None:
                    end = max(end, last[block.last_op])
        last[op] = end
    return positions, last


def _placeable(alloc: memref.AllocOp, function: func.FuncOp, align: int) -> tuple[int, str | None]:
    """The bytes of `alloc` and None when its type and place let it go into the arena, else why not."""
    kind = alloc.memref.type
    assert isinstance(kind, MemRefType)
    if alloc.dynamic_sizes or alloc.symbol_operands or any(d < 0 for d in kind.get_shape()):
        return 0, "dynamic sizes"
    if not identity_layout(kind):
        return 0, "a layout other than the identity"
    if not default_space(kind):
        return 0, "a memory space other than the default"
    width = element_bytes(kind.get_element_type())
    if width is None:
        return 0, f"element type {kind.get_element_type()} is not sized here (integers, floats and index are)"
    size = prod(kind.get_shape()) * width
    if size == 0:
        return 0, "no bytes"
    if size > DEVICE_BYTES:
        return 0, f"{size} bytes, more than a device addresses (2^{DEVICE_BYTES.bit_length() - 1})"
    need = width if alloc.alignment is None else alloc.alignment.value.data  # asked for, or the elements' own
    if align % need:
        return 0, f"alignment {need} does not divide the arena's {align}"
    op = alloc.parent_op()
    while op is not function and op is not None:
        if not isinstance(op, SEQUENTIAL):
            return 0, f"inside {op_name(op)}, whose regions may run side by side"
        if any(len(r.blocks) > 1 for r in op.regions):
            return 0, f"inside {op_name(op)} with more than one block"
        op = op.parent_op()
    return size, None


def _life(
    alloc: memref.AllocOp,
    size: int,
    positions: dict[Operation, int],
    last: dict[Operation, int],
    ends: Mapping[str, UseEnd],
) -> Life | str:
    """The life of `alloc`, of `size` bytes, or how it escapes."""
    block = alloc.parent_block()
    assert block is not None
    first: Operation | None = None
    upper = positions[alloc] + 1
    deallocs: list[memref.DeallocOp] = []
    values: list[SSAValue] = [alloc.memref]
    while values:
        value = values.pop()
        for use in value.uses:
            user = use.operation
            if isinstance(user, memref.DeallocOp):
                deallocs.append(user)
                continue
            escape = _escape(user, value, ends)
            if escape is not None:
                return escape
            source = ALIASES.get(type(user))
            if source is not None and getattr(user, source) is value:
                values.append(user.results[0])
            at = _in_block(user, block)
            if first is None or positions[at] < positions[first]:
                first = at
            end = _end(user, block, ends)
            if isinstance(end, str):
                return end
            upper = max(upper, last[end] + 1)
    first = first or alloc
    return Life(alloc, size, positions[first], upper, first, tuple(deallocs))


def _in_block(op: Operation, block: Block) -> Operation:
    """The op of `block` that is `op` or holds it."""
    while op.parent_block() is not block:
        parent = op.parent_op()
        assert parent is not None, "a use outside the block of its definition"
        op = parent
    return op


def _end(user: Operation, block: Block, ends: Mapping[str, UseEnd]) -> Operation | str:
    """The op of `block` after which `user` (and every region op around it) no longer touches its buffers, or why
    none does."""
    op = user
    while True:
        done = rule(op, ends).end(op, ends)
        if isinstance(done, str) or done.parent_block() is block:
            return done
        parent = done.parent_op()
        assert parent is not None, "a use outside the block of its definition"
        op = parent


_SCALARS = (IntegerType, IndexType, AnyFloat, ComplexType, VectorType)


def _escape(user: Operation, value: SSAValue, ends: Mapping[str, UseEnd]) -> str | None:
    """How using `value` in `user` may let its bytes outlive its last use, or None when it may not: a terminator
    (or an unregistered op the table does not list) passes it out of its region, a store keeps it,
    `gpu.host_register` maps it, an asynchronous op that the table does not know may use it after it returns, and
    an op that is not a known alias and gives anything but numbers (or the tokens of an op of the table) may give it
    back. A call that gives only numbers counts as a use while it runs (a callee must not keep a buffer it was lent,
    as MLIR's ownership-based deallocation assumes)."""
    name = op_name(user)
    if user.has_trait(IsTerminator, value_if_unregistered=name not in ends):  # an unknown op may be one
        return f"escapes through {name}"
    if isinstance(user, memref.StoreOp) and user.value is value:
        return "stored"
    if isinstance(user, memref.ExtractAlignedPointerAsIndexOp):
        return "its address is taken"
    if isinstance(user, REGISTERS):
        return "registered"
    source = ALIASES.get(type(user))
    if source is not None and getattr(user, source) is value:
        return None
    known = isinstance(ends.get(name), Awaited)
    if not known and any(isinstance(r.type, gpu.AsyncTokenType) for r in user.results):
        return f"async: {name} gives a token, and it is not in the table of asynchronous ops"
    given = [r for r in user.results if not isinstance(r.type, _SCALARS)]
    if known:
        given = [r for r in given if r not in tokens(user)]
    if given:
        return f"{name} may give it back"
    return None
