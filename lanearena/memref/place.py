"""`memref-arena-place`: in each `func.func`, places every statically shaped `memref.alloc` that does not escape
into one `memref.alloc() : memref<Nxi8>` by lifetime, each becoming a `memref.view` of it at its offset."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import IndexType, IntegerAttr, MemRefType, ModuleOp, NoneAttr, StringAttr, i8, i64
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import DiagnosticException

from lanearena import options, placement
from lanearena.dialects.located import where
from lanearena.memref.lifetimes import ARENA_ATTR, FunctionLives, function_lives
from lanearena.memref.uses import AWAITED, RETURNS, USE_ENDS, UseEnd
from lanearena.model import ALIGN, DEVICE_BYTES

LOWER_BOUND_ATTR = "lanearena.lower_bound"
ALGORITHM_ATTR = "lanearena.algorithm"
OWN_ATTR = "lanearena.own"
"""On an allocation left out of the arena: why."""


def buffers(lives: FunctionLives, align: int) -> list[placement.Buffer]:
    """The placement problem of one function: each life's bytes rounded up to `align`, so that the lower bound holds
    for offsets that are multiples of it."""
    return [
        placement.Buffer(str(i), life.lower, life.upper, -(-life.size // align) * align)
        for i, life in enumerate(lives.lives)
    ]


def identity_free(kind: MemRefType) -> bool:
    """Whether `kind` writes neither a layout nor a memory space: it is what `memref.view` gives (most allocations
    are, and making the type anew costs more than the rest of the rewrite)."""
    return isinstance(kind.layout, NoneAttr) and isinstance(kind.memory_space, NoneAttr)


@dataclass
class AllocIntoView(RewritePattern):
    """A placed allocation becomes a view of the arena at its offset, made just before its first use (the op of its
    block that holds it): the view dominates every use. An identity layout or memory space 0 written out in the
    allocation's type, which `memref.view` does not give, comes back through a `memref.cast`."""

    views: dict[memref.AllocOp, tuple[memref.AllocOp, int, Operation]]

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.AllocOp, rewriter: PatternRewriter, /):
        if op not in self.views:
            return
        arena, offset, first = self.views.pop(op)
        kind = op.memref.type
        assert isinstance(kind, MemRefType)
        shift = arith.ConstantOp(IntegerAttr(offset, IndexType()))
        plain = kind if identity_free(kind) else MemRefType(kind.get_element_type(), kind.get_shape())
        view = memref.ViewOp(arena.memref, shift.result, (), plain)
        made: list[Operation] = [shift, view]
        if plain != kind:
            made.append(memref.CastOp.get(view.result, kind))
        name = op.memref.name_hint
        if name is not None:
            shift.result.name_hint = f"{name}_offset"
            view.result.name_hint = f"{name}_bytes"
            made[-1].results[0].name_hint = name
        rewriter.insert(made, InsertPoint.before(first))
        rewriter.replace(op, [], [made[-1].results[0]])


@dataclass
class DropDealloc(RewritePattern):
    """The dealloc of a placed allocation goes: the arena's one dealloc frees it."""

    deallocs: set[memref.DeallocOp] = field(default_factory=set[memref.DeallocOp])

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.DeallocOp, rewriter: PatternRewriter, /):
        if op in self.deallocs:
            self.deallocs.discard(op)
            rewriter.erase(op)


