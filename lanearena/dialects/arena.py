"""The `arena` dialect: a placed step's memory, as `lane-arena-place` rewrites the step onto it.

    %arena = arena.alloc bytes(84224) align(256) lower_bound(84224) algorithm("greedy")
    %h = arena.tensor "h" %arena forms(plain, quant) plain(0) quant(81920) : !lane.tensor<2048xf32>
    %fp = arena.scratch "fp" %arena[0] bytes(65536)
    %fq = arena.counter "fq" bytes(256)
    lane.gemv %h(quant), %wq -> %q split(4) scratch(%fp, %fq)

One arena a step (`arena.alloc`); each computed tensor whose arrays live in it is defined on it (`arena.tensor`, the
offset of each placed array); each launch's scratch is bytes of the arena at an offset and each counter a zeroed
buffer of its own, both values the launch takes. An array that keeps a buffer of its own says why on the op that
defines its tensor (`own(plain = output)`)."""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence

from xdsl.dialects.builtin import I64, ArrayAttr, IntegerAttr, StringAttr
from xdsl.ir import Dialect, SSAValue
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, opt_prop_def, prop_def, result_def, traits_def
from xdsl.traits import MemoryAllocEffect, Pure
from xdsl.utils.exceptions import VerifyException

from lanearena.dialects.attrs import BufferType, FormAttr, Reason, ReasonAttr, TensorType, form_attrs
from lanearena.dialects.base import (
    IN_STEP,
    TENSOR_FORMAT,
    BufferDef,
    ComputedDef,
    OrderedOp,
    own_properties,
    step_numerics,
)
from lanearena.model import Form


@functools.lru_cache(maxsize=4096)
def i64(value: int) -> IntegerAttr:
    """`value` as an i64 attribute (immutable, so one for each value: a placed step repeats its offsets)."""
    return IntegerAttr(value, 64)


@functools.lru_cache(maxsize=1024)
def _tag(tag: str) -> StringAttr:
    """`tag` as a string attribute (one for each tag: every split launch takes scratch of the same tags)."""
    return StringAttr(tag)


_NAME = re.compile(r"[A-Za-z_$.-][A-Za-z0-9_$.-]*")


def _named(value: SSAValue, tag: str) -> None:
    """Names `value` after the tag of its scratch or counter, where the tag is a valid SSA name."""
    if _NAME.fullmatch(tag):
        value.name_hint = tag


def _not_negative(op: IRDLOperation, **values: int) -> None:
    for name, v in values.items():
        if v < 0:
            raise VerifyException(f"{op.name}: {name} must not be negative, not {v}")


def _on_the_arena(op: IRDLOperation, arena: SSAValue) -> None:
    if not isinstance(arena.owner, AllocOp):
        raise VerifyException(f"{op.name}: its arena operand must be the step's arena.alloc")


@irdl_op_definition
class AllocOp(OrderedOp):
    """`%arena = arena.alloc bytes(84224) align(256) lower_bound(84224) algorithm("greedy")`: the step's one arena,
    `bytes` aligned to `align`; `lower_bound` is the most bytes live at one launch, and `algorithm` the placement
    that produced it."""

    name = "arena.alloc"
    nbytes = prop_def(IntegerAttr[I64], prop_name="bytes")
    align = prop_def(IntegerAttr[I64])
    lower_bound = prop_def(IntegerAttr[I64])
    algorithm = prop_def(StringAttr)
    result = result_def(BufferType())
    assembly_format = (
        "`bytes` `(` $bytes `)` `align` `(` $align `)` `lower_bound` `(` $lower_bound `)` "
        "`algorithm` `(` $algorithm `)` attr-dict"
    )
    traits = traits_def(MemoryAllocEffect(), IN_STEP)

    def __init__(self, nbytes: int, align: int, lower_bound: int, algorithm: str):
        super().__init__(
            properties={
                "bytes": i64(nbytes),
                "align": i64(align),
                "lower_bound": i64(lower_bound),
                "algorithm": StringAttr(algorithm),
            },
            result_types=[BufferType()],
        )
        self.result.name_hint = "arena"

    def verify_(self) -> None:
        _not_negative(self, bytes=self.nbytes.value.data, lower_bound=self.lower_bound.value.data)
        if self.align.value.data <= 0:
            raise VerifyException(f"arena.alloc: align must be positive, not {self.align.value.data}")
        at = self.prev_op
        while at is not None:
            if isinstance(at, AllocOp):
                raise VerifyException("arena.alloc: a step has one arena, and this is its second")
            at = at.prev_op


