"""The `lane` dialect's tensor type and the ops that define a step's tensors: inputs, weights, state, computed
tensors, views of them, and the outputs."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

from xdsl.dialects.builtin import (
    I64,
    ArrayAttr,
    IntAttr,
    IntegerAttr,
    StringAttr,
    f32,
    i8,
    i32,
)
from xdsl.ir import (
    Attribute,
    Operation,
    ParametrizedAttribute,
    SSAValue,
    TypeAttribute,
)
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    lazy_traits_def,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.traits import HasParent, IsTerminator, Pure
from xdsl.utils.exceptions import VerifyException

from lanearena.dialects.attrs import FormAttr, Reason, ReasonAttr
from lanearena.dialects.located import located, located_op, source_location
from lanearena.dialects.syntax import (
    FORMS,
    form_attrs,
    parse_i64,
    parse_optional_forms,
    parse_str,
    parse_value,
    print_forms,
)
from lanearena.model import QBLOCK, Form, Numerics

if TYPE_CHECKING:
    from lanearena.dialects.lane import StepOp

ELEMENTS = {"f32": f32, "i32": i32, "i8": i8}


@irdl_attr_definition
class TensorType(ParametrizedAttribute, TypeAttribute):
    """`!lane.tensor<4096x2048xi8>`: a tensor's shape and element type (f32, i32, or i8 for a Q8_0 weight)."""

    name = "lane.tensor"

    shape: ArrayAttr[IntAttr]
    element: Attribute

    def __init__(self, shape: Sequence[int], element: Attribute):
        super().__init__(ArrayAttr(IntAttr(d) for d in shape), element)

    @property
    def dims(self) -> tuple[int, ...]:
        return tuple(d.data for d in self.shape.data)

    @property
    def elem(self) -> str:
        return next(k for k, v in ELEMENTS.items() if v == self.element)

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
            parser.raise_error("a tensor's elements are f32, i32 or i8", at, parser.pos)
        return [ArrayAttr(IntAttr(d) for d in dims), element]

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string("x".join(str(d) for d in self.dims) + "x")
            printer.print_attribute(self.element)

    def verify(self) -> None:
        if not self.shape.data or any(d.data <= 0 for d in self.shape.data):
            raise VerifyException("a tensor has at least one dimension, each positive")
        if self.element not in ELEMENTS.values():
            raise VerifyException("a tensor's elements are f32, i32 or i8")


# --- Tensors ---------------------------------------------------------------------------------------------------


