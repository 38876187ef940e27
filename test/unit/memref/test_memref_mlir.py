"""What torch-mlir and IREE's functions need of `memref-arena-place` and `lanearena-run`: region ops that run inline
(from their class, or named by `sync`), i1 buffers a byte an element, MLIR's spellings xDSL reads otherwise (a float
splat by its bits, `memref.load`'s `invariant`), and the scalar ops the interpreter lacked, each against values
computed here another way."""

from __future__ import annotations

import math
import struct

import pytest
from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import FloatAttr, TensorType
from xdsl.ir import Dialect
from xdsl.irdl import IRDLOperation, irdl_op_definition, region_def, traits_def
from xdsl.traits import NoTerminator, RecursiveMemoryEffect

from lanearena.memref import uses
from lanearena.memref.lifetimes import ARENA_ATTR
from lanearena.memref.place import OWN_ATTR, MemrefArenaPlace
from lanearena.tools import run
from lanearena.tools.diagnose import parse_located
from lanearena.tools.run import LanearenaRunMain, run_function


@irdl_op_definition
class InlineOp(IRDLOperation):
    """A pipeline's own region op that runs its region before it returns, and says so with xDSL's trait."""

    name = "mine.inline"
    body = region_def()
    traits = traits_def(RecursiveMemoryEffect(), NoTerminator())


def _context(allow_unregistered: bool = True):
    ctx = LanearenaRunMain([]).ctx
    ctx.load_dialect(Dialect("mine", [InlineOp]))
    ctx.allow_unregistered = allow_unregistered
    return ctx


def _placed(text: str, **options) -> func.FuncOp:
    ctx = _context()
    module = parse_located(ctx, text, "f.mlir")
    MemrefArenaPlace(**options).apply(ctx, module)
    module.verify()
    return next(op for op in module.walk() if isinstance(op, func.FuncOp))


def _kept(function: func.FuncOp) -> dict[str, str]:
    return {
        op.memref.name_hint: op.attributes[OWN_ATTR].data
        for op in function.walk()
        if isinstance(op, memref.AllocOp) and OWN_ATTR in op.attributes
    }


def _arena(function: func.FuncOp) -> int:
    arena = next(op for op in function.walk() if isinstance(op, memref.AllocOp) and ARENA_ATTR in op.attributes)
    return arena.attributes[ARENA_ATTR].value.data


def _two_buffers_in(region_op: str) -> str:
    """Two 1 KiB buffers used one after the other, each only inside a region op `region_op` (`{buffer}` names it,
    `{body}` is a store into it)."""
    ops = [region_op.format(buffer=b, body=f"memref.store %x, {b}[%c0] : memref<256xf32>") for b in ("%a", "%b")]
    return f"""func.func @f(%x: f32) {{
  %c0 = arith.constant 0 : index
  %a = memref.alloc() : memref<256xf32>
  %b = memref.alloc() : memref<256xf32>
  {ops[0]}
  {ops[1]}
  func.return
}}"""


GENERIC = (
    'linalg.generic {{indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}} '
    "outs({buffer} : memref<256xf32>) {{\n  ^bb0(%o: f32):\n    linalg.yield %x : f32\n  }}"
)


@pytest.mark.parametrize(
    "region_op",
    [
        GENERIC,  # a linalg structured op: its class says so
        '"mine.inline"() ({{\n    {body}\n  }}) : () -> ()',  # a pipeline's op with RecursiveMemoryEffect
        "scf.execute_region {{\n    {body}\n    scf.yield\n  }}",  # in the name table: xDSL's class does not say so
    ],
)
def test_region_ops_that_run_inline_end_their_uses_when_they_return(region_op):
    """Each buffer's last use is its region op: the two share bytes, an arena of one buffer (1024 bytes)."""
    function = _placed(_two_buffers_in(region_op))
    assert _kept(function) == {}
    assert _arena(function) == 1024


