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

from lanearena.dialects.lane import TensorDef, TensorType
from lanearena.dialects.syntax import FORMS, parse_params, parse_value, print_params
from lanearena.model import Form

REASONS = ("input", "weight", "state", "output", "view", "unsafe", "unallocated")


def _require(parser: Parser, params: dict, names: tuple[str, ...], op: str) -> None:
    missing = [n for n in names if n not in params]
    if missing:
        parser.raise_error(f"{op} needs {', '.join(f'{n}(...)' for n in missing)}")


def _ints(op: IRDLOperation, *names: str) -> None:
    for n in names:
        v = getattr(op, n).data
        if v < 0:
            raise VerifyException(f"{op.name}: {n} must not be negative, not {v}")


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
        p = parse_params(parser, cls.KEYS)
        _require(parser, p, cls.KEYS, cls.name)
        return cls(int(p["bytes"]), int(p["align"]), int(p["lower_bound"]), str(p["algorithm"]))

    def print(self, printer: Printer) -> None:
        print_params(printer, {"bytes": self.bytes.data, "align": self.align.data,
                               "lower_bound": self.lower_bound.data, "algorithm": self.algorithm.data})

    def verify_(self) -> None:
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
        if self.form.data not in FORMS:
            raise VerifyException(f"{self.name}: form must be plain or quant, not {self.form.data}")
        if not isinstance(self.tensor.owner, TensorDef):
            raise VerifyException(f"{self.name}: the operand must be a lane tensor")


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
        tensor, form = _parse_tensor_form(parser)
        p = parse_params(parser, ("offset", "bytes"))
        _require(parser, p, ("offset", "bytes"), cls.name)
        parser.parse_keyword("live")
        first, last = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_integer)
        return cls(tensor, form, int(p["offset"]), int(p["bytes"]), first, last)

    def print(self, printer: Printer) -> None:
        self._print_head(printer)
        print_params(printer, {"offset": self.offset.data, "bytes": self.bytes.data})
        printer.print_string(f" live({self.first.data}, {self.last.data})")

    def verify_(self) -> None:
        self._verify_head()
        _ints(self, "offset", "bytes", "first", "last")
        if self.first.data > self.last.data:
            raise VerifyException(f"arena.array '{self.tensor_name}': live range ends before it starts")


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
        launch = parse_params(parser, ("launch",))
        _require(parser, launch, ("launch",), cls.name)
        tag = parser.parse_str_literal(" (the scratch's tag)")
        p = parse_params(parser, ("offset", "bytes"))
        _require(parser, p, ("offset", "bytes"), cls.name)
        return cls(int(launch["launch"]), tag, int(p["offset"]), int(p["bytes"]))

    def print(self, printer: Printer) -> None:
        printer.print_string(f" launch({self.launch.data}) ")
        printer.print_string_literal(self.tag.data)
        print_params(printer, {"offset": self.offset.data, "bytes": self.bytes.data})

    def verify_(self) -> None:
        _ints(self, "launch", "offset", "bytes")


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
        launch = parse_params(parser, ("launch",))
        _require(parser, launch, ("launch",), cls.name)
        tag = parser.parse_str_literal(" (the counter's tag)")
        p = parse_params(parser, ("bytes",))
        _require(parser, p, ("bytes",), cls.name)
        return cls(int(launch["launch"]), tag, int(p["bytes"]))

    def print(self, printer: Printer) -> None:
        printer.print_string(f" launch({self.launch.data}) ")
        printer.print_string_literal(self.tag.data)
        print_params(printer, {"bytes": self.bytes.data})

    def verify_(self) -> None:
        _ints(self, "launch", "bytes")


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
        tensor, form = _parse_tensor_form(parser)
        p = parse_params(parser, ("bytes", "reason"))
        _require(parser, p, ("bytes", "reason"), cls.name)
        return cls(tensor, form, int(p["bytes"]), str(p["reason"]))

    def print(self, printer: Printer) -> None:
        self._print_head(printer)
        print_params(printer, {"bytes": self.bytes.data, "reason": self.reason.data})

    def verify_(self) -> None:
        self._verify_head()
        _ints(self, "bytes")
        if self.reason.data not in REASONS:
            raise VerifyException(f"arena.own: reason must be one of {', '.join(REASONS)}")


ARENA = Dialect("arena", [AllocOp, ArrayOp, ScratchOp, CounterOp, OwnOp], [])