class TensorDef(IRDLOperation):
    """An op that defines one tensor of the step, named `tensor`."""

    ROLE: ClassVar[str]
    tensor = prop_def(StringAttr)
    own_plain = opt_prop_def(ReasonAttr)
    result = result_def(TensorType)

    def __init__(self, tensor: str, type: TensorType, properties: dict[str, Attribute] | None = None):
        super().__init__(result_types=[type], properties={"tensor": StringAttr(tensor), **(properties or {})})

    @property
    def tensor_name(self) -> str:
        return self.tensor.data

    @property
    def forms(self) -> tuple[str, ...]:
        return (Form.PLAIN.value,)

    @property
    def own(self) -> dict[Form, Reason]:
        """The tensor's arrays that keep a buffer of their own, outside the arena, and why (set by
        `lane-arena-place`)."""
        out = {}
        for form in Form:
            attr = self.properties.get(f"own_{form.value}")
            if isinstance(attr, ReasonAttr):
                out[form] = attr.data
        return out

    def set_own(self, form: Form, reason: Reason) -> None:
        """Records that array `form` keeps a buffer of its own, for `reason`."""
        own = {**self.own, form: reason}
        for f in Form:  # kept in one order, plain first, as the custom syntax writes them
            self.properties.pop(f"own_{f.value}", None)
            if f in own:
                self.properties[f"own_{f.value}"] = ReasonAttr(own[f])

    # A custom syntax, not a declarative one: xDSL 0.75 prints a name beyond ASCII as byte escapes that its
    # declarative parser does not take back as a string.
    @classmethod
    def parse(cls, parser: Parser):
        at = source_location(parser, cls.name)
        tensor = parse_str(parser, " as the tensor's name")
        own = parse_own_clause(parser)
        parser.parse_punctuation(":")
        return located(cls(tensor, _parse_tensor_type(parser), own), at)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.tensor_name)
        print_own_clause(printer, self)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        self._verify_tensor()

    def _verify_tensor(self) -> None:
        """What every tensor op checks: a name, a place inside a step, i8 elements only for a Q8_0 weight, and
        reasons for its own buffers that fit the tensor."""
        verify_in_step(self)
        if not self.tensor_name:
            raise VerifyException(f"{self.name}: a tensor needs a name")
        self._verify_own()
        t = self.result.type
        if t.elem == "i8" and self.ROLE != "weight":
            raise VerifyException(
                f"{self.name} '{self.tensor_name}': only a weight is i8 (Q8_0); a {self.ROLE} tensor is f32 or i32"
            )
        if t.elem == "i8" and t.dims[-1] % QBLOCK:
            raise VerifyException(
                f"{self.name} '{self.tensor_name}': a Q8_0 weight keeps a scale a block of {QBLOCK} values of its "
                f"last dimension, which is {t.dims[-1]}"
            )

    def _verify_own(self) -> None:
        role = "view" if isinstance(self, ViewOp) else self.ROLE
        for form, reason in self.own.items():
            if form.value not in self.forms and reason is not Reason.UNALLOCATED:
                raise VerifyException(
                    f"{self.name} '{self.tensor_name}': own({form.value} = {reason.value}), but the tensor is not "
                    f"allocated in that form (that is reason unallocated)"
                )
            if form is Form.QUANT and step_numerics(self) is Numerics.F32:
                raise VerifyException(
                    f"{self.name} '{self.tensor_name}' own(quant = ...): no array is quantized under f32 numerics"
                )
            unallocated = reason is Reason.UNALLOCATED and form.value not in self.forms
            if (reason.value in _ROLE_REASONS or role in _ROLE_REASONS) and reason.value != role and not unallocated:
                raise VerifyException(
                    f"{self.name} '{self.tensor_name}': own({form.value} = {reason.value}), but the tensor is "
                    f"{role} data"
                )


_ROLE_REASONS = ("input", "weight", "state", "view")
"""The reasons an array keeps a buffer of its own that follow from its tensor alone."""


def parse_own_clause(parser: Parser) -> dict[str, Attribute]:
    """`own(plain = output, quant = unsafe)`, or nothing: the properties `own_plain` and `own_quant`."""
    out: dict[str, Attribute] = {}
    if parser.parse_optional_keyword("own") is None:
        return out

    def one() -> None:
        at = parser.pos
        form = parser.parse_str_enum(Form)  # type: ignore[type-var]  # the standard library's StrEnum (see attrs)
        if f"own_{form.value}" in out:
            parser.raise_error(f"own({form.value} = ...) given twice", at, parser.pos)
        parser.parse_punctuation("=")
        out[f"own_{form.value}"] = ReasonAttr(parser.parse_str_enum(Reason))

    parser.parse_comma_separated_list(parser.Delimiter.PAREN, one)
    return out


def print_own_clause(printer: Printer, op: TensorDef) -> None:
    own = op.own
    if own:
        printer.print_string(" own(" + ", ".join(f"{f.value} = {r.value}" for f, r in own.items()) + ")")


def verify_in_step(op: Operation) -> None:
    """An op of the `lane` or `arena` dialect lives directly in a `lane.step` (or is not placed yet, while built)."""
    parent = op.parent_op()
    if parent is not None and parent.name != "lane.step":
        raise VerifyException(f"{op.name}: must be directly inside a lane.step, not in {parent.name}")


def step_numerics(op: Operation) -> Numerics | None:
    """The numerics of the step `op` is in, where it is in one whose numerics are known."""
    parent = op.parent_op()
    if isinstance(parent, _step_op()):
        return parent.numerics.data
    return None


def tensor_def(value: SSAValue) -> TensorDef:
    """The op that defines `value`, where a verifier has checked that a lane tensor op does (a launch's operands,
    a view's source): for the verifiers that run after that check, and the passes over verified IR."""
    owner = value.owner
    assert isinstance(owner, TensorDef), "a lane tensor op defines this value (verified)"
    return owner


def tensor_type(value: SSAValue) -> TensorType:
    """The type of `value`, an operand IRDL constrains to a tensor (checked before the op's own verifier runs)."""
    t = value.type
    assert isinstance(t, TensorType), "IRDL constrains this operand to !lane.tensor"
    return t


