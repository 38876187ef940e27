"""Interpretations of the scalar ops that torch-mlir and IREE's bufferized functions use and xDSL's interpreter lacks
(arith's float casts and negation, math's `erf`, `rsqrt`, `tanh`, `sin`, `cos`, `powf`, `fpowi`, `cf.assert`), and
`linalg.generic` with `linalg.index` and several outputs, which xDSL's runs without. Each is written as xDSL's own
interpreter functions are (one `InterpreterFunctions` class a dialect, one `@impl` an op), so that it can go
upstream as it is (docs/upstream.md). Floats are computed in double precision and rounded to the result's type
where MLIR rounds: a `truncf` to f32 or f16, and every store into a memref (as xDSL's own float ops do)."""

from __future__ import annotations

import math as pymath
from collections.abc import Callable
from itertools import product
from typing import Any

import numpy
from xdsl.dialects import arith, cf, math
from xdsl.dialects.builtin import AnyFloat, Float16Type, Float32Type, Float64Type, IndexType
from xdsl.dialects.linalg.ops import GenericOp, IndexOp
from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, impl, register_impls
from xdsl.interpreters.shaped_array import ShapedArray
from xdsl.utils.exceptions import InterpretationError

from lanearena.memref.interpret import held, number, scalar

ROUNDING: dict[type[AnyFloat], Callable[[float], float]] = {
    Float16Type: lambda v: float(numpy.float16(v)),
    Float32Type: lambda v: float(numpy.float32(v)),
    Float64Type: float,
}
"""How a float is rounded to each type numpy has."""


def _float(op_result_type: Any) -> AnyFloat:
    assert isinstance(op_result_type, AnyFloat)
    return op_result_type


def _rounded(value: float, kind: AnyFloat) -> float:
    """`value` rounded to the nearest float of `kind` (IEEE round to nearest even)."""
    rounding = ROUNDING.get(type(kind))
    if rounding is None:
        raise InterpretationError(f"no rounding to {kind} here")
    with numpy.errstate(over="ignore"):  # past the largest finite value: an infinity, as IEEE says
        return rounding(value)


def _unary(args: PythonValues, kind: Any, f: Callable[[float], float]) -> PythonValues:
    """The result of `f` over the one float argument, held as the interpreter held the argument."""
    with numpy.errstate(all="ignore"):  # IEEE: a domain error is a NaN, an overflow an infinity
        value = float(f(numpy.float64(number(args[0]))))
    return (scalar(value, args[0], _float(kind)),)


@register_impls
class ArithFloatFunctions(InterpreterFunctions):
    """arith's float ops that xDSL's interpreter lacks."""

    @impl(arith.ExtFOp)
    def run_extf(self, interpreter: Interpreter, op: arith.ExtFOp, args: PythonValues) -> PythonValues:
        return _unary(args, op.result.type, lambda v: v)  # every narrower float is exact in a double

    @impl(arith.TruncFOp)
    def run_truncf(self, interpreter: Interpreter, op: arith.TruncFOp, args: PythonValues) -> PythonValues:
        kind = _float(op.result.type)
        return _unary(args, kind, lambda v: _rounded(float(v), kind))

    @impl(arith.NegfOp)
    def run_negf(self, interpreter: Interpreter, op: arith.NegfOp, args: PythonValues) -> PythonValues:
        return _unary(args, op.result.type, lambda v: -v)

    @impl(arith.SIToFPOp)
    def run_sitofp(self, interpreter: Interpreter, op: arith.SIToFPOp, args: PythonValues) -> PythonValues:
        return (scalar(float(number(args[0])), args[0], _float(op.result.type)),)

    @impl(arith.DivfOp)
    def run_divf(self, interpreter: Interpreter, op: arith.DivfOp, args: PythonValues) -> PythonValues:
        with numpy.errstate(divide="ignore", invalid="ignore"):  # IEEE: x/0 is an infinity or NaN
            quotient = numpy.float64(number(args[0])) / numpy.float64(number(args[1]))
        return (scalar(float(quotient), args[0], _float(op.result.type)),)