@irdl_op_definition
class TensorOp(ComputedDef):
    """`%h = arena.tensor "h" %arena forms(plain, quant) plain(0) quant(81920) : !lane.tensor<2048xf32>`: a
    computed tensor whose arrays live in the arena, each at its offset; an array of it that does not says why
    (`own(quant = unsafe)`)."""

    name = "arena.tensor"
    arena = operand_def(BufferType())
    plain = opt_prop_def(IntegerAttr[I64])
    quant = opt_prop_def(IntegerAttr[I64])
    assembly_format = TENSOR_FORMAT.format(
        "$arena custom<Forms>($forms) (`plain` `(` $plain^ `)`)? (`quant` `(` $quant^ `)`)?"
    )
    traits = traits_def(Pure(), IN_STEP)

    def __init__(
        self,
        tensor: str | StringAttr,
        arena: SSAValue,
        type: TensorType,
        forms: Sequence[str] | ArrayAttr[FormAttr],
        offsets: Mapping[Form, int],
        own: Mapping[Form, Reason] = {},
    ):
        super().__init__(
            operands=[arena],
            result_types=[type],
            properties={
                "tensor": tensor if isinstance(tensor, StringAttr) else StringAttr(tensor),
                "forms": forms if isinstance(forms, ArrayAttr) else form_attrs(forms),
                **{f.value: i64(offsets[f]) for f in Form if f in offsets},
                **own_properties(own),
            },
        )

    @property
    def offsets(self) -> dict[Form, int]:
        """Where each placed array of the tensor starts in the arena."""
        out = {}
        for form, attr in ((Form.PLAIN, self.plain), (Form.QUANT, self.quant)):
            if attr is not None:
                out[form] = attr.value.data
        return out

    def verify_(self) -> None:
        super().verify_()
        _on_the_arena(self, self.arena)
        offsets = self.offsets
        if not offsets:
            raise VerifyException(
                f"arena.tensor '{self.tensor_name}': no array at an offset (a tensor none of whose "
                "arrays is placed is a lane.tensor)"
            )
        for form, offset in offsets.items():
            if offset < 0:
                raise VerifyException(
                    f"arena.tensor '{self.tensor_name}': {form.value}({offset}), an offset must not be negative"
                )
            if form.value not in self.forms:
                raise VerifyException(
                    f"arena.tensor '{self.tensor_name}' {form.value}: the tensor is not allocated in that form (its "
                    f"forms are ({', '.join(self.forms)}))"
                )
            if form in self.own:
                raise VerifyException(f"arena.tensor '{self.tensor_name}' {form.value}: placed, and own too")
            numerics = step_numerics(self)
            if form is Form.QUANT and numerics is not None and not numerics.quantized:
                raise VerifyException(
                    f"arena.tensor '{self.tensor_name}' quant: no array is quantized under {numerics} numerics"
                )


@irdl_op_definition
class ScratchOp(BufferDef):
    """`%fp = arena.scratch "fp" %arena[0] bytes(65536)`: a launch's scratch `tag`, `bytes` of the arena from
    `offset`, live while the launch that takes it runs."""

    name = "arena.scratch"
    arena = operand_def(BufferType())
    offset = prop_def(IntegerAttr[I64])
    assembly_format = "custom<Name>($tag) $arena `[` $offset `]` `bytes` `(` $bytes `)` attr-dict"
    # Bytes of the arena for one launch while it runs: two alike for two launches are two buffers, never one (CSE).
    traits = traits_def(MemoryAllocEffect(), IN_STEP)

    def __init__(self, tag: str, arena: SSAValue, offset: int, nbytes: int):
        super().__init__(
            operands=[arena],
            result_types=[BufferType()],
            properties={"tag": _tag(tag), "offset": i64(offset), "bytes": i64(nbytes)},
        )
        _named(self.result, tag)

    def verify_(self) -> None:
        super().verify_()
        _on_the_arena(self, self.arena)
        _not_negative(self, offset=self.offset.value.data)


@irdl_op_definition
class CounterOp(BufferDef):
    """`%fq = arena.counter "fq" bytes(256)`: a launch's counter `tag`, a zeroed buffer of `bytes` of its own (zero
    before the launch and left zero by it), never arena bytes."""

    name = "arena.counter"
    assembly_format = "custom<Name>($tag) `bytes` `(` $bytes `)` attr-dict"
    traits = traits_def(MemoryAllocEffect(), IN_STEP)

    def __init__(self, tag: str, nbytes: int):
        super().__init__(result_types=[BufferType()], properties={"tag": _tag(tag), "bytes": i64(nbytes)})
        _named(self.result, tag)


ARENA = Dialect("arena", [AllocOp, TensorOp, ScratchOp, CounterOp], [BufferType, ReasonAttr])
