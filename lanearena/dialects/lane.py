"""The `lane` dialect: one step of a model as tensors and launches.

A `lane.step` holds the step's tensors (inputs, weights, state kept across steps, computed tensors and views of
them), its launches in order, and its outputs. A launch reads and writes tensors, each through one of its arrays
(`plain` or `quant`); a kernel-kind op (`lane.gemv`, `lane.norm`, ...) derives how it writes and which scratch it asks
for from its parameters (`lanearena.kinds`), a generic `lane.launch` spells them out."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, IntAttr, StringAttr, f32, i8, i32
from xdsl.ir import Attribute, Dialect, ParametrizedAttribute, Region, SSAValue, TypeAttribute
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.traits import IsolatedFromAbove, NoTerminator
from xdsl.utils.exceptions import VerifyException

from lanearena import kinds
from lanearena.dialects.syntax import (
    FORMS,
    param_attr,
    param_value,
    parse_optional_forms,
    parse_optional_value,
    parse_params,
    parse_touch_list,
    parse_value,
    print_forms,
    print_params,
    print_touch_list,
    strings,
)
from lanearena.model import QBLOCK, Form, Numerics

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
    result = result_def(TensorType)

    def __init__(self, tensor: str, type: TensorType, properties: dict[str, Attribute] | None = None):
        super().__init__(result_types=[type], properties={"tensor": StringAttr(tensor), **(properties or {})})

    @property
    def tensor_name(self) -> str:
        return self.tensor.data

    @property
    def forms(self) -> tuple[str, ...]:
        return (Form.PLAIN.value,)

    @classmethod
    def parse(cls, parser: Parser):
        tensor = parser.parse_str_literal(" as the tensor's name")
        parser.parse_punctuation(":")
        return cls(tensor, _parse_tensor_type(parser))

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.tensor_name)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)


def _parse_tensor_type(parser: Parser) -> TensorType:
    at = parser.pos
    t = parser.parse_type()
    if not isinstance(t, TensorType):
        parser.raise_error("expected a !lane.tensor type", at, parser.pos)
    return t


@irdl_op_definition
class InputOp(TensorDef):
    """`%x = lane.input "x" : !lane.tensor<2048xf32>`: a tensor the step is given; never placed."""

    name = "lane.input"
    ROLE: ClassVar[str] = "input"


@irdl_op_definition
class WeightOp(TensorDef):
    """`%w = lane.weight "wq" : !lane.tensor<4096x2048xi8>`: a weight (i8: Q8_0, a scale a block of the last
    dimension); never placed, never written."""

    name = "lane.weight"
    ROLE: ClassVar[str] = "weight"


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


def _verify_forms(op: IRDLOperation, forms: Sequence[str], length: int) -> None:
    if not forms or len(set(forms)) != len(forms) or any(f not in FORMS for f in forms):
        raise VerifyException(f"{op.name} '{op.tensor_name}': forms must be distinct, from plain and quant")
    if Form.QUANT.value in forms and length % QBLOCK:
        raise VerifyException(
            f"{op.name} '{op.tensor_name}': a quantized form needs a length that is a whole number of "
            f"blocks of {QBLOCK}, not {length}"
        )


@irdl_op_definition
class TensorOp(TensorDef):
    """`%h = lane.tensor "h" forms(plain, quant) : !lane.tensor<2048xf32>`: a tensor the step computes, with the
    arrays it is allocated in (plain by default)."""

    name = "lane.tensor"
    ROLE: ClassVar[str] = "computed"
    forms_ = prop_def(ArrayAttr[StringAttr], prop_name="forms")

    def __init__(self, tensor: str, type: TensorType, forms: Sequence[str] = (Form.PLAIN.value,)):
        super().__init__(tensor, type, {"forms": strings(forms)})

    @property
    def forms(self) -> tuple[str, ...]:
        return tuple(f.data for f in self.forms_.data)

    @classmethod
    def parse(cls, parser: Parser):
        tensor = parser.parse_str_literal(" as the tensor's name")
        forms = _parse_optional_forms_clause(parser)
        parser.parse_punctuation(":")
        return cls(tensor, _parse_tensor_type(parser), forms)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.tensor_name)
        if self.forms != (Form.PLAIN.value,):
            printer.print_string(" forms")
            print_forms(printer, self.forms)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        t = self.result.type
        if t.elem == "i8":
            raise VerifyException(f"lane.tensor '{self.tensor_name}': a computed tensor is f32 or i32, not i8")
        _verify_forms(self, self.forms, _length(t))


def _length(t: TensorType) -> int:
    n = 1
    for d in t.dims:
        n *= d
    return n


@irdl_op_definition
class ViewOp(TensorDef):
    """`%qk = lane.view "qk" %q[2048] : !lane.tensor<1024xf32>`: an alias of `%q` starting 2048 elements in. A touch
    of the view is a touch of the tensor it views, but for a quantized touch of a view that starts inside a block."""

    name = "lane.view"
    ROLE: ClassVar[str] = "computed"
    source = operand_def(TensorType)
    offset = prop_def(IntAttr)
    forms_ = prop_def(ArrayAttr[StringAttr], prop_name="forms")

    def __init__(
        self, tensor: str, source: SSAValue, offset: int, type: TensorType, forms: Sequence[str] = (Form.PLAIN.value,)
    ):
        IRDLOperation.__init__(
            self,
            operands=[source],
            result_types=[type],
            properties={"tensor": StringAttr(tensor), "offset": IntAttr(offset), "forms": strings(forms)},
        )

    @property
    def forms(self) -> tuple[str, ...]:
        return tuple(f.data for f in self.forms_.data)

    @classmethod
    def parse(cls, parser: Parser):
        tensor = parser.parse_str_literal(" as the view's name")
        source = parse_value(parser)
        parser.parse_punctuation("[")
        offset = parser.parse_integer(allow_boolean=False)
        parser.parse_punctuation("]")
        forms = _parse_optional_forms_clause(parser)
        parser.parse_punctuation(":")
        return cls(tensor, source, offset, _parse_tensor_type(parser), forms)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.tensor_name)
        printer.print_string(" ")
        printer.print_operand(self.source)
        printer.print_string(f"[{self.offset.data}]")
        if self.forms != (Form.PLAIN.value,):
            printer.print_string(" forms")
            print_forms(printer, self.forms)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        src = self.source.type
        if not isinstance(src, TensorType):
            raise VerifyException(f"lane.view '{self.tensor_name}': views a value that is no tensor")
        if not isinstance(self.source.owner, (TensorOp, ViewOp)):
            raise VerifyException(f"lane.view '{self.tensor_name}': only a computed tensor or a view can be viewed")
        t = self.result.type
        if t.element != src.element:
            raise VerifyException(f"lane.view '{self.tensor_name}': element type differs from the viewed tensor's")
        off, n, total = self.offset.data, _length(t), _length(src)
        if off < 0 or off + n > total:
            raise VerifyException(
                f"lane.view '{self.tensor_name}': elements [{off}, {off + n}) lie outside the {total} elements of "
                f"'{self.source.owner.tensor_name}'"
            )
        _verify_forms(self, self.forms, n)


@irdl_op_definition
class OutputOp(IRDLOperation):
    """`lane.output %q`: tensors the step hands back; never placed."""

    name = "lane.output"
    values = var_operand_def(TensorType)
    assembly_format = "$values attr-dict `:` type($values)"

    def __init__(self, values: Sequence[SSAValue]):
        super().__init__(operands=[values])


# --- Launches ----------------------------------------------------------------------------------------------------


@irdl_attr_definition
class PartAttr(ParametrizedAttribute):
    """`#lane.part<pitch, start, width>`: a write of `[start, start+width)` of every unit of `pitch` elements."""

    name = "lane.part"
    pitch: IntAttr
    start: IntAttr
    width: IntAttr

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        with parser.in_angle_brackets():
            vals = [parser.parse_integer(allow_boolean=False)]
            for _ in range(2):
                parser.parse_punctuation(",")
                vals.append(parser.parse_integer(allow_boolean=False))
        return [IntAttr(v) for v in vals]

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.pitch.data}, {self.start.data}, {self.width.data}>")

    def verify(self) -> None:
        p, s, w = self.pitch.data, self.start.data, self.width.data
        if p <= 0 or w <= 0 or s < 0 or s + w > p:
            raise VerifyException(f"a part [{s}, {s + w}) of every {p} must lie inside the unit and be non-empty")


class LaunchOp(IRDLOperation):
    """A launch: operands read (`ins`) and written (`outs`), each with the forms it touches."""

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    ins = var_operand_def(TensorType)
    outs = var_operand_def(TensorType)
    in_forms = prop_def(ArrayAttr[StringAttr])
    out_forms = prop_def(ArrayAttr[ArrayAttr[StringAttr]])

    def reads(self) -> list[tuple[SSAValue, str]]:
        return [(v, f.data) for v, f in zip(self.ins, self.in_forms.data, strict=True)]

    def writes(self) -> list[tuple[SSAValue, tuple[str, ...]]]:
        return [(v, tuple(f.data for f in fs.data)) for v, fs in zip(self.outs, self.out_forms.data, strict=True)]

    def _verify_touches(self) -> None:
        if len(self.in_forms.data) != len(self.ins) or len(self.out_forms.data) != len(self.outs):
            raise VerifyException(f"{self.name}: one form list per operand")
        for v, form in self.reads():
            _check_form(self, v, (form,), "reads")
        for v, forms in self.writes():
            _check_form(self, v, forms, "writes")
            owner = v.owner
            if isinstance(owner, (InputOp, WeightOp)):
                raise VerifyException(f"{self.name} writes {owner.ROLE} '{owner.tensor_name}': only the step's "
                                      "computed tensors and state are written")


def _check_form(op: IRDLOperation, v: SSAValue, forms: Sequence[str], what: str) -> None:
    owner = v.owner
    if not isinstance(owner, TensorDef):
        raise VerifyException(f"{op.name} {what} a value that no lane tensor op defines")
    for f in forms:
        if f not in FORMS:
            raise VerifyException(f"{op.name}: unknown form '{f}'")
        if f not in owner.forms:
            raise VerifyException(
                f"{op.name} {what} the {f} form of '{owner.tensor_name}', which is not allocated in it "
                f"(its forms are ({', '.join(owner.forms)}))"
            )


class KernelOp(LaunchOp):
    """A launch of one of the kernel kinds of `lanearena.kinds`: `lane.<kind> ins -> outs params`. Its writes and
    scratch follow from its kind and parameters."""

    KIND: ClassVar[kinds.Kind]
    params = prop_def(DictionaryAttr)

    def __init__(
        self,
        ins: Sequence[tuple[SSAValue, str]],
        outs: Sequence[tuple[SSAValue, Sequence[str]]],
        params: dict[str, int | float | str] | None = None,
    ):
        super().__init__(
            operands=[[v for v, _ in ins], [v for v, _ in outs]],
            properties={
                "in_forms": strings(f for _, f in ins),
                "out_forms": ArrayAttr(strings(fs) for _, fs in outs),
                "params": DictionaryAttr({k: param_attr(v) for k, v in (params or {}).items()}),
            },
        )

    def param_values(self) -> dict[str, int | float | str]:
        return {k: param_value(v) for k, v in self.params.data.items()}

    @classmethod
    def parse(cls, parser: Parser):
        ins = parse_touch_list(parser)
        parser.parse_punctuation("->")
        outs = parse_touch_list(parser)
        params = parse_params(parser, tuple(cls.KIND.params) + ("pitch", "start", "width"))
        if any(len(forms) != 1 for _, forms in ins):
            parser.raise_error(f"{cls.name}: each read operand names one form")
        return cls([(v, fs[0]) for v, fs in ins], outs, params)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        print_touch_list(printer, ((v, (f,)) for v, f in self.reads()))
        printer.print_string(" -> ")
        print_touch_list(printer, self.writes())
        print_params(printer, self.param_values())

    def verify_(self) -> None:
        k = self.KIND
        self._verify_touches()
        if len(self.ins) != len(k.ins) or len(self.outs) != len(k.outs):
            raise VerifyException(
                f"{self.name} takes ({', '.join(k.ins)}) -> ({', '.join(k.outs)}), not {len(self.ins)} -> "
                f"{len(self.outs)} operands"
            )
        for operand, v in zip(k.ins, self.ins):
            is_weight = isinstance(v.owner, WeightOp)
            if (operand in k.weights) != is_weight:
                must = "must" if operand in k.weights else "must not"
                raise VerifyException(f"{self.name}: operand '{operand}' {must} be a lane.weight")
        params = self.param_values()
        for name in params:
            if name not in k.params and name not in ("pitch", "start", "width"):
                raise VerifyException(f"{self.name}: unknown parameter '{name}'")
        for name, default in k.params.items():
            if default is None and name not in params:
                raise VerifyException(f"{self.name}: parameter '{name}' is required")
        for name, value in params.items():
            default = k.params.get(name, 0)
            if isinstance(default, (int, float)) and not isinstance(default, bool):
                if not isinstance(value, (int, float)) or (isinstance(default, int) and not isinstance(value, int)):
                    raise VerifyException(f"{self.name}: parameter '{name}' must be a number like {default!r}")
                if name != "start" and value <= 0:
                    raise VerifyException(f"{self.name}: parameter '{name}' must be positive, not {value}")
        part = kinds.part_of(params)
        if any(n in params for n in ("pitch", "start", "width")) and part is None or (
            part is not None and not all(n in params for n in ("start", "width"))
        ):
            raise VerifyException(f"{self.name}: a part write takes pitch, start and width together")
        if part is not None and (part.start < 0 or part.start + part.width > part.pitch):
            raise VerifyException(f"{self.name}: part [{part.start}, {part.start + part.width}) lies outside the unit of {part.pitch}")
        if k.name == "binary" and params.get("op") not in kinds.BINARY_OPS:
            raise VerifyException(f"lane.binary: op must be one of {', '.join(kinds.BINARY_OPS)}")


def _kernel_op(kind: kinds.Kind) -> type[KernelOp]:
    cls = type(
        "".join(w.capitalize() for w in kind.name.split("_")) + "Op",
        (KernelOp,),
        {"name": f"lane.{kind.name}", "KIND": kind, "__annotations__": {"KIND": ClassVar[kinds.Kind]}, "__doc__": f"`lane.{kind.name}`: a {kind.name} launch "
         f"reading ({', '.join(kind.ins)}) and writing ({', '.join(kind.outs)})."},
    )
    return irdl_op_definition(cls)


KERNEL_OPS: dict[str, type[KernelOp]] = {name: _kernel_op(k) for name, k in kinds.KINDS.items()}


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
        with parser.in_angle_brackets():
            tag = parser.parse_str_literal()
            parser.parse_punctuation(",")
            elem = parser.parse_keyword_in(("f32", "i32", "i8", "counter"))
            parser.parse_punctuation(",")
            nbytes = parser.parse_integer(allow_boolean=False)
        counter = elem == "counter"
        return [StringAttr(tag), StringAttr("i32" if counter else elem), IntAttr(nbytes), IntAttr(int(counter))]

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<")
        printer.print_string_literal(self.tag.data)
        printer.print_string(f", {'counter' if self.counter.data else self.elem.data}, {self.bytes.data}>")

    def verify(self) -> None:
        if self.bytes.data <= 0:
            raise VerifyException(f"scratch '{self.tag.data}' needs a positive size, not {self.bytes.data}")


@irdl_op_definition
class GenericLaunchOp(LaunchOp):
    """`lane.launch "kernel" %a, %b(quant) -> %c whole, %d(plain) part<64, 0, 32>, %e other scratch [..]`: a launch
    of a kernel outside the library, with its writes and scratch spelled out."""

    name = "lane.launch"
    kernel = prop_def(StringAttr)
    out_how = prop_def(ArrayAttr[Attribute])
    scratch = prop_def(ArrayAttr[ScratchAttr])

    def __init__(
        self,
        kernel: str,
        ins: Sequence[tuple[SSAValue, str]],
        outs: Sequence[tuple[SSAValue, Sequence[str], Attribute]],
        scratch: Sequence[ScratchAttr] = (),
    ):
        super().__init__(
            operands=[[v for v, _ in ins], [v for v, _, _ in outs]],
            properties={
                "kernel": StringAttr(kernel),
                "in_forms": strings(f for _, f in ins),
                "out_forms": ArrayAttr(strings(fs) for _, fs, _ in outs),
                "out_how": ArrayAttr(h for _, _, h in outs),
                "scratch": ArrayAttr(scratch),
            },
        )

    @classmethod
    def parse(cls, parser: Parser):
        kernel = parser.parse_str_literal(" as the kernel's name")
        ins = parse_touch_list(parser)
        parser.parse_punctuation("->")
        outs = []
        while True:
            value = parse_optional_value(parser)
            if value is None:
                break
            forms = parse_optional_forms(parser)
            how = parser.parse_keyword_in(("whole", "other", "part"), " (how the launch writes it)")
            outs.append((value, forms, PartAttr(*PartAttr.parse_parameters(parser))
                         if how == "part" else StringAttr(how)))
            if parser.parse_optional_punctuation(",") is None:
                break
        scratch = []
        if parser.parse_optional_keyword("scratch") is not None:
            scratch = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_attribute)
            if not all(isinstance(s, ScratchAttr) for s in scratch):
                parser.raise_error("scratch lists #lane.scratch attributes")
        if any(len(forms) != 1 for _, forms in ins):
            parser.raise_error("lane.launch: each read operand names one form")
        return cls(kernel, [(v, fs[0]) for v, fs in ins], outs, scratch)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.kernel.data)
        printer.print_string(" ")
        print_touch_list(printer, ((v, (f,)) for v, f in self.reads()))
        printer.print_string(" ->")
        for i, ((v, forms), how) in enumerate(zip(self.writes(), self.out_how.data)):
            printer.print_string(", " if i else " ")
            print_touch_list(printer, [(v, forms)])
            if isinstance(how, PartAttr):
                printer.print_string(" part")
                how.print_parameters(printer)
            else:
                printer.print_string(f" {how.data}")
        if self.scratch.data:
            printer.print_string(" scratch [")
            printer.print_list(self.scratch.data, printer.print_attribute)
            printer.print_string("]")

    def verify_(self) -> None:
        self._verify_touches()
        if len(self.out_how.data) != len(self.outs):
            raise VerifyException("lane.launch: one write kind per written operand")
        for how in self.out_how.data:
            if not (isinstance(how, PartAttr) or (isinstance(how, StringAttr) and how.data in ("whole", "other"))):
                raise VerifyException("lane.launch: a write is whole, other, or a part<pitch, start, width>")
        tags = [s.tag.data for s in self.scratch.data]
        if len(set(tags)) != len(tags):
            raise VerifyException("lane.launch: scratch tags must be distinct")


# --- The step ----------------------------------------------------------------------------------------------------


@irdl_op_definition
class StepOp(IRDLOperation):
    """`lane.step @decode numerics(int8) { ... }`: one step of a model."""

    name = "lane.step"
    sym_name = prop_def(StringAttr)
    numerics = prop_def(StringAttr)
    body = region_def("single_block")
    traits = traits_def(NoTerminator(), IsolatedFromAbove())

    def __init__(self, name: str, numerics: str, body: Region):
        super().__init__(properties={"sym_name": StringAttr(name), "numerics": StringAttr(numerics)}, regions=[body])

    @property
    def step_numerics(self) -> Numerics:
        return Numerics(self.numerics.data)

    @classmethod
    def parse(cls, parser: Parser):
        name = parser.parse_symbol_name().data
        parser.parse_keyword("numerics")
        parser.parse_punctuation("(")
        numerics = parser.parse_keyword_in(tuple(n.value for n in Numerics), " (f32, int8 or int8x2)")
        parser.parse_punctuation(")")
        return cls(name, numerics, parser.parse_region())

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        printer.print_string(f" numerics({self.numerics.data}) ")
        printer.print_region(self.body, print_entry_block_args=False, print_empty_block=False)

    def verify_(self) -> None:
        if self.numerics.data not in {n.value for n in Numerics}:
            raise VerifyException(f"lane.step @{self.sym_name.data}: numerics must be f32, int8 or int8x2")
        names: dict[str, TensorDef] = {}
        for op in self.body.block.ops:
            if isinstance(op, TensorDef):
                if op.tensor_name in names:
                    raise VerifyException(f"lane.step @{self.sym_name.data}: tensor '{op.tensor_name}' defined twice")
                names[op.tensor_name] = op


LANE = Dialect(
    "lane",
    [InputOp, WeightOp, StateOp, TensorOp, ViewOp, OutputOp, GenericLaunchOp, StepOp, *KERNEL_OPS.values()],
    [TensorType, PartAttr, ScratchAttr],
)