def _parse_tensor_type(parser: Parser) -> TensorType:
    at = parser.pos
    t = parser.parse_type()
    if not isinstance(t, TensorType):
        parser.raise_error("expected a !lane.tensor type", at, parser.pos)
    return t


@located_op
@irdl_op_definition
class InputOp(TensorDef):
    """`%x = lane.input "x" : !lane.tensor<2048xf32>`: a tensor the step is given; never placed."""

    name = "lane.input"
    ROLE: ClassVar[str] = "input"


@located_op
@irdl_op_definition
class WeightOp(TensorDef):
    """`%w = lane.weight "wq" : !lane.tensor<4096x2048xi8>`: a weight (i8: Q8_0, a scale a block of the last
    dimension); never placed, never written."""

    name = "lane.weight"
    ROLE: ClassVar[str] = "weight"


@located_op
@irdl_op_definition
class StateOp(TensorDef):
    """`%kc = lane.state "k_cache" : !lane.tensor<...>`: memory kept across steps (a key/value cache); the step
    reads and writes it, and it is never placed."""

    name = "lane.state"
    ROLE: ClassVar[str] = "state"


def _parse_optional_forms_clause(parser: Parser) -> list[str]:
    if parser.parse_optional_keyword("forms") is None:
        return [Form.PLAIN.value]
    return parse_optional_forms(parser)


def _verify_forms(op: TensorDef, forms: Sequence[str], length: int) -> None:
    if not forms or len(set(forms)) != len(forms) or any(f not in FORMS for f in forms):
        raise VerifyException(f"{op.name} '{op.tensor_name}': forms must be distinct, from plain and quant")
    if Form.QUANT.value not in forms:
        return
    if length % QBLOCK:
        raise VerifyException(
            f"{op.name} '{op.tensor_name}': a quantized form needs a length that is a whole number of "
            f"blocks of {QBLOCK}, not {length}"
        )
    if op.result.type.elem != "f32":
        raise VerifyException(f"{op.name} '{op.tensor_name}': only f32 values have a quantized form")
    if step_numerics(op) is Numerics.F32:
        raise VerifyException(
            f"{op.name} '{op.tensor_name}': a quantized form under f32 numerics (only int8 and int8x2 quantize)"
        )


class ComputedDef(TensorDef):
    """An op that defines a tensor the step computes (`lane.tensor`, `lane.view`, `arena.tensor`), allocated in
    the arrays `forms` (plain by default)."""

    ROLE: ClassVar[str] = "computed"
    forms_ = prop_def(ArrayAttr[FormAttr], prop_name="forms")
    own_quant = opt_prop_def(ReasonAttr)

    @property
    def forms(self) -> tuple[str, ...]:
        return tuple(f.data.value for f in self.forms_.data)

    def _print_forms(self, printer: Printer) -> None:
        if self.forms != (Form.PLAIN.value,):
            printer.print_string(" forms")
            print_forms(printer, self.forms)


@located_op
@irdl_op_definition
class TensorOp(ComputedDef):
    """`%h = lane.tensor "h" forms(plain, quant) : !lane.tensor<2048xf32>`: a tensor the step computes, with the
    arrays it is allocated in (plain by default). Once placed, its arrays live in the arena (`arena.tensor`) or keep
    buffers of their own (`own(plain = output)`)."""

    name = "lane.tensor"

    def __init__(
        self,
        tensor: str,
        type: TensorType,
        forms: Sequence[str] = (Form.PLAIN.value,),
        own: dict[str, Attribute] | None = None,
    ):
        super().__init__(tensor, type, {"forms": form_attrs(forms), **(own or {})})

    @classmethod
    def parse(cls, parser: Parser):
        at = source_location(parser, cls.name)
        tensor = parse_str(parser, " as the tensor's name")
        forms = _parse_optional_forms_clause(parser)
        own = parse_own_clause(parser)
        parser.parse_punctuation(":")
        return located(cls(tensor, _parse_tensor_type(parser), forms, own), at)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.tensor_name)
        self._print_forms(printer)
        print_own_clause(printer, self)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        verify_computed(self)


