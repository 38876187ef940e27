"""`memref-arena-place`: in each `func.func`, places every statically shaped `memref.alloc` that does not escape
into one `memref.alloc() : memref<Nxi8>` by lifetime, each becoming a `memref.view` of it at its offset."""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import IndexType, IntegerAttr, MemRefType, ModuleOp, StringAttr, i8, i64
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
from lanearena.model import ALIGN

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


@dataclass
class AllocIntoView(RewritePattern):
    """A placed allocation becomes a view of the arena at its offset."""

    views: dict[memref.AllocOp, tuple[memref.AllocOp, int]]

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.AllocOp, rewriter: PatternRewriter, /):
        if op not in self.views:
            return
        arena, offset = self.views.pop(op)
        kind = op.memref.type
        assert isinstance(kind, MemRefType)
        shift = arith.ConstantOp(IntegerAttr(offset, IndexType()))
        if op.memref.name_hint is not None:
            shift.result.name_hint = f"{op.memref.name_hint}_offset"
        rewriter.insert(shift, InsertPoint.before(op))
        rewriter.replace(op, memref.ViewOp(arena.memref, shift.result, (), kind))


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
    function: func.FuncOp, algorithm: str, align: int, time_limit: float | None, work: int | None = None
) -> None:
    """Places the allocations of `function` that may share an arena, marking each of the others with why not."""
    lives = function_lives(function, align)
    for kept in lives.kept:
        kept.alloc.attributes[OWN_ATTR] = StringAttr(kept.reason)
    if not lives.lives:
        return
    problem = buffers(lives, align)
    result = placement.place(problem, algorithm, alignment=align, time_limit=time_limit, work=work)
    problems = placement.check(problem, result.offsets, align)
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
    views = {life.alloc: (arena, offset) for life, offset in zip(lives.lives, result.offsets, strict=True)}
    deallocs = {d for life in lives.lives for d in life.deallocs}
    PatternRewriteWalker(
        GreedyRewritePatternApplier([AllocIntoView(views), DropDealloc(deallocs)], dce_enabled=False),
        apply_recursively=False,
    ).rewrite_region(function.body)


@dataclass(frozen=True)
class MemrefArenaPlace(ModulePass):
    """Options as `lane-arena-place`'s: `algorithm` (greedy, best-fit, portfolio, best: the default), `align` (a power
    of two: bytes every offset and the arena are aligned to; each size is rounded up to it), `work` (counted search a
    function, for `best`: the result does not depend on the machine) and `time_limit` (seconds, an extra bound)."""

    name = "memref-arena-place"

    algorithm: str = "best"
    align: int = ALIGN
    time_limit: float | int | None = None
    work: int | None = None

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

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for function in [f for f in op.walk() if isinstance(f, func.FuncOp) and f.body.blocks]:
            place_function(function, self.algorithm, self.align, self.time_limit, self.work)