def place_function(
    function: func.FuncOp,
    algorithm: str,
    align: int,
    time_limit: float | None,
    work: int | None = None,
    ends: Mapping[str, UseEnd] = USE_ENDS,
) -> None:
    """Places the allocations of `function` that may share an arena, each use ending as the table `ends` says,
    marking each of the others with why not. An arena past `DEVICE_BYTES` is no arena: its buffers keep their own."""
    lives = function_lives(function, align, ends)
    for kept in lives.kept:
        kept.alloc.attributes[OWN_ATTR] = StringAttr(kept.reason)
    if not lives.lives:
        return
    problem = buffers(lives, align)
    bound = placement.lower_bound(problem)
    if bound > DEVICE_BYTES:
        _keep_all(lives, f"{bound} bytes live at once")
        return
    result = placement.place(problem, algorithm, alignment=align, time_limit=time_limit, work=work)
    if result.height > DEVICE_BYTES:
        _keep_all(lives, f"an arena of {result.height} bytes")
        return
    problems = placement.check(problem, result.offsets, align)
    problems += [
        f"buffer {b.id} at {o} ends past the arena's {result.height} bytes"
        for b, o in zip(problem, result.offsets, strict=True)
        if not 0 <= o <= result.height - b.size
    ]
    if problems:  # never expected: the placer's output is checked here so that a fault in it cannot pass silently
        raise DiagnosticException(f"{where(function)}memref-arena-place: invalid placement: {problems[0]}")
    block = function.body.block
    arena = memref.AllocOp.get(i8, align, [result.height])
    arena.memref.name_hint = "arena"
    arena.attributes[ARENA_ATTR] = IntegerAttr(result.height, i64)
    arena.attributes[LOWER_BOUND_ATTR] = IntegerAttr(result.lower_bound, i64)
    arena.attributes[ALGORITHM_ATTR] = StringAttr(result.algorithm)
    Rewriter.insert_op(arena, InsertPoint.at_start(block))
    terminator = block.last_op
    assert terminator is not None
    Rewriter.insert_op(memref.DeallocOp.get(arena), InsertPoint.before(terminator))
    views = {life.alloc: (arena, offset, life.first) for life, offset in zip(lives.lives, result.offsets, strict=True)}
    deallocs = {d for life in lives.lives for d in life.deallocs}
    PatternRewriteWalker(
        GreedyRewritePatternApplier([AllocIntoView(views), DropDealloc(deallocs)], dce_enabled=False),
        apply_recursively=False,
    ).rewrite_region(function.body)


def _keep_all(lives: FunctionLives, arena: str) -> None:
    """Every placeable allocation keeps its own: together they would need `arena`, past what a device addresses."""
    for life in lives.lives:
        life.alloc.attributes[OWN_ATTR] = StringAttr(
            f"the arena would take {arena}, more than a device addresses (2^{DEVICE_BYTES.bit_length() - 1})"
        )


@dataclass(frozen=True)
class MemrefArenaPlace(ModulePass):
    """Options as `lane-arena-place`'s: `algorithm` (greedy, best-fit, portfolio, best: the default), `align` (a power
    of two: bytes every offset and the arena are aligned to; each size is rounded up to it), `work` (counted search a
    function, for `best`: the result does not depend on the machine), `time_limit` (seconds, an extra bound),
    `awaited` (names of a pipeline's own asynchronous ops whose uses last until their tokens are awaited, as
    `uses.Awaited` says: `awaited="nvgpu.device_async_copy","nvgpu.device_async_wait"`) and `sync` (names of a
    pipeline's own region ops that run their regions before they return, which xDSL cannot tell from their class:
    `sync="my.map"`, unregistered ops too)."""

    name = "memref-arena-place"

    algorithm: str = "best"
    align: int = ALIGN
    time_limit: float | int | None = None
    work: int | None = None
    awaited: tuple[str, ...] = ()
    sync: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.algorithm not in placement.ALGORITHMS:
            raise DiagnosticException(
                f"{self.name}: unknown algorithm '{self.algorithm}' (one of {', '.join(placement.ALGORITHMS)})"
            )
        if self.align <= 0 or self.align & (self.align - 1):
            raise DiagnosticException(f"{self.name}: align must be a power of two, not {self.align}")
        try:
            options.seconds(self.time_limit)
            options.work(self.work)
        except options.OptionError as e:
            raise DiagnosticException(f"{self.name}: {e}") from None

    def use_ends(self) -> Mapping[str, UseEnd]:
        """The table of when a use ends: `USE_ENDS`, the ops of `awaited` and those of `sync`. A pipeline's subclass
        may give its own (a DMA-like pair: `uses.Waited`; a region op that runs inline: `uses.RETURNS`)."""
        return {**USE_ENDS, **dict.fromkeys(self.awaited, AWAITED), **dict.fromkeys(self.sync, RETURNS)}

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        ends = self.use_ends()
        for function in [f for f in functions(op) if f.body.blocks]:
            place_function(function, self.algorithm, self.align, self.time_limit, self.work, ends)


def functions(op: Operation) -> Iterator[func.FuncOp]:
    """The `func.func`s inside `op`, at any depth, without walking through their bodies (a function's ops are the
    most of a module's)."""
    for region in op.regions:
        for block in region.blocks:
            for child in block.ops:
                if isinstance(child, func.FuncOp):
                    yield child
                else:
                    yield from functions(child)
