"""The attributes and types the `lane` and `arena` dialects share.

    !lane.tensor<4096x2048xi8>   a tensor's shape and elements (f32, i32; a weight's also i8 or bf16)
    !arena.buffer                bytes: the arena, scratch on it, or a counter's zeroed buffer
    #lane<numerics int8>         how a step computes (`model.Numerics`)
    #lane<form quant>            which array of a tensor (`model.Form`)
    #lane<binary gate>           the element-wise op of a `lane.binary`
    #lane<scaling llama3>        how a `lane.rope` scales its frequencies
    #lane<gates all>             which softmax a mixture's router weighs its chosen experts by
    #lane<write whole>           how a generic launch writes an operand, where it is no part
    #lane.part<64, 0, 32>        a write of a part of every unit
    #lane.scratch<"fp", f32, 8>  scratch a generic launch asks for
    #arena<reason output>        why an array keeps a buffer of its own, outside the arena

In the custom syntax each enumeration is its bare keyword (`numerics(int8)`, `%h(quant)`, `own(plain = output)`)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from enum import auto

from xdsl.dialects.builtin import ArrayAttr, IntAttr, StringAttr, bf16, f32, i8, i32
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, ParametrizedAttribute, SpacedOpaqueSyntaxAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser, BaseParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from lanearena.model import Form, Numerics, Reason

ELEMENTS = {"f32": f32, "i32": i32, "i8": i8, "bf16": bf16}
"""A tensor's element types by name: f32 and i32 values, i8 the words of a Q8_0 weight, bf16 a weight's values as a
bf16 checkpoint stores them."""

_ELEMENT_NAMES: dict[Attribute, str] = {v: k for k, v in ELEMENTS.items()}


class WriteKind(StrEnum):
    """A generic launch's write of an operand, where it is not a `part<pitch, start, width>`."""

    WHOLE = auto()
    OTHER = auto()


class BinaryKind(StrEnum):
    """add: a + b; mul: a * b; gate: a * sigmoid(b) (an attention output gated, Qwen3-Next)."""

    ADD = auto()
    MUL = auto()
    GATE = auto()


class ScalingKind(StrEnum):
    """How a rotation's frequencies are scaled (Hugging Face's `rope_type`): default, none; linear, every frequency
    over `factor` (positions interpolated); dynamic, the base grown (NTK) where the step's positions pass the
    original length; llama3, each frequency by its wavelength against the original length (Llama 3.1 and on)."""

    DEFAULT = auto()
    LINEAR = auto()
    DYNAMIC = auto()
    LLAMA3 = auto()


class GatesKind(StrEnum):
    """Which softmax weighs a mixture's chosen experts: chosen, the softmax over the chosen experts' logits (the
    softmax over all experts renormalised over the chosen: Mixtral, Qwen3-MoE); all, the softmax over all experts,
    the chosen experts' shares kept as they are (Qwen2-MoE, `norm_topk_prob` false)."""

    CHOSEN = auto()
    ALL = auto()


def parse_optional_str(parser: BaseParser) -> str | None:
    """A string literal, or None where none follows. xDSL's printer writes every character beyond ASCII as UTF-8
    byte escapes (`"\\C3\\A9"`), which its lexer then calls a bytes literal: those are taken back here, as the text
    they spell."""
    if (text := parser.parse_optional_str_literal()) is not None:
        return text
    at = parser.pos
    raw = parser.parse_optional_bytes_literal()
    if raw is None:
        return None
    try:
        return raw.decode()
    except UnicodeDecodeError:
        parser.raise_error("a string literal's escapes must spell UTF-8 text", at, parser.pos)


def parse_str(parser: BaseParser, context: str = "") -> str:
    """A string literal (see `parse_optional_str`)."""
    at = parser.pos
    text = parse_optional_str(parser)
    if text is None:
        parser.raise_error("string literal expected" + context, at, parser.pos)
    return text


