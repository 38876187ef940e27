"""The `arena` dialect: a placed step's memory, as `lane-arena-place` rewrites the step onto it.

    %arena = arena.alloc bytes(84224) align(256) lower_bound(84224) algorithm("greedy")
    %h = arena.tensor "h" %arena forms(plain, quant) plain(0) quant(81920) : !lane.tensor<2048xf32>
    %fp = arena.scratch "fp" %arena[0] bytes(65536)
    %fq = arena.counter "fq" bytes(256)
    lane.gemv %h(quant), %wq -> %q split(4) scratch(%fp, %fq)

One arena a step (`arena.alloc`, its first op); each computed tensor whose arrays live in it is defined on it
(`arena.tensor`, the offset of each placed array); each launch's scratch is bytes of the arena at an offset and each
counter a zeroed buffer of its own, both values the launch takes. An array that keeps a buffer of its own says why
on the op that defines its tensor (`own(plain = output)`, see `lane_tensors`)."""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence

from xdsl.dialects.builtin import I64, IntegerAttr, StringAttr
from xdsl.ir import Attribute, Dialect, SSAValue
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, opt_prop_def, prop_def, result_def, traits_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from lanearena.dialects.attrs import BufferType, ReasonAttr
from lanearena.dialects.lane_tensors import (
    ComputedDef,
    TensorType,
    _parse_optional_forms_clause,
    _parse_tensor_type,
    parse_own_clause,
    print_own_clause,
    step_numerics,
    verify_computed,
    verify_in_step,
)
from lanearena.dialects.located import located, located_op, source_location
from lanearena.dialects.syntax import form_attrs, parse_i64, parse_str, parse_value
from lanearena.model import Form, Numerics


@functools.lru_cache(maxsize=4096)
def i64(value: int) -> IntegerAttr:
    """`value` as an i64 attribute (immutable, so one for each value: a placed step repeats its offsets)."""
    return IntegerAttr(value, 64)


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


@located_op
@irdl_op_definition
class AllocOp(IRDLOperation):
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
        verify_in_step(self)
        _not_negative(self, bytes=self.nbytes.value.data, lower_bound=self.lower_bound.value.data)
        if self.align.value.data <= 0:
            raise VerifyException(f"arena.alloc: align must be positive, not {self.align.value.data}")


