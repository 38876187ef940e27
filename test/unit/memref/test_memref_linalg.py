"""`memref-arena-place` and `lanearena-run` on functions shaped as one-shot bufferization and ownership-based
deallocation leave them: allocations at the top or just before their first write (with `alignment = 64`), f32 and
i1 buffers, every op a `linalg.generic` whose payload region reads buffers captured from outside (as torch-mlir's
gathers and masks do) or through `ins`, and every dealloc just before the return. The test computes each buffer's
life itself from what it drew and checks the placement against it: no two buffers live together share a byte,
offsets are aligned, every buffer lies in the arena, the arena is at the lower bound of those lives; and the placed
function gives what the original gives."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy
from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import IntegerAttr, MemRefType

from lanearena.memref.lifetimes import ARENA_ATTR
from lanearena.memref.place import MemrefArenaPlace
from lanearena.tools.diagnose import parse_located
from lanearena.tools.run import LanearenaRunMain, run_function

from .shared_bytes import faults

ALIGN = 256
OUT = 6
"""Elements of the function's argument `%out`, which its last op writes from the last buffers."""


@dataclass
class _Drawn:
    """A drawn function: buffers `%b0`... of `(length, element)`, the ops (each writes one buffer whole, or `%out`,
    from the buffers it reads) and, for each buffer, the ops that use it (its life: the first to the last)."""

    buffers: list[tuple[int, str]]
    hoisted: bool
    writes: list[tuple[int, list[int]]] = field(default_factory=list[tuple[int, list[int]]])

    def uses(self) -> dict[int, list[int]]:
        used: dict[int, list[int]] = {}
        for step, (target, sources) in enumerate(self.writes):
            for b in [target, *sources]:
                if b >= 0:
                    used.setdefault(b, []).append(step)
        return used

    def text(self) -> str:
        lines = [f"func.func @main(%out: memref<{OUT}xf32>) -> memref<{OUT}xf32> {{"]
        lines += ["  %zero = arith.constant 0.0 : f32", "  %one = arith.constant 1.0 : f32"]
        lines += [f"  %c{n} = arith.constant {n} : index" for n in range(1, OUT + 1)]
        allocated: set[int] = set()

        def alloc(b: int) -> None:
            n, element = self.buffers[b]
            lines.append(f"  %b{b} = memref.alloc() {{alignment = 64 : i64}} : memref<{n}x{element}>")
            allocated.add(b)

        if self.hoisted:
            for b in range(len(self.buffers)):
                alloc(b)
        for step, (target, sources) in enumerate(self.writes):
            if target >= 0 and target not in allocated:
                alloc(target)
            lines += self._write(step, target, sources)
        lines += [f"  memref.dealloc %b{b} : memref<{n}x{e}>" for b, (n, e) in enumerate(self.buffers)]
        lines += [f"  func.return %out : memref<{OUT}xf32>", "}"]
        return "\n".join(lines) + "\n"

    def _write(self, step: int, target: int, sources: list[int]) -> list[str]:
        """A `linalg.generic` that writes `target` (`%out` when -1) from `sources`: the first through `ins` when it
        has the target's length, the others loaded in the payload at the index modulo their length."""
        n, element = (OUT, "f32") if target < 0 else self.buffers[target]
        name = "%out" if target < 0 else f"%b{target}"
        through_ins = [s for s in sources[:1] if self.buffers[s][0] == n]
        ins = "".join(f" ins(%b{s} : memref<{n}x{self.buffers[s][1]}>)" for s in through_ins)
        maps = ", ".join(["affine_map<(d0) -> (d0)>"] * (len(through_ins) + 1))
        args = [f"%x{step}_{s}: {self.buffers[s][1]}" for s in through_ins] + [f"%o{step}: {element}"]
        body = [f"    %i{step} = linalg.index 0 : index", f"    %v{step}_ = arith.index_cast %i{step} : index to i32"]
        body.append(f"    %a{step}_ = arith.sitofp %v{step}_ : i32 to f32")
        total = f"%a{step}_"
        for k, s in enumerate(sources):
            m, kind = self.buffers[s]
            if s in through_ins:
                value = f"%x{step}_{s}"
            else:
                body.append(f"    %j{step}_{k} = arith.remsi %i{step}, %c{m} : index")
                value = f"%l{step}_{k}"
                body.append(f"    {value} = memref.load %b{s}[%j{step}_{k}] : memref<{m}x{kind}>")
            if kind == "i1":
                body.append(f"    %f{step}_{k} = arith.select {value}, %one, %zero : f32")
                value = f"%f{step}_{k}"
            body.append(f"    %s{step}_{k} = arith.addf {total}, {value} : f32")
            total = f"%s{step}_{k}"
        if element == "i1":
            body.append(f"    %r{step} = arith.cmpf ogt, {total}, %one : f32")
            total = f"%r{step}"
        return [
            f'  linalg.generic {{indexing_maps = [{maps}], iterator_types = ["parallel"]}}{ins}'
            f" outs({name} : memref<{n}x{element}>) {{",
            f"  ^bb0({', '.join(args)}):",
            *body,
            f"    linalg.yield {total} : {element}",
            "  }",
        ]