# xDSL bounds EnumAttribute by its own StrEnum (for Pythons before 3.11); `model`'s enumerations are the standard
# library's (`model` stays free of xDSL), which EnumAttribute handles alike: a str whose value is the keyword.


@irdl_attr_definition
class NumericsAttr(EnumAttribute[Numerics], SpacedOpaqueSyntaxAttribute):  # type: ignore[type-var]  # see above
    """`#lane<numerics int8>`: f32, bf16, int8 or int8x2."""

    name = "lane.numerics"


@irdl_attr_definition
class FormAttr(EnumAttribute[Form], SpacedOpaqueSyntaxAttribute):  # type: ignore[type-var]  # see above
    """`#lane<form plain>`: a tensor's f32/i32 array, or its quantized form."""

    name = "lane.form"


PLAIN = FormAttr(Form.PLAIN)


def form_attrs(forms: Sequence[str]) -> ArrayAttr[FormAttr]:
    """`forms` (`plain`, `quant`) as the attribute they are kept in."""
    return ArrayAttr(FormAttr(Form(f)) for f in forms)


@irdl_attr_definition
class BinaryAttr(EnumAttribute[BinaryKind], SpacedOpaqueSyntaxAttribute):
    """`#lane<binary add>`: the element-wise op of a `lane.binary`."""

    name = "lane.binary"


@irdl_attr_definition
class ScalingAttr(EnumAttribute[ScalingKind], SpacedOpaqueSyntaxAttribute):
    """`#lane<scaling llama3>`: how a `lane.rope` scales its frequencies."""

    name = "lane.scaling"


@irdl_attr_definition
class GatesAttr(EnumAttribute[GatesKind], SpacedOpaqueSyntaxAttribute):
    """`#lane<gates all>`: which softmax a mixture's router weighs its chosen experts by."""

    name = "lane.gates"


@irdl_attr_definition
class WriteAttr(EnumAttribute[WriteKind], SpacedOpaqueSyntaxAttribute):
    """`#lane<write whole>`: a write of the whole array, or of some other shape."""

    name = "lane.write"


@irdl_attr_definition
class ReasonAttr(EnumAttribute[Reason], SpacedOpaqueSyntaxAttribute):  # type: ignore[type-var]  # see above
    """`#arena<reason unsafe>`: why an array keeps a buffer of its own."""

    name = "arena.reason"


@irdl_attr_definition
class BufferType(ParametrizedAttribute, TypeAttribute):
    """`!arena.buffer`: bytes of device memory; their size is an attribute of the op that makes them."""

    name = "arena.buffer"


@irdl_attr_definition
class TensorType(ParametrizedAttribute, TypeAttribute):
    """`!lane.tensor<4096x2048xi8>`: a tensor's shape and element type (f32, i32, or for a weight i8, Q8_0 words,
    or bf16)."""

    name = "lane.tensor"

    shape: ArrayAttr[IntAttr]
    element: Attribute

    def __init__(self, shape: Sequence[int], element: Attribute):
        super().__init__(ArrayAttr(IntAttr(d) for d in shape), element)

    @property
    def dims(self) -> tuple[int, ...]:
        return tuple(d.data for d in self.shape.data)

    @property
    def length(self) -> int:
        """The number of elements."""
        return math.prod(self.dims)

    @property
    def elem(self) -> str:
        return _ELEMENT_NAMES[self.element]

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        with parser.in_angle_brackets():
            at = parser.pos
            if parser.parse_optional_punctuation("-") is not None:
                parser.raise_error("a tensor's dimensions are positive: a negative size is no size", at, parser.pos)
            dims, element = parser.parse_ranked_shape()
        if not dims or any(d <= 0 for d in dims):
            parser.raise_error("a tensor has at least one dimension, each positive", at, parser.pos)
        if element not in ELEMENTS.values():
            parser.raise_error("a tensor's elements are f32, i32, i8 or bf16", at, parser.pos)
        return [ArrayAttr(IntAttr(d) for d in dims), element]

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string("x".join(str(d) for d in self.dims) + "x")
            printer.print_attribute(self.element)

    def verify(self) -> None:
        if not self.shape.data or any(d.data <= 0 for d in self.shape.data):
            raise VerifyException("a tensor has at least one dimension, each positive")
        if self.element not in ELEMENTS.values():
            raise VerifyException("a tensor's elements are f32, i32, i8 or bf16")


