"""Pieces of the custom assembly formats the `lane` and `arena` ops share: operands with the forms they touch
(`%h(plain, quant)`), and parameters written `name(value)`."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from xdsl.dialects.builtin import ArrayAttr, FloatAttr, IntegerAttr, StringAttr, f64, i64
from xdsl.ir import Attribute, SSAValue
from xdsl.parser import BaseParser, Parser
from xdsl.printer import Printer

from lanearena.compat import next_op_result
from lanearena.dialects.attrs import FormAttr
from lanearena.model import Form

FORMS = tuple(f.value for f in Form)


def parse_optional_str(parser: BaseParser) -> str | None:
    """A string literal, or None where none follows. xDSL 0.75's printer writes every character beyond ASCII as
    UTF-8 byte escapes (`"\\C3\\A9"`), which its lexer then calls a bytes literal: those are taken back here, as the
    text they spell."""
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


def print_forms(printer: Printer, forms: Sequence[str]) -> None:
    printer.print_string("(" + ", ".join(forms) + ")")


def parse_optional_value(parser: Parser) -> SSAValue | None:
    """A tensor operand defined earlier in the step (`%h`), or None where no operand follows (the next op's result
    is none)."""
    if next_op_result(parser):
        return None
    operand = parser.parse_optional_unresolved_operand()
    if operand is None:
        return None
    values = parser.ssa_values.get(operand.operand_name)
    if values is None or operand.index >= len(values):
        parser.raise_error(f"unknown tensor '%{operand.operand_name}': no op before this one defines it", operand.span)
    return values[operand.index]


def parse_value(parser: Parser) -> SSAValue:
    """A tensor operand defined earlier in the step."""
    at = parser.pos
    value = parse_optional_value(parser)
    if value is None:
        parser.raise_error("expected a tensor operand (%name)", at, parser.pos)
    return value


def parse_touch_list(parser: Parser) -> list[tuple[SSAValue, list[str]]]:
    """A comma-separated list of operands with forms (possibly empty before `->` or the end)."""
    items: list[tuple[SSAValue, list[str]]] = []
    first = parse_optional_value(parser)
    if first is None:
        return items
    items.append((first, parse_optional_forms(parser)))
    while parser.parse_optional_punctuation(",") is not None:
        value = parse_value(parser)
        items.append((value, parse_optional_forms(parser)))
    return items


def parse_optional_forms(parser: Parser) -> list[str]:
    """`(plain, quant)` after an operand, or nothing (plain)."""
    if parser.parse_optional_punctuation("(") is None:
        return [Form.PLAIN.value]
    forms = [parser.parse_keyword_in(FORMS, " as a form (plain or quant)")]
    while parser.parse_optional_punctuation(",") is not None:
        forms.append(parser.parse_keyword_in(FORMS, " as a form (plain or quant)"))
    parser.parse_punctuation(")")
    return forms


def print_touch_list(printer: Printer, items: Iterable[tuple[SSAValue, Sequence[str]]]) -> None:
    """`%a, %b(quant)`: the form is left out where it is plain alone."""
    first = True
    for value, forms in items:
        if not first:
            printer.print_string(", ")
        first = False
        printer.print_operand(value)
        if list(forms) != [Form.PLAIN.value]:
            print_forms(printer, forms)


def param_attr(value: int | float | str) -> Attribute:
    """The attribute a parameter's value is kept in."""
    if isinstance(value, bool):
        raise TypeError("a parameter is an integer, a float or a string")
    if isinstance(value, int):
        return IntegerAttr(value, 64)
    if isinstance(value, float):
        return FloatAttr(value, f64)
    return StringAttr(value)


def param_value(attr: Attribute) -> int | float | str:
    """A parameter's value from its attribute."""
    if isinstance(attr, IntegerAttr) and attr.type == i64:
        return attr.value.data
    if isinstance(attr, FloatAttr):
        return float(attr.value.data)
    if isinstance(attr, StringAttr):
        return attr.data
    raise TypeError(f"unexpected parameter attribute {attr}")


def parse_params(parser: Parser, names: Iterable[str]) -> dict[str, int | float | str]:
    """`split(4) eps(1.0e-06) op("add")`: parameters from `names`, each at most once, in any order."""
    names = tuple(names)
    out: dict[str, int | float | str] = {}
    while (name := parser.parse_optional_keyword_in(names)) is not None:
        if name in out:
            parser.raise_error(f"parameter '{name}' given twice")
        parser.parse_punctuation("(")
        if (s := parse_optional_str(parser)) is not None:
            out[name] = s
        else:
            at = parser.pos
            number = parser.parse_number()
            if isinstance(number, int) and not _I64[0] <= number <= _I64[1]:
                parser.raise_error(f"parameter '{name}': {number} does not fit in i64", at, parser.pos)
            out[name] = number
        parser.parse_punctuation(")")
    return out


_I64 = (-(2**63), 2**63 - 1)


def parse_i64(parser: Parser, what: str) -> int:
    """An integer that fits in i64 (`what` it is, for the message)."""
    at = parser.pos
    value = parser.parse_integer(allow_boolean=False)
    if not _I64[0] <= value <= _I64[1]:
        parser.raise_error(f"{what} {value} does not fit in i64", at, parser.pos)
    return value


def print_params(printer: Printer, params: Mapping[str, int | float | str]) -> None:
    for name, value in params.items():
        if isinstance(value, str):
            printer.print_string(f" {name}(")
            printer.print_string_literal(value)
            printer.print_string(")")
        else:
            printer.print_string(f" {name}({number_literal(value)})")


def number_literal(value: int | float) -> str:
    """`value` as MLIR writes numbers: a float always with a point (`1.0e-05`, not `1e-05`)."""
    text = repr(value)
    if isinstance(value, float) and "." not in text and "e" in text:
        mantissa, exponent = text.split("e")
        text = f"{mantissa}.0e{exponent}"
    return text


def form_attrs(forms: Iterable[str]) -> ArrayAttr[FormAttr]:
    """`forms` (`plain`, `quant`) as the attribute they are kept in."""
    return ArrayAttr(FormAttr(Form(f)) for f in forms)
