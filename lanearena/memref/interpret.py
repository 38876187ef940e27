"""Memrefs over real bytes for xDSL's interpreter: the alias ops (`memref.view`, `memref.subview`, `memref.cast`,
`memref.reinterpret_cast`, `memref.collapse_shape`, `memref.expand_shape`) give arrays that share their source's
bytes, so two views of one arena share bytes as they would when compiled. Every fresh allocation, and every view of
an arena made by `memref-arena-place` (the allocation it stands for), is poisoned: 0xFF bytes, NaN for floats, -1
for integers, so a read of bytes that another live buffer owns shows in the output. Also the few scalar ops xDSL's
interpreter lacks that the tests' functions use (`arith.sitofp`, `arith.divf`), and affine accesses as xDSL parses
them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate
from math import prod
from typing import Any, Literal

import numpy
from xdsl.dialects import affine, memref
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AffineMapAttr,
    AnyFloat,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    MemRefType,
    PackableType,
)
from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, impl, register_impls
from xdsl.interpreters import builtin as builtin_functions
from xdsl.interpreters.builtin import xtype_for_el_type
from xdsl.interpreters.shaped_array import ShapedArray
from xdsl.interpreters.utils.ptr import RawPtr, TypedPtr
from xdsl.ir import Attribute
from xdsl.utils.exceptions import InterpretationError

from lanearena.memref.lifetimes import ARENA_ATTR

_scalar_attr = getattr(builtin_functions, "scalar_attr", None)
"""How xDSL 0.75 makes an interpreted scalar (an attribute); 0.74 keeps the number itself and has none."""

POISON = 0xFF
"""The byte every fresh allocation is filled with."""


@dataclass
class StridedArray(ShapedArray[Any]):
    """A memref's value: `_data` points at its first element and an index steps `strides` elements per dimension.
    `base` is the aligned pointer of MLIR's memref descriptor: the start of the allocation, or of the `memref.view`
    it was taken from (MLIR's lowering folds a view's byte shift into that pointer); `subview`, `cast`,
    `collapse_shape` and `expand_shape` keep it, and `reinterpret_cast` counts its offset from it."""

    strides: list[int]
    base: RawPtr

    def offset(self, index: Sequence[int]) -> int:
        if len(index) != len(self.shape) or not all(0 <= i < n for i, n in zip(index, self.shape, strict=True)):
            raise IndexError(f"index {list(index)} lies outside a memref of shape {self.shape}")
        return sum(i * s for i, s in zip(index, self.strides, strict=True))

    @property
    def data(self) -> list[Any]:
        return [self.load(i) for i in self.indices()]

    def copy(self) -> StridedArray:
        return contiguous(TypedPtr[Any].new(self.data, xtype=self.element_type), self.shape)

    def with_shape(self, new_shape: Sequence[int]) -> StridedArray:
        return contiguous(TypedPtr[Any].new(self.data, xtype=self.element_type), new_shape)

    def __format__(self, format_spec: str) -> str:
        return _nested(self.data, self.shape)

    def element_bytes(self) -> int:
        return self.element_type.compile_time_size


def _nested(values: list[Any], shape: Sequence[int]) -> str:
    if not shape:
        return f"{values[0]}"
    step = prod(shape[1:])
    return "[" + ", ".join(_nested(values[i * step : (i + 1) * step], shape[1:]) for i in range(shape[0])) + "]"


def row_major(shape: Sequence[int]) -> list[int]:
    """The strides of a contiguous array of `shape`."""
    return list(accumulate(reversed([*shape[1:], 1]), lambda a, b: a * b))[::-1] if shape else []


def contiguous(data: TypedPtr[Any], shape: Sequence[int]) -> StridedArray:
    """A contiguous array of `shape` over `data`, which starts its allocation."""
    return StridedArray(data, list(shape), row_major(shape), data.raw)


def strided(value: ShapedArray[Any]) -> StridedArray:
    """`value` as a strided array over the same bytes (xDSL's own ops give contiguous `ShapedArray`s)."""
    return value if isinstance(value, StridedArray) else contiguous(value.data_ptr, value.shape)


def poisoned(count: int, xtype: PackableType[Any]) -> TypedPtr[Any]:
    """`count` fresh elements of `xtype`, every byte `POISON`."""
    return TypedPtr(RawPtr(bytearray([POISON]) * (count * xtype.compile_time_size)), xtype=xtype)


def held(value: int | float, type: Attribute, bitwidth: int) -> Any:
    """`value` of `type` as the interpreter keeps a scalar: an attribute under xDSL 0.75, the number under 0.74."""
    if _scalar_attr is None:
        return value
    return _scalar_attr(value, type, bitwidth)


def number(value: Any) -> Any:
    """An interpreted scalar's number: xDSL 0.75's interpreter keeps scalars as attributes, 0.74's as numbers."""
    return value.value.data if isinstance(value, (IntegerAttr, FloatAttr)) else value


def scalar(value: float, like: Any, type: AnyFloat) -> Any:
    """A float result kept as the interpreter kept `like`, an argument: an attribute or a number."""
    return FloatAttr(value, type) if isinstance(like, (IntegerAttr, FloatAttr)) else value


def _sizes(static: Sequence[int], dynamic: Sequence[Any]) -> list[int]:
    """`static` with each dynamic entry taken in turn from `dynamic` (interpreted index values)."""
    values = iter(number(v) for v in dynamic)
    return [next(values) if s == DYNAMIC_INDEX else s for s in static]


def _at(
    array: StridedArray, elements: int, xtype: PackableType[Any], shape: Sequence[int], strides: Sequence[int]
) -> StridedArray:
    """An array of `shape` and `strides` whose first element is `elements` past `array`'s, over the same bytes."""
    raw = array.data_ptr.raw + elements * array.element_bytes()
    return StridedArray(TypedPtr(raw, xtype=xtype), list(shape), list(strides), array.base)


@register_impls
class ByteMemrefFunctions(InterpreterFunctions):
    """Allocation, the alias ops and `memref.copy` over shared bytes; registered over xDSL's memref functions."""

    @impl(memref.AllocOp)
    def run_alloc(self, interpreter: Interpreter, op: memref.AllocOp, args: PythonValues) -> PythonValues:
        return (self._fresh(interpreter, op.memref.type, args[: len(op.dynamic_sizes)]),)

    @impl(memref.AllocaOp)
    def run_alloca(self, interpreter: Interpreter, op: memref.AllocaOp, args: PythonValues) -> PythonValues:
        return (self._fresh(interpreter, op.memref.type, args[: len(op.dynamic_sizes)]),)

    def _fresh(self, interpreter: Interpreter, kind: Any, dynamic: Sequence[Any]) -> StridedArray:
        assert isinstance(kind, MemRefType)
        shape = _sizes(kind.get_shape(), dynamic)
        xtype = xtype_for_el_type(kind.get_element_type(), interpreter.index_bitwidth)
        return contiguous(poisoned(prod(shape), xtype), shape)

    @impl(memref.ViewOp)
    def run_view(self, interpreter: Interpreter, op: memref.ViewOp, args: PythonValues) -> PythonValues:
        source, shift, *dynamic = args
        source = strided(source)
        kind = op.result.type
        assert isinstance(kind, MemRefType)
        shape = _sizes(kind.get_shape(), dynamic)
        xtype = xtype_for_el_type(kind.get_element_type(), interpreter.index_bitwidth)
        shift = number(shift)
        raw = source.data_ptr.raw + shift
        size = prod(shape) * xtype.compile_time_size
        if not 0 <= shift <= source.size * source.element_bytes() - size:  # a 1-D i8 source
            raise InterpretationError(f"memref.view of {size} bytes at byte {shift} lies outside its source")
        if isinstance(op.source.owner, memref.AllocOp) and ARENA_ATTR in op.source.owner.attributes:
            raw.memory[raw.offset : raw.offset + size] = bytearray([POISON]) * size
        return (StridedArray(TypedPtr(raw, xtype=xtype), shape, row_major(shape), raw),)

    @impl(memref.SubviewOp)
    def run_subview(self, interpreter: Interpreter, op: memref.SubviewOp, args: PythonValues) -> PythonValues:
        source = strided(args[0])
        n_off, n_size = len(op.offsets), len(op.sizes)
        dynamic = args[1:]
        offsets = _sizes(op.static_offsets.get_values(), dynamic[:n_off])
        sizes = _sizes(op.static_sizes.get_values(), dynamic[n_off : n_off + n_size])
        steps = _sizes(op.static_strides.get_values(), dynamic[n_off + n_size :])
        start = sum(o * s for o, s in zip(offsets, source.strides, strict=False))
        strides = [s * t for s, t in zip(source.strides, steps, strict=False)]
        kind = op.result.type
        assert isinstance(kind, MemRefType)
        while len(sizes) > kind.get_num_dims():  # a rank-reducing subview drops unit dimensions
            unit = sizes.index(1)
            del sizes[unit], strides[unit]
        return (_at(source, start, source.element_type, sizes, strides),)

    @impl(memref.CastOp)
    def run_cast(self, interpreter: Interpreter, op: memref.CastOp, args: PythonValues) -> PythonValues:
        return (strided(args[0]),)

    @impl(memref.ReinterpretCastOp)
    def run_reinterpret_cast(
        self, interpreter: Interpreter, op: memref.ReinterpretCastOp, args: PythonValues
    ) -> PythonValues:
        source = strided(args[0])
        n_off, n_size = len(op.offsets), len(op.sizes)
        dynamic = args[1:]
        (offset,) = _sizes(op.static_offsets.get_values(), dynamic[:n_off])
        sizes = _sizes(op.static_sizes.get_values(), dynamic[n_off : n_off + n_size])
        strides = _sizes(op.static_strides.get_values(), dynamic[n_off + n_size :])
        raw = source.base + offset * source.element_bytes()
        return (StridedArray(TypedPtr(raw, xtype=source.element_type), sizes, strides, source.base),)

    @impl(memref.CollapseShapeOp)
    def run_collapse_shape(
        self, interpreter: Interpreter, op: memref.CollapseShapeOp, args: PythonValues
    ) -> PythonValues:
        source = strided(args[0])
        sizes, strides = [], []
        for group in op.reassociation:
            dims = [number(d) for d in group]
            sizes.append(prod(source.shape[d] for d in dims))
            strides.append(source.strides[dims[-1]] if dims else 1)
        return (_at(source, 0, source.element_type, sizes, strides),)

    @impl(memref.ExpandShapeOp)
    def run_expand_shape(self, interpreter: Interpreter, op: memref.ExpandShapeOp, args: PythonValues) -> PythonValues:
        source = strided(args[0])
        shape = _sizes(op.static_output_shape.get_values(), args[1:])
        strides = [0] * len(shape)
        for source_dim, group in enumerate(op.reassociation):
            step = source.strides[source_dim]
            for d in reversed([number(d) for d in group]):
                strides[d] = step
                step *= shape[d]
        return (_at(source, 0, source.element_type, shape, strides),)

    @impl(memref.CopyOp)
    def run_copy(self, interpreter: Interpreter, op: memref.CopyOp, args: PythonValues) -> PythonValues:
        source, target = strided(args[0]), strided(args[1])
        for index, value in zip(target.indices(), source.data, strict=False):
            target.store(index, value)
        return ()


@register_impls
class AffineAccessFunctions(InterpreterFunctions):
    """`affine.load` and `affine.store` whose map takes symbols as well as dimensions (xDSL's parser makes every index
    operand a symbol; xDSL's own functions pass them all as dimensions)."""

    @impl(affine.LoadOp)
    def run_load(self, interpreter: Interpreter, op: affine.LoadOp, args: PythonValues) -> PythonValues:
        memref, *indices = args
        value = memref.load(_affine_index(op.map, indices))
        return (held(value, op.result.type, interpreter.index_bitwidth),)

    @impl(affine.StoreOp)
    def run_store(self, interpreter: Interpreter, op: affine.StoreOp, args: PythonValues) -> PythonValues:
        value, memref, *indices = args
        memref.store(_affine_index(op.map, indices), number(value))
        return ()


def _affine_index(map_: AffineMapAttr | None, operands: Sequence[Any]) -> tuple[int, ...]:
    """The index `map_` gives for `operands` (interpreted index values): its dimensions, then its symbols."""
    assert map_ is not None
    values = [number(v) for v in operands]
    dims = map_.data.num_dims
    return tuple(map_.data.eval(values[:dims], values[dims:]))


INTEGERS = 16
"""Drawn integers lie in `[0, INTEGERS)` (0 or 1 for an `i1`): small enough to index the tables of a test's model."""


def random_values(element: Attribute, count: int, rng: numpy.random.Generator) -> list[Any]:
    """`count` values of type `element` drawn from `rng`: floats uniform in [-1, 1), integers and indices in
    `[0, INTEGERS)`, 0 or 1 for an `i1`."""
    if isinstance(element, AnyFloat):
        return [float(v) for v in rng.uniform(-1.0, 1.0, count)]
    top = 2 if isinstance(element, IntegerType) and element.bitwidth == 1 else INTEGERS
    return [int(v) for v in rng.integers(0, top, count)]


def random_argument(kind: Attribute, rng: numpy.random.Generator, index_bitwidth: Literal[32, 64]) -> Any:
    """An argument of type `kind` as the interpreter holds it, its values drawn as `random_values` does."""
    if isinstance(kind, MemRefType):
        shape = kind.get_shape()
        xtype = xtype_for_el_type(kind.get_element_type(), index_bitwidth)
        values = random_values(kind.get_element_type(), prod(shape), rng)
        return contiguous(TypedPtr[Any].new(values, xtype=xtype), shape)
    (value,) = random_values(kind, 1, rng)
    return held(value, kind, index_bitwidth)


def as_numpy(value: Any) -> Any:
    """An interpreted value as numpy's: a memref's elements as an array of its shape, a scalar as its number."""
    if isinstance(value, ShapedArray):
        array = strided(value)
        return numpy.array(array.data).reshape(array.shape)
    return number(value)