@irdl_attr_definition
class PartAttr(ParametrizedAttribute):
    """`#lane.part<pitch, start, width>`: a write of `[start, start+width)` of every unit of `pitch` elements."""

    name = "lane.part"
    pitch: IntAttr
    start: IntAttr
    width: IntAttr

    def __init__(self, pitch: int, start: int, width: int):
        super().__init__(IntAttr(pitch), IntAttr(start), IntAttr(width))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        at = parser.pos
        with parser.in_angle_brackets():
            vals = [parser.parse_integer(allow_boolean=False)]
            for _ in range(2):
                parser.parse_punctuation(",")
                vals.append(parser.parse_integer(allow_boolean=False))
        if problem := part_problem(*vals):
            parser.raise_error(problem, at, parser.pos)
        return [IntAttr(v) for v in vals]

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.pitch.data}, {self.start.data}, {self.width.data}>")

    def verify(self) -> None:
        if problem := part_problem(self.pitch.data, self.start.data, self.width.data):
            raise VerifyException(problem)


def part_problem(pitch: int, start: int, width: int) -> str | None:
    """What is wrong with a write of `[start, start+width)` of every unit of `pitch`, if anything."""
    if pitch <= 0 or width <= 0 or start < 0 or start + width > pitch:
        return f"a part [{start}, {start + width}) of every {pitch} must lie inside the unit and be non-empty"
    return None


@irdl_attr_definition
class ScratchAttr(ParametrizedAttribute):
    """`#lane.scratch<"fp", f32, 1024>` or `#lane.scratch<"fq", counter, 16>`: scratch a generic launch asks for."""

    name = "lane.scratch"
    tag: StringAttr
    elem: StringAttr
    bytes: IntAttr
    counter: IntAttr

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        at = parser.pos
        with parser.in_angle_brackets():
            tag = parse_str(parser)
            parser.parse_punctuation(",")
            elem = parser.parse_keyword_in(("f32", "i32", "i8", "counter"))
            parser.parse_punctuation(",")
            nbytes = parser.parse_integer(allow_boolean=False)
        counter = elem == "counter"
        if problem := _scratch_problem(tag, "i32" if counter else elem, nbytes, int(counter)):
            parser.raise_error(problem, at, parser.pos)
        return [StringAttr(tag), StringAttr("i32" if counter else elem), IntAttr(nbytes), IntAttr(int(counter))]

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<")
        printer.print_string_literal(self.tag.data)
        printer.print_string(f", {'counter' if self.counter.data else self.elem.data}, {self.bytes.data}>")

    def verify(self) -> None:
        if problem := _scratch_problem(self.tag.data, self.elem.data, self.bytes.data, self.counter.data):
            raise VerifyException(problem)


def _scratch_problem(tag: str, elem: str, nbytes: int, counter: int) -> str | None:
    """What is wrong with scratch `tag` of `nbytes` of `elem` (a counter when `counter` is 1), if anything."""
    if not tag:
        return "scratch needs a tag"
    if nbytes <= 0:
        return f"scratch '{tag}' needs a positive size, not {nbytes}"
    if counter not in (0, 1):
        return f"scratch '{tag}': counter is 0 or 1, not {counter}"
    if elem not in ("i32" if counter else ("f32", "i32", "i8")):
        return f"scratch '{tag}': {'a counter counts in i32' if counter else 'elements are f32, i32 or i8'}, not {elem}"
    return None
