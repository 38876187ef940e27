"""The custom directives of the `lane` and `arena` ops' declarative formats: the pieces xDSL's format language cannot
say alone.

    custom<Name>($tensor)                   "h": a name, which may hold any character
    custom<Tensor>($w, type($w))            %w: a tensor operand, typed as the value it names
    custom<Read>($x, type($x), $x_form)     %x or %x(quant): a tensor operand and the form read
    custom<Written>($out, type($out), $out_forms)    %out or %out(plain, quant): and the forms written
    custom<Forms>($forms)                   forms(plain, quant), or nothing for plain alone
    custom<Own>($own_plain, $own_quant)     own(plain = output, quant = unsafe), or nothing

and for the generic `lane.launch`, its operand lists in parentheses with their forms (and how each is written).

A tensor operand's type is the type of the value it names, defined earlier in the step, so a launch prints no types;
a name is read back from the byte escapes xDSL's printer writes for text beyond ASCII (`attrs.parse_str`)."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import ArrayAttr, StringAttr
from xdsl.ir import Attribute
from xdsl.irdl import IRDLOperation
from xdsl.irdl.declarative_assembly_format import (
    AttributeVariable,
    CustomDirective,
    OperandVariable,
    ParsingState,
    PrintingState,
    TypeDirective,
    VariadicOperandVariable,
    irdl_custom_directive,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer

from lanearena.dialects.attrs import (
    PLAIN,
    FormAttr,
    PartAttr,
    Reason,
    ReasonAttr,
    WriteAttr,
    WriteKind,
    form_attrs,
    parse_str,
)
from lanearena.model import Form

FORMS = tuple(f.value for f in Form)


def parse_tensor(parser: Parser) -> tuple[UnresolvedOperand, Attribute]:
    """A tensor operand (`%h`) and its type, that of the value it names: one an op before this one defines."""
    operand = parser.parse_unresolved_operand("expected a tensor operand (%name)")
    values = parser.ssa_values.get(operand.operand_name)
    if values is None or operand.index >= len(values):
        parser.raise_error(f"unknown tensor '%{operand.operand_name}': no op before this one defines it", operand.span)
    return operand, values[operand.index].type


def parse_forms(parser: Parser) -> list[str]:
    """`(plain, quant)`: one or more forms in parentheses."""
    return parser.parse_comma_separated_list(
        parser.Delimiter.PAREN, lambda: parser.parse_keyword_in(FORMS, " as a form (plain or quant)")
    )


def parse_optional_forms(parser: Parser) -> list[str] | None:
    """`(plain, quant)` after an operand, or None where no parenthesis follows."""
    if parser.parse_optional_punctuation("(") is None:
        return None
    forms = [parser.parse_keyword_in(FORMS, " as a form (plain or quant)")]
    while parser.parse_optional_punctuation(",") is not None:
        forms.append(parser.parse_keyword_in(FORMS, " as a form (plain or quant)"))
    parser.parse_punctuation(")")
    return forms


def print_forms(printer: Printer, forms: Sequence[FormAttr]) -> None:
    printer.print_string("(" + ", ".join(f.data.value for f in forms) + ")")


def _forms_of(attr: Attribute | None) -> Sequence[FormAttr]:
    return attr.data if isinstance(attr, ArrayAttr) else ()


def _emitted(state: PrintingState) -> None:
    """Records that a directive printed a word, so what follows is spaced from it."""
    state.should_emit_space = True
    state.last_was_punctuation = False


@irdl_custom_directive
class Name(CustomDirective):
    """`"h"`: a string property (a tensor's name, a kernel's, a tag)."""

    name: AttributeVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        self.name.set(state, StringAttr(parse_str(parser, f" (the {self.name.name})")))

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        state.print_whitespace(printer)
        attr = self.name.get(op)
        printer.print_string_literal(attr.data if isinstance(attr, StringAttr) else "")
        _emitted(state)


@irdl_custom_directive
class Tensor(CustomDirective):
    """`%w`: a tensor operand."""

    operand: OperandVariable
    type: TypeDirective

    def parse(self, parser: Parser, state: ParsingState) -> None:
        operand, type = parse_tensor(parser)
        self.operand.set(state, operand)
        self.type.set(state, (type,))
        at = parser.pos
        if parser.parse_optional_punctuation("(") is not None:
            name = self.operand.name
            parser.raise_error(
                f"{state.op_type.name}: its kernels take '{name}' in the plain form alone: '{name}' names no form",
                at,
                parser.pos,
            )

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        state.print_whitespace(printer)
        printer.print_operand(self.operand.get(op))
        _emitted(state)


@irdl_custom_directive
class Read(CustomDirective):
    """`%x` or `%x(quant)`: a tensor operand and the form read (a `FormAttr`, plain where none is written)."""

    operand: OperandVariable
    type: TypeDirective
    form: AttributeVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        operand, type = parse_tensor(parser)
        self.operand.set(state, operand)
        self.type.set(state, (type,))
        at = parser.pos
        forms = parse_optional_forms(parser)
        if forms is not None:
            if len(forms) != 1:
                parser.raise_error("a read names one form", at, parser.pos)
            self.form.set(state, FormAttr(Form(forms[0])))

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        state.print_whitespace(printer)
        printer.print_operand(self.operand.get(op))
        form = self.form.get(op)
        if isinstance(form, FormAttr) and form != PLAIN:
            print_forms(printer, (form,))
        _emitted(state)


@irdl_custom_directive
class Written(CustomDirective):
    """`%out` or `%out(plain, quant)`: a tensor operand and the forms written (an array of `FormAttr`, plain alone
    where none is written)."""

    operand: OperandVariable
    type: TypeDirective
    forms: AttributeVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        operand, type = parse_tensor(parser)
        self.operand.set(state, operand)
        self.type.set(state, (type,))
        forms = parse_optional_forms(parser)
        if forms is not None:
            self.forms.set(state, form_attrs(forms))

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        state.print_whitespace(printer)
        printer.print_operand(self.operand.get(op))
        forms = _forms_of(self.forms.get(op))
        if list(forms) != [PLAIN]:
            print_forms(printer, forms)
        _emitted(state)


@irdl_custom_directive
class Forms(CustomDirective):
    """`forms(plain, quant)`: the arrays a computed tensor is allocated in; nothing where that is plain alone."""

    forms: AttributeVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        if parser.parse_optional_keyword("forms") is not None:
            self.forms.set(state, form_attrs(parse_forms(parser)))

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        forms = _forms_of(self.forms.get(op))
        if list(forms) != [PLAIN]:
            state.print_whitespace(printer)
            printer.print_string("forms")
            print_forms(printer, forms)
            _emitted(state)


@irdl_custom_directive
class Own(CustomDirective):
    """`own(plain = output, quant = unsafe)`: the arrays of a tensor kept in buffers of their own, and why (set by
    `lane-arena-place`); nothing where none is."""

    plain: AttributeVariable
    quant: AttributeVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        if parser.parse_optional_keyword("own") is None:
            return
        given: dict[Form, ReasonAttr] = {}

        def one() -> None:
            at = parser.pos
            form = parser.parse_str_enum(Form)  # type: ignore[type-var]  # the standard library's StrEnum (attrs)
            if form in given:
                parser.raise_error(f"own({form.value} = ...) given twice", at, parser.pos)
            parser.parse_punctuation("=")
            given[form] = ReasonAttr(parser.parse_str_enum(Reason))  # type: ignore[type-var]  # as Form

        parser.parse_comma_separated_list(parser.Delimiter.PAREN, one)
        for form, reason in given.items():
            (self.plain if form is Form.PLAIN else self.quant).set(state, reason)

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        own = [(f, r) for f, r in ((Form.PLAIN, self.plain.get(op)), (Form.QUANT, self.quant.get(op))) if r]
        if own:
            state.print_whitespace(printer)
            printer.print_string("own(" + ", ".join(f"{f.value} = {r.data.value}" for f, r in own) + ")")  # type: ignore[attr-defined]
            _emitted(state)


@irdl_custom_directive
class Reads(CustomDirective):
    """`(%a, %b(quant))`: a generic launch's read operands, each with the form read."""

    operands: VariadicOperandVariable
    types: TypeDirective
    forms: AttributeVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        read: list[tuple[UnresolvedOperand, Attribute, FormAttr]] = []

        def one() -> None:
            operand, type = parse_tensor(parser)
            at = parser.pos
            forms = parse_optional_forms(parser) or [Form.PLAIN.value]
            if len(forms) != 1:
                parser.raise_error("a read names one form", at, parser.pos)
            read.append((operand, type, FormAttr(Form(forms[0]))))

        parser.parse_comma_separated_list(parser.Delimiter.PAREN, one)
        self.operands.set(state, [r[0] for r in read])
        self.types.set(state, [r[1] for r in read])
        self.forms.set(state, ArrayAttr(r[2] for r in read))

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        values, forms = self.operands.get(op), _forms_of(self.forms.get(op))
        printer.print_string("(")
        for i, value in enumerate(values):
            printer.print_string(", " if i else "")
            printer.print_operand(value)
            if i < len(forms) and forms[i] != PLAIN:
                print_forms(printer, (forms[i],))
        printer.print_string(")")
        _emitted(state)