def test_an_unknown_region_op_keeps_its_buffers_unless_named_sync():
    text = _two_buffers_in('"my.region"() ({{\n    {body}\n  }}) : () -> ()')
    reason = "async: used inside my.region, whose regions may run after it returns"
    assert _kept(_placed(text)) == {"a": reason, "b": reason}
    assert _arena(_placed(text, sync=("my.region",))) == 1024


def test_a_subclass_may_say_a_region_op_runs_inline():
    class Pipeline(MemrefArenaPlace):
        def use_ends(self):
            return {**super().use_ends(), "my.region": uses.RETURNS}

    ctx = _context()
    module = parse_located(ctx, _two_buffers_in('"my.region"() ({{\n    {body}\n  }}) : () -> ()'), "f.mlir")
    Pipeline().apply(ctx, module)
    assert "lanearena.bytes = 1024" in str(module) and OWN_ATTR not in str(module)


def test_i1_buffers_take_a_byte_an_element():
    """Two masks live together at align 16: 20 and 17 elements, 20 and 17 bytes, 32 + 32 rounded."""
    text = """func.func @f(%p: i1) {
  %c0 = arith.constant 0 : index
  %a = memref.alloc() : memref<4x5xi1>
  %b = memref.alloc() : memref<17xi1>
  memref.store %p, %a[%c0, %c0] : memref<4x5xi1>
  memref.store %p, %b[%c0] : memref<17xi1>
  %x = memref.load %a[%c0, %c0] : memref<4x5xi1>
  func.return
}"""
    function = _placed(text, align=16)
    assert _kept(function) == {} and _arena(function) == 64


def test_a_float_splat_written_by_its_bits_is_read_as_mlir_means_it(tmp_path):
    """-inf and a NaN written as MLIR writes them (their bits), as a global and as a constant."""
    text = """"memref.global"() <{constant, initial_value = dense<0xFF800000> : tensor<2xf32>, sym_name = "low",
  sym_visibility = "private", type = memref<2xf32>}> : () -> ()
func.func @main() -> (f32, f32) {
  %c1 = arith.constant 1 : index
  %g = memref.get_global @low : memref<2xf32>
  %x = memref.load %g[%c1] : memref<2xf32>
  func.return %x, %x : f32, f32
}
func.func @nan() -> tensor<2xf64> {
  %n = arith.constant dense<0x7FF8000000000001> : tensor<2xf64>
  func.return %n : tensor<2xf64>
}"""
    results, _ = run_function(text)
    assert results == [-math.inf, -math.inf]
    module = parse_located(_context(), text, "f.mlir")
    nan = next(
        op for op in module.walk() if isinstance(op, arith.ConstantOp) and isinstance(op.result.type, TensorType)
    )
    bits = struct.unpack("<Q", struct.pack("<d", nan.value.get_values()[0]))[0]  # type: ignore[attr-defined]
    assert bits == 0x7FF8000000000001


def test_the_invariant_property_of_memref_load_is_accepted():
    text = """func.func @main(%a: memref<4xf32>) -> (f32, f32) {
  %c2 = arith.constant 2 : index
  %x = "memref.load"(%a, %c2) <{invariant = false, nontemporal = false}> : (memref<4xf32>, index) -> f32
  %y = "memref.load"(%a, %c2) <{invariant = true, nontemporal = false}> : (memref<4xf32>, index) -> f32
  func.return %x, %y : f32, f32
}"""
    module = parse_located(_context(), text, "f.mlir")
    module.verify()
    loads = [op for op in module.walk() if isinstance(op, memref.LoadOp)]
    assert ["invariant" in op.attributes for op in loads] == [False, True]  # a true hint is kept
    results, args = run_function(text, seed=3)
    assert results == [args[0][2], args[0][2]]


