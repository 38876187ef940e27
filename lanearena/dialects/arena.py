"""The `arena` dialect: a placed step's memory, as `lane-arena-place` leaves it at the end of the `lane.step`.

    arena.alloc bytes(12288) align(256) lower_bound(8192) algorithm("greedy")
    arena.array %h plain offset(0) bytes(8192) live(0, 3)
    arena.scratch launch(1) "fp" offset(8192) bytes(1024)
    arena.counter launch(1) "fq" bytes(16)
    arena.own %q plain bytes(16384) reason("output")

One allocation a step; each placed array with its offset, bytes and live launch range; each launch's scratch at its
offset; each counter a zeroed buffer of its own; and the arrays that stay outside the arena, with why."""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import IntAttr, StringAttr
from xdsl.ir import Dialect, SSAValue
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, prop_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from lanearena.dialects.lane_tensors import TensorDef, TensorOp, TensorType, ViewOp, step_numerics, verify_in_step
from lanearena.dialects.located import located, located_op, source_location
from lanearena.dialects.syntax import FORMS, parse_params, parse_str, parse_value, print_params
from lanearena.model import Form, Numerics

REASONS = ("input", "weight", "state", "output", "view", "unsafe", "unallocated")


def _params(parser: Parser, names: tuple[str, ...], op: str, strings: tuple[str, ...] = ()) -> dict:
    """`name(value)` for every one of `names`, in any order: integers, but strings for `strings`."""
    at = parser.pos
    params = parse_params(parser, names)
    missing = [n for n in names if n not in params]
    if missing:
        parser.raise_error(f"{op} needs {', '.join(f'{n}(...)' for n in missing)}", at, parser.pos)
    for n in names:
        kind = str if n in strings else int
        if not isinstance(params[n], kind):
            parser.raise_error(
                f"{op}: {n}(...) is {'a string' if kind is str else 'an integer'}, not {params[n]!r}", at, parser.pos
            )
    return params


def _ints(op: IRDLOperation, *names: str) -> None:
    for n in names:
        v = getattr(op, n).data
        if v < 0:
            raise VerifyException(f"{op.name}: {n} must not be negative, not {v}")


def _verify_tag(op: IRDLOperation) -> None:
    verify_in_step(op)
    _ints(op, "launch", "bytes")
    if not op.tag.data:
        raise VerifyException(f"{op.name} of launch {op.launch.data}: needs a tag")


@located_op
@irdl_op_definition
class AllocOp(IRDLOperation):
    """The step's one arena: `bytes` aligned to `align`; `lower_bound` is the most bytes live at one launch, and
    `algorithm` the placement that produced it."""

    name = "arena.alloc"
    bytes = prop_def(IntAttr)
    align = prop_def(IntAttr)
    lower_bound = prop_def(IntAttr)
    algorithm = prop_def(StringAttr)
    KEYS: ClassVar[tuple[str, ...]] = ("bytes", "align", "lower_bound", "algorithm")

    def __init__(self, nbytes: int, align: int, lower_bound: int, algorithm: str):
        super().__init__(
            properties={
                "bytes": IntAttr(nbytes),
                "align": IntAttr(align),
                "lower_bound": IntAttr(lower_bound),
                "algorithm": StringAttr(algorithm),
            }
        )

    @classmethod
    def parse(cls, parser: Parser):
        at = source_location(parser, cls.name)
        p = _params(parser, cls.KEYS, cls.name, strings=("algorithm",))
        return located(cls(p["bytes"], p["align"], p["lower_bound"], p["algorithm"]), at)

    def print(self, printer: Printer) -> None:
        print_params(printer, {"bytes": self.bytes.data, "align": self.align.data,
                               "lower_bound": self.lower_bound.data, "algorithm": self.algorithm.data})

    def verify_(self) -> None:
        verify_in_step(self)
        _ints(self, "bytes", "lower_bound")
        if self.align.data <= 0:
            raise VerifyException(f"arena.alloc: align must be positive, not {self.align.data}")