@register_impls
class MathFunctions(InterpreterFunctions):
    """math's ops that xDSL's interpreter lacks."""

    @impl(math.ErfOp)
    def run_erf(self, interpreter: Interpreter, op: math.ErfOp, args: PythonValues) -> PythonValues:
        return _unary(args, op.result.type, lambda v: pymath.erf(v))

    @impl(math.RsqrtOp)
    def run_rsqrt(self, interpreter: Interpreter, op: math.RsqrtOp, args: PythonValues) -> PythonValues:
        return _unary(args, op.result.type, lambda v: 1.0 / numpy.sqrt(v))

    @impl(math.TanhOp)
    def run_tanh(self, interpreter: Interpreter, op: math.TanhOp, args: PythonValues) -> PythonValues:
        return _unary(args, op.result.type, numpy.tanh)

    @impl(math.SinOp)
    def run_sin(self, interpreter: Interpreter, op: math.SinOp, args: PythonValues) -> PythonValues:
        return _unary(args, op.result.type, numpy.sin)

    @impl(math.CosOp)
    def run_cos(self, interpreter: Interpreter, op: math.CosOp, args: PythonValues) -> PythonValues:
        return _unary(args, op.result.type, numpy.cos)

    @impl(math.PowFOp)
    def run_powf(self, interpreter: Interpreter, op: math.PowFOp, args: PythonValues) -> PythonValues:
        exponent = numpy.float64(number(args[1]))
        return _unary(args, op.result.type, lambda v: numpy.power(v, exponent))

    @impl(math.FPowIOp)
    def run_fpowi(self, interpreter: Interpreter, op: math.FPowIOp, args: PythonValues) -> PythonValues:
        exponent = int(number(args[1]))
        return _unary(args, op.result.type, lambda v: numpy.power(v, numpy.float64(exponent)))


@register_impls
class CfFunctions(InterpreterFunctions):
    """`cf.assert`, which xDSL's interpreter lacks: a false condition stops the run with the op's message."""

    @impl(cf.AssertOp)
    def run_assert(self, interpreter: Interpreter, op: cf.AssertOp, args: PythonValues) -> PythonValues:
        if not number(args[0]):
            raise InterpretationError(f"assertion failed: {op.msg.data}")
        return ()


INDICES = "indices"
"""The interpreter data under which the iteration of each `linalg.generic` running, innermost last, is kept."""


@register_impls
class LinalgFunctions(InterpreterFunctions):
    """`linalg.generic` on memrefs, each output stored from its own yielded value (xDSL's stores every one into the
    first), with `linalg.index` (the iteration's index along a loop dimension), which xDSL's interpreter lacks."""

    @impl(GenericOp)
    def run_generic(self, interpreter: Interpreter, op: GenericOp, args: PythonValues) -> PythonValues:
        if op.results:
            raise InterpretationError("linalg.generic on tensors is not interpreted here: bufferize it first")
        maps = [m.data for m in op.get_indexing_maps()]
        shapes = [d for a in args if isinstance(a, ShapedArray) for d in a.shape]
        ranges = op.get_shapes_to_loops_map().eval(shapes, [])
        outputs = args[len(op.inputs) :]
        out_maps = maps[len(op.inputs) :]
        kinds = [a.type for a in op.body.block.args]
        running: list[tuple[int, ...]] = interpreter.get_data(LinalgFunctions, INDICES, list)
        width = interpreter.index_bitwidth
        for index in product(*(range(n) for n in ranges)):
            values = tuple(
                held(a.load(m.eval(index, ())), k, width) if isinstance(a, ShapedArray) else a
                for a, m, k in zip(args, maps, kinds, strict=True)
            )
            running.append(index)
            try:
                yielded = interpreter.run_ssacfg_region(op.body, values, "linalg.generic")
            finally:
                running.pop()
            for value, out, m in zip(yielded, outputs, out_maps, strict=True):
                out.store(m.eval(index, ()), number(value))
        return ()

    @impl(IndexOp)
    def run_index(self, interpreter: Interpreter, op: IndexOp, args: PythonValues) -> PythonValues:
        running: list[tuple[int, ...]] = interpreter.get_data(LinalgFunctions, INDICES, list)
        return (held(running[-1][op.dim.value.data], IndexType(), interpreter.index_bitwidth),)
