"""When a use of a buffer ends: a table from an op's name to the rule that says after which op of its block the op no
longer touches the bytes of its memref operands (and of anything in its regions). Most ops are done when they return;
an asynchronous op is done when its token is awaited (`gpu.launch_func async`...), a DMA when its wait on the same
tag returns (`memref.dma_start`). An op the table does not list is done when it returns if it has no regions, or if
its class says that it runs them inline (`runs_inline`: xDSL's `RecursiveMemoryEffect` trait, linalg's structured
ops); any other region op may run its regions later. `USE_ENDS` is the default table; a pipeline extends it for its
own ops with the pass's `awaited` and `sync` options or in Python (`MemrefArenaPlace.use_ends`, or the `ends` of
`function_lives`), or gives its own op classes the `RecursiveMemoryEffect` trait.

A rule looks no further than the block of the op: an await inside a branch or a loop may not run, so it ends
nothing, and a use that nothing in its block ends keeps its buffer out of the arena."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Protocol

from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import MemRefType, UnrankedMemRefType, UnregisteredOp
from xdsl.dialects.linalg.abstract_ops import LinalgStructuredOperation
from xdsl.ir import Operation, SSAValue
from xdsl.traits import RecursiveMemoryEffect


def op_name(op: Operation) -> str:
    """The name `op` was written with: an unregistered op's own, not `builtin.unregistered`."""
    return op.op_name.data if isinstance(op, UnregisteredOp) else op.name


class UseEnd(Protocol):
    """How an op's use of a buffer ends."""

    def end(self, op: Operation, table: Mapping[str, UseEnd]) -> Operation | str:
        """The op of `op`'s block after which `op` no longer touches its buffers (`op` itself when that is when it
        returns), or why no op of the block says so."""
        ...


@dataclass(frozen=True)
class Returns:
    """Done when it returns: an op without regions that is not in the table, and a region op that runs its regions
    before it returns (loops, branches, `scf.parallel`, `linalg.generic`...)."""

    def end(self, op: Operation, table: Mapping[str, UseEnd]) -> Operation | str:
        return op


@dataclass(frozen=True)
class Unknown:
    """A region op the table does not list and whose class does not say that it runs its regions inline: they may run
    after it returns (`async.execute`, `omp.task`)."""

    def end(self, op: Operation, table: Mapping[str, UseEnd]) -> Operation | str:
        return f"async: used inside {op_name(op)}, whose regions may run after it returns"


def tokens(op: Operation) -> list[SSAValue]:
    """What an asynchronous op gives to be awaited: its results that are not memrefs."""
    return [r for r in op.results if not isinstance(r.type, MemRefType | UnrankedMemRefType)]


@dataclass(frozen=True)
class Awaited:
    """Asynchronous when it gives a token: done at the first op of its block that awaits the token, directly or
    through a chain of ops of this rule that take it and give a token of their own (`gpu.wait async`, an async
    launch depending on it). An op of this rule that gives no token runs synchronously and awaits the tokens it
    takes (`gpu.wait`, `gpu.memcpy [%t]` without `async`). A token taken by another op (a call, a yield, a return)
    is not awaited by it."""

    def end(self, op: Operation, table: Mapping[str, UseEnd]) -> Operation | str:
        chain = set(tokens(op))
        if not chain:
            return op
        later = op.next_op
        while later is not None:
            if isinstance(table.get(op_name(later)), Awaited) and any(v in chain for v in later.operands):
                given = tokens(later)
                if not given:
                    return later
                chain.update(given)
            later = later.next_op
        return f"async: the token of {op_name(op)} is not awaited in its block"


def same_value(a: SSAValue, b: SSAValue) -> bool:
    """Whether `a` and `b` are one value: the same SSA value, or constants of the same value."""
    if a is b:
        return True
    x, y = a.owner, b.owner
    return isinstance(x, arith.ConstantOp) and isinstance(y, arith.ConstantOp) and x.value == y.value


@dataclass(frozen=True)
class Waited:
    """Done at the first op named `wait` of its block whose `tag` is the start's (each value the same, as
    `same_value` has it): a DMA runs from its start until the wait on its tag returns."""

    wait: str
    tag: Callable[[Operation], tuple[SSAValue, ...]]

    def end(self, op: Operation, table: Mapping[str, UseEnd]) -> Operation | str:
        tag = self.tag(op)
        later = op.next_op
        while later is not None:
            if op_name(later) == self.wait:
                theirs = self.tag(later)
                if len(theirs) == len(tag) and all(same_value(a, b) for a, b in zip(tag, theirs, strict=True)):
                    return later
            later = later.next_op
        return f"async: no {self.wait} on the tag of {op_name(op)} in its block"


def dma_tag(op: Operation) -> tuple[SSAValue, ...]:
    """The tag of a `memref.dma_start` or `memref.dma_wait`: the tag memref and its indices."""
    assert isinstance(op, memref.DmaStartOp | memref.DmaWaitOp)
    return (op.tag, *op.tag_indices)


RETURNS = Returns()
AWAITED = Awaited()

GPU_ASYNC = ("gpu.launch", "gpu.launch_func", "gpu.memcpy", "gpu.memset", "gpu.wait", "gpu.alloc", "gpu.dealloc")
"""The gpu ops that take tokens and may give one (MLIR's `AsyncOpInterface`)."""

SYNCHRONOUS_REGIONS = (
    "scf.execute_region",
    "scf.forall",
    "affine.for",
    "affine.parallel",
    "linalg.map",
    "linalg.reduce",
    "linalg.broadcast",
)
"""Region ops that have run their regions when they return and whose xDSL classes (0.74 and 0.75) do not say so with
`RecursiveMemoryEffect` or as a linalg structured op (as MLIR's do), or that xDSL does not define (`scf.forall`,
`linalg.map`: parsed in generic form as unregistered ops)."""

USE_ENDS: Mapping[str, UseEnd] = MappingProxyType(
    {
        **dict.fromkeys(SYNCHRONOUS_REGIONS, RETURNS),
        **dict.fromkeys(GPU_ASYNC, AWAITED),
        "memref.dma_start": Waited("memref.dma_wait", dma_tag),
    }
)
"""The default table: ops not in it are done when they return, unless they have regions and `runs_inline` does not
hold for them (`Unknown`)."""

INLINE = (LinalgStructuredOperation,)
"""Op classes that run their regions inline without declaring `RecursiveMemoryEffect` in xDSL: a structured linalg
op runs its payload on every element before it returns (MLIR's `LinalgStructuredInterface`)."""


def runs_inline(op: Operation) -> bool:
    """Whether `op`'s class says that it runs its regions before it returns: the `RecursiveMemoryEffect` trait (its
    effects are those of its regions, so they happen while it runs: `scf.for`, `scf.if`, `scf.while`,
    `scf.parallel`, `affine.if`, `memref.alloca_scope`, `omp.parallel`...) or an `INLINE` class."""
    return isinstance(op, INLINE) or op.has_trait(RecursiveMemoryEffect, value_if_unregistered=False)


def rule(op: Operation, table: Mapping[str, UseEnd]) -> UseEnd:
    """The rule of `op` in `table`, or the default for an op it does not list: done when it returns unless it has
    regions that its class does not say it runs inline."""
    found = table.get(op_name(op))
    if found is not None:
        return found
    return Unknown() if op.regions and not runs_inline(op) else RETURNS