def _parse_tensor_form(parser: Parser) -> tuple[SSAValue, str]:
    value = parse_value(parser)
    form = parser.parse_keyword_in(FORMS, " (the array's form: plain or quant)")
    return value, form


class _TensorArrayOp(IRDLOperation):
    """An op about one array of a tensor: the tensor as an operand and the form."""

    tensor = operand_def(TensorType)
    form = prop_def(StringAttr)

    @property
    def tensor_name(self) -> str:
        owner = self.tensor.owner
        return owner.tensor_name if isinstance(owner, TensorDef) else "?"

    @property
    def array_form(self) -> Form:
        return Form(self.form.data)

    def _print_head(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.tensor)
        printer.print_string(f" {self.form.data}")

    def _verify_head(self) -> None:
        verify_in_step(self)
        if self.form.data not in FORMS:
            raise VerifyException(f"{self.name}: form must be plain or quant, not {self.form.data}")
        if not isinstance(self.tensor.owner, TensorDef):
            raise VerifyException(f"{self.name}: the operand must be a lane tensor")
        if self.form.data == Form.QUANT.value and step_numerics(self) is Numerics.F32:
            raise VerifyException(
                f"{self.name} '{self.tensor_name}' quant: no array is quantized under f32 numerics"
            )


@located_op
@irdl_op_definition
class ArrayOp(_TensorArrayOp):
    """Tensor `tensor`'s array `form`, placed in the arena: `bytes` from `offset`, live from launch `first` to
    launch `last` (both included)."""

    name = "arena.array"
    offset = prop_def(IntAttr)
    bytes = prop_def(IntAttr)
    first = prop_def(IntAttr)
    last = prop_def(IntAttr)

    def __init__(self, tensor: SSAValue, form: str, offset: int, nbytes: int, first: int, last: int):
        super().__init__(
            operands=[tensor],
            properties={"form": StringAttr(form), "offset": IntAttr(offset), "bytes": IntAttr(nbytes),
                        "first": IntAttr(first), "last": IntAttr(last)},
        )

    @classmethod
    def parse(cls, parser: Parser):
        at = source_location(parser, cls.name)
        tensor, form = _parse_tensor_form(parser)
        p = _params(parser, ("offset", "bytes"), cls.name)
        parser.parse_keyword("live")
        parser.parse_punctuation("(")
        first = parser.parse_integer(allow_boolean=False)
        parser.parse_punctuation(",")
        last = parser.parse_integer(allow_boolean=False)
        parser.parse_punctuation(")")
        return located(cls(tensor, form, p["offset"], p["bytes"], first, last), at)

    def print(self, printer: Printer) -> None:
        self._print_head(printer)
        print_params(printer, {"offset": self.offset.data, "bytes": self.bytes.data})
        printer.print_string(f" live({self.first.data}, {self.last.data})")

    def verify_(self) -> None:
        self._verify_head()
        owner = self.tensor.owner
        if not isinstance(owner, TensorOp):
            what = "a view (its bytes are the viewed tensor's)" if isinstance(owner, ViewOp) else f"{owner.ROLE} data"
            raise VerifyException(
                f"arena.array '{self.tensor_name}': only a computed tensor is placed in the arena, not {what}"
            )
        if self.form.data not in owner.forms:
            raise VerifyException(
                f"arena.array '{self.tensor_name}' {self.form.data}: the tensor is not allocated in that form "
                f"(its forms are ({', '.join(owner.forms)}))"
            )
        _ints(self, "offset", "bytes", "first", "last")
        if self.first.data > self.last.data:
            raise VerifyException(f"arena.array '{self.tensor_name}': live range ends before it starts")