def verify_computed(op: ComputedDef) -> None:
    """What a computed tensor's op checks: f32 or i32 elements, and forms it can be allocated in."""
    if op.result.type.elem == "i8":
        raise VerifyException(f"{op.name} '{op.tensor_name}': a computed tensor is f32 or i32, not i8")
    op._verify_tensor()
    _verify_forms(op, op.forms, _length(op.result.type))


def _length(t: TensorType) -> int:
    n = 1
    for d in t.dims:
        n *= d
    return n


@located_op
@irdl_op_definition
class ViewOp(ComputedDef):
    """`%qk = lane.view "qk" %q[2048] : !lane.tensor<1024xf32>`: an alias of `%q` starting 2048 elements in. A touch
    of the view is a touch of the tensor it views, but for a quantized touch of a view that starts inside a block."""

    name = "lane.view"
    source = operand_def(TensorType)
    offset = prop_def(IntegerAttr[I64])
    traits = traits_def(Pure())

    def __init__(
        self,
        tensor: str,
        source: SSAValue,
        offset: int,
        type: TensorType,
        forms: Sequence[str] = (Form.PLAIN.value,),
        own: dict[str, Attribute] | None = None,
    ):
        IRDLOperation.__init__(
            self,
            operands=[source],
            result_types=[type],
            properties={
                "tensor": StringAttr(tensor),
                "offset": IntegerAttr(offset, 64),
                "forms": form_attrs(forms),
                **(own or {}),
            },
        )

    @property
    def view_offset(self) -> int:
        """The element of the viewed tensor the view starts at."""
        return self.offset.value.data

    @classmethod
    def parse(cls, parser: Parser):
        at = source_location(parser, cls.name)
        tensor = parse_str(parser, " as the view's name")
        source = parse_value(parser)
        parser.parse_punctuation("[")
        offset = parse_i64(parser, "the view's offset")
        parser.parse_punctuation("]")
        forms = _parse_optional_forms_clause(parser)
        own = parse_own_clause(parser)
        parser.parse_punctuation(":")
        return located(cls(tensor, source, offset, _parse_tensor_type(parser), forms, own), at)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.tensor_name)
        printer.print_string(" ")
        printer.print_operand(self.source)
        printer.print_string(f"[{self.view_offset}]")
        self._print_forms(printer)
        print_own_clause(printer, self)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        self._verify_tensor()
        src = self.source.type
        if not isinstance(src, TensorType):
            raise VerifyException(f"lane.view '{self.tensor_name}': views a value that is no tensor")
        if not isinstance(self.source.owner, ComputedDef):
            raise VerifyException(f"lane.view '{self.tensor_name}': only a computed tensor or a view can be viewed")
        t = self.result.type
        if t.element != src.element:
            raise VerifyException(f"lane.view '{self.tensor_name}': element type differs from the viewed tensor's")
        off, n, total = self.view_offset, _length(t), _length(src)
        if off < 0 or off + n > total:
            raise VerifyException(
                f"lane.view '{self.tensor_name}': elements [{off}, {off + n}) lie outside the {total} elements of "
                f"'{self.source.owner.tensor_name}'"
            )
        _verify_forms(self, self.forms, n)


@located_op
@irdl_op_definition
class OutputOp(IRDLOperation):
    """`lane.output %q : !lane.tensor<...>`: the step's terminator, with the tensors it hands back (never placed)."""

    name = "lane.output"
    values = var_operand_def(TensorType)
    assembly_format = "($values^ `:` type($values))? attr-dict"
    traits = lazy_traits_def(lambda: (IsTerminator(), HasParent(_step_op())))

    def __init__(self, values: Sequence[SSAValue]):
        super().__init__(operands=[values])

    def verify_(self) -> None:
        verify_in_step(self)
        for v in self.values:
            owner = v.owner
            if not isinstance(owner, TensorDef):
                raise VerifyException("lane.output hands back a value that no lane tensor op defines")
            if isinstance(owner, ViewOp):
                raise VerifyException(
                    f"lane.output '{owner.tensor_name}': a view is no output: output the tensor it views, "
                    f"'{tensor_def(owner.source).tensor_name}'"  # the view verified first: it comes before
                )


def _step_op() -> type[StepOp]:
    from lanearena.dialects.lane import StepOp  # the step is built on the ops of this module

    return StepOp