SCALARS = [
    # (op text, argument, expected: computed here from the definitions, not by the code under test)
    ("math.erf %x : f64", 0.5, 0.5204998778130465),  # erf(1/2), from tables
    ("math.rsqrt %x : f64", 6.25, 0.4),
    ("math.tanh %x : f64", math.log(3.0), 0.8),  # tanh(ln 3) = (9 - 1) / (9 + 1)
    ("math.sin %x : f64", math.pi / 6, 0.5),
    ("math.cos %x : f64", math.pi / 3, 0.5),
    ("math.fpowi %x, %three : f64, i32", -1.5, -3.375),
    ("math.powf %x, %half : f64", 2.25, 1.5),
    ("arith.negf %x : f64", 2.0, -2.0),
]


@pytest.mark.parametrize(("line", "argument", "expected"), SCALARS)
def test_scalar_ops_the_interpreter_lacked(line, argument, expected):
    text = f"""func.func @main(%x: f64) -> f64 {{
  %three = arith.constant 3 : i32
  %half = arith.constant 0.5 : f64
  %y = {line}
  func.return %y : f64
}}"""
    ctx = _context()
    module = parse_located(ctx, text, "f.mlir")
    from xdsl.interpreter import Interpreter

    interpreter = Interpreter(module)
    LanearenaRunMain([]).register_implementations(interpreter)
    (result,), _ = run.call(interpreter, ctx, "main", f"{argument!r} : f64")
    assert (
        FloatAttr(result, 64).value.data == pytest.approx(expected, rel=1e-12)
        if isinstance(result, float)
        else (result.value.data == pytest.approx(expected, rel=1e-12))
    )


def test_truncf_rounds_to_the_narrower_float_and_extf_keeps_it():
    text = """func.func @main() -> (f32, f64, f16) {
  %x = arith.constant 0.1 : f64
  %y = arith.truncf %x : f64 to f32
  %z = arith.extf %y : f32 to f64
  %h = arith.truncf %x : f64 to f16
  func.return %y, %z, %h : f32, f64, f16
}"""
    results, _ = run_function(text)
    single = struct.unpack("<f", struct.pack("<f", 0.1))[0]  # 0.1 rounded to binary32 by struct
    half = struct.unpack("<e", struct.pack("<e", 0.1))[0]
    assert results == [single, single, half] and single != 0.1


def test_a_false_assert_stops_the_run_at_its_line(tmp_path, capsys):
    path = tmp_path / "f.mlir"
    path.write_text("""func.func @main(%i: index) {
  %c4 = arith.constant 4 : index
  %ok = arith.cmpi slt, %i, %c4 : index
  cf.assert %ok, "index must be smaller than dim size"
  func.return
}
""")
    assert run.main([str(path), "--args", "3 : index"]) == 0
    assert run.main([str(path), "--args", "7 : index"]) == 1
    err = capsys.readouterr().err.strip()
    assert err == (
        f"{path}:4:3: error: while running @main: 'cf.assert': assertion failed: index must be smaller than dim size"
    )


def test_linalg_generic_stores_each_output_and_reads_its_indices():
    """Two outputs: out0[i, j] = 10 i + j (from linalg.index), out1[i, j] = input[j] * 2."""
    text = """func.func @main(%in: memref<3xf64>, %o0: memref<2x3xi64>, %o1: memref<2x3xf64>)
    -> (memref<2x3xi64>, memref<2x3xf64>) {
  %ten = arith.constant 10 : i64
  %two = arith.constant 2.0 : f64
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%in : memref<3xf64>) outs(%o0, %o1 : memref<2x3xi64>, memref<2x3xf64>) {
  ^bb0(%x: f64, %a: i64, %b: f64):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %ii = arith.index_cast %i : index to i64
    %jj = arith.index_cast %j : index to i64
    %t = arith.muli %ii, %ten : i64
    %v = arith.addi %t, %jj : i64
    %w = arith.mulf %x, %two : f64
    linalg.yield %v, %w : i64, f64
  }
  func.return %o0, %o1 : memref<2x3xi64>, memref<2x3xf64>
}"""
    (indices, doubled), (given, _, _) = run_function(text, seed=5)
    assert indices.tolist() == [[0, 1, 2], [10, 11, 12]]
    assert doubled.tolist() == [[2 * v for v in given.tolist()]] * 2