@located_op
@irdl_op_definition
class ScratchOp(IRDLOperation):
    """Launch `launch`'s scratch `tag`: `bytes` from `offset` in the arena, live while that launch runs."""

    name = "arena.scratch"
    launch = prop_def(IntAttr)
    tag = prop_def(StringAttr)
    offset = prop_def(IntAttr)
    bytes = prop_def(IntAttr)

    def __init__(self, launch: int, tag: str, offset: int, nbytes: int):
        super().__init__(properties={"launch": IntAttr(launch), "tag": StringAttr(tag), "offset": IntAttr(offset),
                                     "bytes": IntAttr(nbytes)})

    @classmethod
    def parse(cls, parser: Parser):
        at = source_location(parser, cls.name)
        launch = _params(parser, ("launch",), cls.name)
        tag = parse_str(parser, " (the scratch's tag)")
        p = _params(parser, ("offset", "bytes"), cls.name)
        return located(cls(launch["launch"], tag, p["offset"], p["bytes"]), at)

    def print(self, printer: Printer) -> None:
        printer.print_string(f" launch({self.launch.data}) ")
        printer.print_string_literal(self.tag.data)
        print_params(printer, {"offset": self.offset.data, "bytes": self.bytes.data})

    def verify_(self) -> None:
        _verify_tag(self)
        _ints(self, "offset")


@located_op
@irdl_op_definition
class CounterOp(IRDLOperation):
    """Launch `launch`'s counter `tag`: a zeroed buffer of `bytes` of its own, never arena bytes."""

    name = "arena.counter"
    launch = prop_def(IntAttr)
    tag = prop_def(StringAttr)
    bytes = prop_def(IntAttr)

    def __init__(self, launch: int, tag: str, nbytes: int):
        super().__init__(properties={"launch": IntAttr(launch), "tag": StringAttr(tag), "bytes": IntAttr(nbytes)})

    @classmethod
    def parse(cls, parser: Parser):
        at = source_location(parser, cls.name)
        launch = _params(parser, ("launch",), cls.name)
        tag = parse_str(parser, " (the counter's tag)")
        p = _params(parser, ("bytes",), cls.name)
        return located(cls(launch["launch"], tag, p["bytes"]), at)

    def print(self, printer: Printer) -> None:
        printer.print_string(f" launch({self.launch.data}) ")
        printer.print_string_literal(self.tag.data)
        print_params(printer, {"bytes": self.bytes.data})

    def verify_(self) -> None:
        _verify_tag(self)


@located_op
@irdl_op_definition
class OwnOp(_TensorArrayOp):
    """Tensor `tensor`'s array `form`, kept in a buffer of its own of `bytes`, for `reason`."""

    name = "arena.own"
    bytes = prop_def(IntAttr)
    reason = prop_def(StringAttr)

    def __init__(self, tensor: SSAValue, form: str, nbytes: int, reason: str):
        super().__init__(operands=[tensor], properties={"form": StringAttr(form), "bytes": IntAttr(nbytes),
                                                        "reason": StringAttr(reason)})

    @classmethod
    def parse(cls, parser: Parser):
        at = source_location(parser, cls.name)
        tensor, form = _parse_tensor_form(parser)
        p = _params(parser, ("bytes", "reason"), cls.name, strings=("reason",))
        return located(cls(tensor, form, p["bytes"], p["reason"]), at)

    def print(self, printer: Printer) -> None:
        self._print_head(printer)
        print_params(printer, {"bytes": self.bytes.data, "reason": self.reason.data})

    def verify_(self) -> None:
        self._verify_head()
        _ints(self, "bytes")
        reason = self.reason.data
        if reason not in REASONS:
            raise VerifyException(f"arena.own: reason must be one of {', '.join(REASONS)}")
        owner = self.tensor.owner
        role = "view" if isinstance(owner, ViewOp) else owner.ROLE
        if (reason in _ROLE_REASONS or role in _ROLE_REASONS) and reason != role:
            raise VerifyException(
                f"arena.own '{self.tensor_name}': reason(\"{reason}\"), but the tensor is {role} data"
            )


_ROLE_REASONS = ("input", "weight", "state", "view")
"""The reasons an array keeps a buffer of its own that follow from its tensor alone."""


ARENA = Dialect("arena", [AllocOp, ArrayOp, ScratchOp, CounterOp, OwnOp], [])
