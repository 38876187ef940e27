"""`memref-arena-place`, `lanearena-run` and `lanearena-opt` over standard MLIR: the lives the analysis reads off op
order, and over random functions of allocations, loops, branches, calls and subviews, that the placed function
prints what the original prints and that no two live buffers share a byte."""

from __future__ import annotations

import contextlib
import dataclasses
import io
import itertools
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.context import Context
from xdsl.dialects import arith, func, memref, printf, scf
from xdsl.dialects.builtin import Builtin, IntegerAttr
from xdsl.utils.exceptions import DiagnosticException

from lanearena import placement
from lanearena.memref.lifetimes import ARENA_ATTR, function_lives
from lanearena.memref.place import MemrefArenaPlace, buffers
from lanearena.tools import opt, run
from lanearena.tools.diagnose import parse_located

ROOT = Path(__file__).resolve().parents[3]


def _context() -> Context:
    ctx = Context()
    for dialect in (Builtin, func.Func, memref.MemRef, arith.Arith, scf.Scf, printf.Printf):
        ctx.load_dialect(dialect)
    return ctx


def _run(text: str, tmp_path: Path, name: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = run.main([str(path)])
    assert status == 0, out.getvalue()
    return out.getvalue()


def _place(text: str, **options) -> str:
    module = parse_located(_context(), text, "random.mlir")
    MemrefArenaPlace(**options).apply(_context(), module)
    module.verify()
    return str(module)


def test_lives_from_op_order():
    text = """
    func.func @f(%p: i1) {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %f = arith.constant 1.0 : f32
      %a = memref.alloc() : memref<4xf32>
      scf.for %i = %c0 to %c1 step %c1 {
        %t = memref.alloc() : memref<2xf32>
        memref.store %f, %t[%c0] : memref<2xf32>
        memref.store %f, %a[%c0] : memref<4xf32>
      }
      %b = memref.alloc() : memref<8xi8>
      memref.store %f, %a[%c0] : memref<4xf32>
      func.return
    }
    """
    function = next(op for op in parse_located(_context(), text, "f.mlir").walk() if isinstance(op, func.FuncOp))
    lives = function_lives(function, 256)
    # positions: func 0, c0 1, c1 2, f 3, a 4, for 5, t 6, store 7, store 8, yield 9, b 10, store 11, return 12;
    # a lives from the loop that first uses it, t from its store, b (never used) at its alloc
    assert [(life.alloc.memref.name_hint, life.size, life.lower, life.upper) for life in lives.lives] == [
        ("a", 16, 5, 12),
        ("t", 8, 7, 8),
        ("b", 8, 10, 11),
    ]
    assert lives.kept == []


def test_example_is_at_the_lower_bound(tmp_path):
    text = (ROOT / "examples" / "memref.mlir").read_text()
    placed = _place(text)
    assert f"{ARENA_ATTR} = 768 : i64, lanearena.lower_bound = 768 : i64" in placed
    assert _run(text, tmp_path, "before.mlir") == _run(placed, tmp_path, "after.mlir")


@pytest.mark.parametrize("passes", ["memref-arena-place{align=-1}", "memref-arena-place{algorithm=x}", "nope"])
def test_opt_bad_pass_options_exit_1(passes, tmp_path, capsys):
    path = tmp_path / "f.mlir"
    path.write_text("func.func @f() {\n  func.return\n}\n")
    assert opt.main([str(path), "-p", passes]) == 1
    err = capsys.readouterr().err
    assert err.startswith("lanearena-opt: error: bad pass pipeline: ") and "Traceback" not in err


def test_a_faulty_placement_is_refused(monkeypatch):
    text = """func.func @f(%x: f32) {
  %c0 = arith.constant 0 : index
  %a = memref.alloc() : memref<4xf32>
  %b = memref.alloc() : memref<4xf32>
  memref.store %x, %a[%c0] : memref<4xf32>
  memref.store %x, %b[%c0] : memref<4xf32>
  memref.store %x, %a[%c0] : memref<4xf32>
  func.return
}"""
    real = placement.place

    def overlapping(problem, *args, **kwargs):
        return dataclasses.replace(real(problem, *args, **kwargs), offsets=[0] * len(problem))

    monkeypatch.setattr(placement, "place", overlapping)
    with pytest.raises(DiagnosticException, match=r"^f.mlir:1:1: memref-arena-place: invalid placement: buffers"):
        MemrefArenaPlace().apply(_context(), parse_located(_context(), text, "f.mlir"))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(1, 300), min_size=1, max_size=40), st.sampled_from([4, 64, 256]))