@st.composite
def _functions(draw: st.DrawFn) -> _Drawn:
    count = draw(st.integers(1, 7))
    buffers = [(draw(st.integers(1, OUT)), draw(st.sampled_from(["f32", "f32", "i1"]))) for _ in range(count)]
    drawn = _Drawn(buffers, draw(st.booleans()))
    written: list[int] = []
    for b in range(count):  # each buffer written whole first, from some written before it; later reads drawn
        sources = draw(st.lists(st.sampled_from(written), max_size=2, unique=True)) if written else []
        drawn.writes.append((b, sources))
        written.append(b)
        if draw(st.booleans()) and len(written) > 1:
            again = draw(st.sampled_from(written[:-1]))
            drawn.writes.append((b, [again]))  # read-modify: `b` from an older buffer, through the payload
    drawn.writes.append((-1, written[-2:]))
    return drawn


def _rounded(n: int) -> int:
    return -(-n // ALIGN) * ALIGN


def _bytes(length: int, element: str) -> int:
    return length * (1 if element == "i1" else 4)  # MLIR's data layout: a byte an i1


@settings(max_examples=50, deadline=None)
@given(_functions())
def test_placed_buffers_live_together_share_no_byte(drawn):
    text = drawn.text()
    ctx = LanearenaRunMain([]).ctx
    module = parse_located(ctx, text, "drawn.mlir")
    MemrefArenaPlace(align=ALIGN).apply(ctx, module)
    module.verify()
    main = next(op for op in module.walk() if isinstance(op, func.FuncOp))
    assert not [op for op in main.walk() if "lanearena.own" in op.attributes], "every buffer is placed"
    arena = next(op for op in main.walk() if isinstance(op, memref.AllocOp) and ARENA_ATTR in op.attributes)
    offsets: dict[int, int] = {}
    for op in main.walk():
        if isinstance(op, memref.ViewOp):
            shift = op.byte_shift.owner
            assert isinstance(shift, arith.ConstantOp) and isinstance(shift.value, IntegerAttr)
            assert isinstance(op.result.type, MemRefType)
            offsets[int(op.result.name_hint[1:])] = shift.value.value.data  # %b3 -> 3
    uses = drawn.uses()
    height = arena.attributes[ARENA_ATTR].value.data
    for b, (n, element) in enumerate(drawn.buffers):
        assert offsets[b] % ALIGN == 0 and offsets[b] + _bytes(n, element) <= height
        for c in range(b + 1, len(drawn.buffers)):
            together = min(uses[b]) <= max(uses[c]) and min(uses[c]) <= max(uses[b])
            apart = (
                offsets[b] + _bytes(n, element) <= offsets[c] or offsets[c] + _bytes(*drawn.buffers[c]) <= offsets[b]
            )
            assert not together or apart, f"%b{b} and %b{c} live together and share bytes"
    steps = len(drawn.writes)
    bound = max(
        sum(_rounded(_bytes(*drawn.buffers[b])) for b, used in uses.items() if min(used) <= s <= max(used))
        for s in range(steps)
    )
    assert height == bound == arena.attributes["lanearena.lower_bound"].value.data
    assert faults(main, ALIGN) == []  # the shared checker agrees


@settings(max_examples=15, deadline=None)
@given(_functions(), st.integers(0, 3))
def test_placed_functions_give_what_they_gave(drawn, seed):
    text = drawn.text()
    ctx = LanearenaRunMain([]).ctx
    module = parse_located(ctx, text, "drawn.mlir")
    MemrefArenaPlace(align=ALIGN).apply(ctx, module)
    before, _ = run_function(text, seed=seed)
    after, _ = run_function(str(module), seed=seed)
    assert numpy.array_equal(before[0], after[0])
    assert not numpy.isnan(before[0]).any()  # every value read was written: nothing poisoned reaches the output