@located_op
@irdl_op_definition
class TensorOp(ComputedDef):
    """`%h = arena.tensor "h" %arena forms(plain, quant) plain(0) quant(81920) : !lane.tensor<2048xf32>`: a
    computed tensor whose arrays live in the arena, each at its offset; an array of it that does not says why
    (`own(quant = unsafe)`)."""

    name = "arena.tensor"
    arena = operand_def(BufferType())
    plain = opt_prop_def(IntegerAttr[I64])
    quant = opt_prop_def(IntegerAttr[I64])
    traits = traits_def(Pure())

    def __init__(
        self,
        tensor: str,
        arena: SSAValue,
        type: TensorType,
        forms: Sequence[str],
        offsets: Mapping[Form, int],
        own: Mapping[str, Attribute] | None = None,
    ):
        IRDLOperation.__init__(
            self,
            operands=[arena],
            result_types=[type],
            properties={
                "tensor": StringAttr(tensor),
                "forms": form_attrs(forms),
                **{f.value: i64(offsets[f]) for f in Form if f in offsets},
                **(own or {}),
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

    @classmethod
    def parse(cls, parser: Parser):
        at = source_location(parser, cls.name)
        tensor = parse_str(parser, " as the tensor's name")
        arena = parse_value(parser)
        forms = _parse_optional_forms_clause(parser)
        offsets = {}
        while (form := parser.parse_optional_keyword_in(("plain", "quant"))) is not None:
            parser.parse_punctuation("(")
            offsets[Form(form)] = parse_i64(parser, f"the {form} offset")
            parser.parse_punctuation(")")
        own = parse_own_clause(parser)
        parser.parse_punctuation(":")
        return located(cls(tensor, arena, _parse_tensor_type(parser), forms, offsets, own), at)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.tensor_name)
        printer.print_string(" ")
        printer.print_operand(self.arena)
        self._print_forms(printer)
        for form, offset in self.offsets.items():
            printer.print_string(f" {form.value}({offset})")
        print_own_clause(printer, self)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        verify_computed(self)
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
            if form is Form.QUANT and step_numerics(self) is Numerics.F32:
                raise VerifyException(
                    f"arena.tensor '{self.tensor_name}' quant: no array is quantized under f32 numerics"
                )


def _parse_bytes(parser: Parser) -> int:
    parser.parse_keyword("bytes")
    parser.parse_punctuation("(")
    n = parse_i64(parser, "bytes")
    parser.parse_punctuation(")")
    return n


class _Buffer(IRDLOperation):
    """A launch's scratch or counter: `tag` names it beside the launch that takes it, `bytes` its size. (A custom
    syntax, not a declarative one: xDSL 0.75 prints a tag beyond ASCII as byte escapes that its declarative parser
    does not take back as a string.)"""

    tag = prop_def(StringAttr)
    nbytes = prop_def(IntegerAttr[I64], prop_name="bytes")
    result = result_def(BufferType())

    def _verify_buffer(self) -> None:
        verify_in_step(self)
        if not self.tag.data:
            raise VerifyException(f"{self.name}: needs a tag")
        if self.nbytes.value.data <= 0:
            raise VerifyException(
                f'{self.name} "{self.tag.data}": bytes must be positive, not {self.nbytes.value.data}'
            )


@located_op
@irdl_op_definition
class ScratchOp(_Buffer):
    """`%fp = arena.scratch "fp" %arena[0] bytes(65536)`: a launch's scratch `tag`, `bytes` of the arena from
    `offset`, live while the launch that takes it runs."""

    name = "arena.scratch"
    arena = operand_def(BufferType())
    offset = prop_def(IntegerAttr[I64])
    traits = traits_def(Pure())

    def __init__(self, tag: str, arena: SSAValue, offset: int, nbytes: int):
        super().__init__(
            operands=[arena],
            result_types=[BufferType()],
            properties={"tag": StringAttr(tag), "offset": i64(offset), "bytes": i64(nbytes)},
        )
        _named(self.result, tag)

    @classmethod
    def parse(cls, parser: Parser):
        at = source_location(parser, cls.name)
        tag = parse_str(parser, " (the scratch's tag)")
        arena = parse_value(parser)
        parser.parse_punctuation("[")
        offset = parse_i64(parser, "the scratch's offset")
        parser.parse_punctuation("]")
        return located(cls(tag, arena, offset, _parse_bytes(parser)), at)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.tag.data)
        printer.print_string(" ")
        printer.print_operand(self.arena)
        printer.print_string(f"[{self.offset.value.data}] bytes({self.nbytes.value.data})")

    def verify_(self) -> None:
        self._verify_buffer()
        _on_the_arena(self, self.arena)
        _not_negative(self, offset=self.offset.value.data)


@located_op
@irdl_op_definition
class CounterOp(_Buffer):
    """`%fq = arena.counter "fq" bytes(256)`: a launch's counter `tag`, a zeroed buffer of `bytes` of its own (zero
    before the launch and left zero by it), never arena bytes."""

    name = "arena.counter"

    def __init__(self, tag: str, nbytes: int):
        super().__init__(result_types=[BufferType()], properties={"tag": StringAttr(tag), "bytes": i64(nbytes)})
        _named(self.result, tag)

    @classmethod
    def parse(cls, parser: Parser):
        at = source_location(parser, cls.name)
        tag = parse_str(parser, " (the counter's tag)")
        return located(cls(tag, _parse_bytes(parser)), at)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.tag.data)
        printer.print_string(f" bytes({self.nbytes.value.data})")

    def verify_(self) -> None:
        self._verify_buffer()


ARENA = Dialect("arena", [AllocOp, TensorOp, ScratchOp, CounterOp], [BufferType, ReasonAttr])
