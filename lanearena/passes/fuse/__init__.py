"""`lane-fuse`: merges a launch into the next where only that launch reads its result, before placement, so that
the intermediate array leaves the step (the placement then sees fewer arrays) and the step makes fewer launches.
Each merge is a `RewritePattern` over the launch ops, applied by a `PatternRewriteWalker` until none applies; a
fused launch is a kind of its own (`dialects/kinds/fused_products.py`, `fused_attention.py`), with its kernel, its
numpy twin and its meaning in docs/kernels.md. A step already placed is left as it is. `docs/fusion.md` lists the
merges."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriteWalker, RewritePattern

from lanearena.passes.convert import alloc_of, steps
from lanearena.passes.fuse.attention import ATTENTION_PATTERNS
from lanearena.passes.fuse.products import PRODUCT_PATTERNS

PATTERNS: tuple[RewritePattern, ...] = (*PRODUCT_PATTERNS, *ATTENTION_PATTERNS)
"""Every fusion `lane-fuse` makes."""


def fuse_module(module: ModuleOp) -> ModuleOp:
    """Every step of `module` not placed yet with its launches fused (in place); `module`."""
    walker = PatternRewriteWalker(GreedyRewritePatternApplier(list(PATTERNS)), apply_recursively=True)
    for step in steps(module):
        if alloc_of(step) is None:
            walker.rewrite_region(step.body)
    return module


@dataclass(frozen=True)
class LaneFuse(ModulePass):
    """Merges launches before placement (`xdsl-opt -p lane-fuse,lane-arena-place`)."""

    name = "lane-fuse"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        fuse_module(op)