def test_a_chain_of_hoisted_buffers_is_at_the_lower_bound(sizes, align):
    """Every allocation is hoisted to the top (as buffer hoisting leaves them); each buffer is first written, then the
    one before it is read for its last time and written into it: two live at a time from the first uses, at the
    bound with `best`."""
    lines = ["func.func @chain(%x: f32) -> f32 {", "  %c0 = arith.constant 0 : index"]
    lines += [f"  %b{k} = memref.alloc() : memref<{n}xf32>" for k, n in enumerate(sizes)]
    for k, n in enumerate(sizes):
        lines.append(f"  memref.store %x, %b{k}[%c0] : memref<{n}xf32>")
        if k:
            lines.append(f"  %v{k - 1} = memref.load %b{k - 1}[%c0] : memref<{sizes[k - 1]}xf32>")
            lines.append(f"  memref.store %v{k - 1}, %b{k}[%c0] : memref<{n}xf32>")
    lines += [f"  %r = memref.load %b{len(sizes) - 1}[%c0] : memref<{sizes[-1]}xf32>", "  func.return %r : f32", "}"]
    module = parse_located(_context(), "\n".join(lines), "chain.mlir")
    MemrefArenaPlace(align=align).apply(_context(), module)
    arena = next(op for op in module.walk() if isinstance(op, memref.AllocOp) and ARENA_ATTR in op.attributes)
    assert arena.attributes[ARENA_ATTR] == arena.attributes["lanearena.lower_bound"]
    rounded = [-(-4 * n // align) * align for n in sizes]
    assert arena.attributes[ARENA_ATTR].value.data == max(
        [rounded[0]] + [a + b for a, b in itertools.pairwise(rounded)]
    )


# --- random functions ----------------------------------------------------------------------------------------------

SIZES = range(1, 7)


class _Writer:
    """Text of a random `@main`: every buffer is written whole when allocated, then read, updated, printed, passed
    to a call, viewed through a subview or freed, inside loops and branches."""

    def __init__(self, data: st.DataObject):
        self.data = data
        self.lines: list[str] = []
        self.count = 0

    def fresh(self, prefix: str) -> str:
        self.count += 1
        return f"%{prefix}{self.count}"

    def emit(self, depth: int, line: str) -> None:
        self.lines.append("  " * (depth + 1) + line)

    def block(self, depth: int, outer: list[tuple[str, int]]) -> list[tuple[str, int]]:
        """Statements at `depth` that may use the `outer` buffers; the buffers it allocates and leaves live."""
        local: list[tuple[str, int]] = []
        for _ in range(self.data.draw(st.integers(0 if depth else 1, 5 - depth))):
            live = outer + local
            kinds = ["alloc"] + (["update", "print", "call", "slice", "free"] if live else [])
            kinds += ["loop", "if"] if depth < 2 else []
            kind = self.data.draw(st.sampled_from(kinds))
            if kind == "alloc":
                local.append(self.alloc(depth, live))
            elif kind == "update":
                self.update(depth, self.data.draw(st.sampled_from(live)), self.data.draw(st.sampled_from(live)))
            elif kind == "print":
                name, n = self.data.draw(st.sampled_from(live))
                self.emit(depth, f'printf.print_format "{name[1:]} {{}}\\n", {name} : memref<{n}xf32>')
            elif kind == "call":
                name, n = self.data.draw(st.sampled_from(live))
                self.emit(depth, f"func.call @bump{n}({name}) : (memref<{n}xf32>) -> ()")
            elif kind == "slice":
                self.slice(depth, *self.data.draw(st.sampled_from(live)))
            elif kind == "free" and local:
                name, n = local.pop(self.data.draw(st.integers(0, len(local) - 1)))
                self.emit(depth, f"memref.dealloc {name} : memref<{n}xf32>")
            elif kind == "loop":
                trips = self.data.draw(st.integers(1, 3))
                self.emit(depth, f"scf.for {self.fresh('t')} = %c0 to %c{trips} step %c1 {{")
                self.block(depth + 1, live)
                self.emit(depth, "}")
            elif kind == "if":
                self.emit(depth, f"scf.if %{self.data.draw(st.sampled_from(['true', 'false']))} {{")
                self.block(depth + 1, live)
                self.emit(depth, "} else {")
                self.block(depth + 1, live)
                self.emit(depth, "}")
        return local

    def alloc(self, depth: int, live: list[tuple[str, int]]) -> tuple[str, int]:
        n = self.data.draw(st.sampled_from(SIZES))
        name = self.fresh("b")
        self.emit(depth, f"{name} = memref.alloc() : memref<{n}xf32>")
        source = self.data.draw(st.sampled_from(live)) if live and self.data.draw(st.booleans()) else None
        i, v = self.fresh("i"), self.fresh("v")
        self.emit(depth, f"scf.for {i} = %c0 to %c{n} step %c1 {{")
        self.emit(depth + 1, f"{v}n = arith.index_cast {i} : index to i32")
        self.emit(depth + 1, f"{v}f = arith.sitofp {v}n : i32 to f32")
        self.emit(depth + 1, f"{v}k = arith.constant {self.count}.0 : f32")  # each buffer's values its own
        self.emit(depth + 1, f"{v} = arith.addf {v}f, {v}k : f32")
        value = v
        if source is not None:
            self.emit(depth + 1, f"{v}m = arith.remsi {i}, %c{source[1]} : index")
            self.emit(depth + 1, f"{v}s = memref.load {source[0]}[{v}m] : memref<{source[1]}xf32>")
            self.emit(depth + 1, f"{v}t = arith.addf {v}, {v}s : f32")
            value = f"{v}t"
        self.emit(depth + 1, f"memref.store {value}, {name}[{i}] : memref<{n}xf32>")
        self.emit(depth, "}")
        return name, n

    def update(self, depth: int, target: tuple[str, int], source: tuple[str, int]) -> None:
        i, v = self.fresh("i"), self.fresh("u")
        self.emit(depth, f"scf.for {i} = %c0 to %c{target[1]} step %c1 {{")
        self.emit(depth + 1, f"{v}m = arith.remsi {i}, %c{source[1]} : index")
        self.emit(depth + 1, f"{v}s = memref.load {source[0]}[{v}m] : memref<{source[1]}xf32>")
        self.emit(depth + 1, f"{v}t = memref.load {target[0]}[{i}] : memref<{target[1]}xf32>")
        self.emit(depth + 1, f"{v} = arith.addf {v}s, {v}t : f32")
        self.emit(depth + 1, f"memref.store {v}, {target[0]}[{i}] : memref<{target[1]}xf32>")
        self.emit(depth, "}")

    def slice(self, depth: int, name: str, n: int) -> None:
        start = self.data.draw(st.integers(0, n - 1))
        length = self.data.draw(st.integers(1, n - start))
        kind = f"memref<{length}xf32, strided<[1], offset: {start}>>"
        view = self.fresh("s")
        self.emit(depth, f"{view} = memref.subview {name}[{start}] [{length}] [1] : memref<{n}xf32> to {kind}")
        self.emit(depth, f'printf.print_format "{view[1:]} {{}}\\n", {view} : {kind}')

    def text(self) -> str:
        for name, n in self.block(0, []):  # what is left live is printed at the end: every value reaches the output
            self.emit(0, f'printf.print_format "{name[1:]} {{}}\\n", {name} : memref<{n}xf32>')
        helpers = []
        for n in SIZES:
            helpers.append(f"""func.func @bump{n}(%m: memref<{n}xf32>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant {n} : index
  %one = arith.constant 1.0 : f32
  scf.for %i = %c0 to %n step %c1 {{
    %x = memref.load %m[%i] : memref<{n}xf32>
    %y = arith.addf %x, %one : f32
    memref.store %y, %m[%i] : memref<{n}xf32>
  }}
  func.return
}}""")
        constants = [f"  %c{k} = arith.constant {k} : index" for k in range(max(SIZES) + 1)]
        constants += ["  %true = arith.constant true", "  %false = arith.constant false"]
        body = "\n".join(constants + self.lines + ["  func.return"])
        return "\n".join(helpers) + f"\nfunc.func @main() {{\n{body}\n}}\n"


def _views(placed_main: func.FuncOp) -> tuple[int, list[int]]:
    """The arena's bytes and each view's offset of it, in op order (the order of the allocations they replace)."""
    arena = next(op for op in placed_main.walk() if isinstance(op, memref.AllocOp) and ARENA_ATTR in op.attributes)
    offsets = []
    for op in placed_main.walk():
        if isinstance(op, memref.ViewOp) and op.source is arena.memref:
            shift = op.byte_shift.owner
            assert isinstance(shift, arith.ConstantOp) and isinstance(shift.value, IntegerAttr)
            offsets.append(shift.value.value.data)
    return arena.attributes[ARENA_ATTR].value.data, offsets


@settings(max_examples=60, deadline=None)
@given(st.data(), st.sampled_from(placement.ALGORITHMS), st.sampled_from([4, 16, 256]))
def test_random_functions_print_the_same_placed(tmp_path_factory, data, algorithm, align):
    text = _Writer(data).text()
    module = parse_located(_context(), text, "random.mlir")
    main = next(op for op in module.walk() if isinstance(op, func.FuncOp) and op.sym_name.data == "main")
    lives = function_lives(main, align)
    assert lives.kept == [], lives.kept  # nothing escapes, nothing is dynamic
    problem = buffers(lives, align)
    MemrefArenaPlace(algorithm=algorithm, align=align).apply(_context(), module)
    module.verify()
    if problem:
        bytes_, offsets = _views(main)
        assert len(offsets) == len(problem)
        assert placement.check(problem, offsets, align) == []
        assert all(o + b.size <= bytes_ for o, b in zip(offsets, problem, strict=True))
        assert bytes_ >= placement.lower_bound(problem)
    tmp = tmp_path_factory.mktemp("random")
    before = _run(text, tmp, "before.mlir")
    assert _run(str(module), tmp, "after.mlir") == before


# --- malformed input -----------------------------------------------------------------------------------------------

_LOCATED_LINE = r"^\S+:\d+:\d+: error: \S"
_SOURCES = [ROOT / "examples" / "memref.mlir", ROOT / "test" / "filecheck" / "memref" / "run" / "while.mlir"]


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(_SOURCES), st.data())
def test_malformed_input_is_one_located_error(tmp_path_factory, source, data):
    """A file cut short, or with a few bytes changed, deleted or repeated, is placed or gets one located error line
    and exit status 1, never a traceback."""
    text = source.read_bytes()
    for _ in range(data.draw(st.integers(1, 3))):
        at = data.draw(st.integers(0, len(text) - 1))
        edit = data.draw(st.sampled_from(["cut", "byte", "delete", "repeat"]))
        if edit == "cut":
            text = text[:at]
        elif edit == "byte":
            text = text[:at] + bytes([data.draw(st.sampled_from(b"%{}()<>[]:,=x0 \n\xff"))]) + text[at + 1 :]
        elif edit == "delete":
            text = text[:at] + text[at + data.draw(st.integers(1, 20)) :]
        else:
            text = text[:at] + text[at : at + data.draw(st.integers(1, 20))] + text[at:]
        if not text:
            break
    path = tmp_path_factory.mktemp("malformed") / "bad.mlir"
    path.write_bytes(text)
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        status = opt.main([str(path), "-p", "memref-arena-place"])
    lines = err.getvalue().splitlines()
    if status == 0:
        assert lines == []
    else:
        assert status == 1 and len(lines) == 1 and re.match(_LOCATED_LINE, lines[0]), err.getvalue()