@irdl_custom_directive
class Writes(CustomDirective):
    """`(%c whole, %d(plain, quant) part<64, 0, 32>, %e other)`: a generic launch's written operands, each with the
    forms written and how (whole, a part of every unit, or some other shape)."""

    operands: VariadicOperandVariable
    types: TypeDirective
    forms: AttributeVariable
    hows: AttributeVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        written: list[tuple[UnresolvedOperand, Attribute, ArrayAttr[FormAttr], Attribute]] = []

        def one() -> None:
            operand, type = parse_tensor(parser)
            forms = parse_optional_forms(parser) or [Form.PLAIN.value]
            how = parser.parse_keyword_in(("whole", "other", "part"), " (how the launch writes it)")
            attr = PartAttr.new(PartAttr.parse_parameters(parser)) if how == "part" else WriteAttr(WriteKind(how))
            written.append((operand, type, form_attrs(forms), attr))

        parser.parse_comma_separated_list(parser.Delimiter.PAREN, one)
        self.operands.set(state, [w[0] for w in written])
        self.types.set(state, [w[1] for w in written])
        self.forms.set(state, ArrayAttr(w[2] for w in written))
        self.hows.set(state, ArrayAttr(w[3] for w in written))

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        values = self.operands.get(op)
        forms, hows = _forms_of(self.forms.get(op)), _forms_of(self.hows.get(op))
        state.print_whitespace(printer)
        printer.print_string("(")
        # Not strict: an op that fails its verifier (one write kind per operand) is printed in its messages.
        for i, value in enumerate(values):
            printer.print_string(", " if i else "")
            printer.print_operand(value)
            fs = _forms_of(forms[i]) if i < len(forms) else ()
            if list(fs) != [PLAIN]:
                print_forms(printer, fs)
            how = hows[i] if i < len(hows) else None
            if isinstance(how, PartAttr):
                printer.print_string(" part")
                how.print_parameters(printer)
            elif isinstance(how, WriteAttr):
                printer.print_string(f" {how.data.value}")
        printer.print_string(")")
        _emitted(state)
