"""Located errors for the drivers: a parser that records where each op was written, a verifier that names the op at
fault by its location, and one `file:line:col: error: ...` line for any error."""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import FileLineColLoc, IntAttr, ModuleOp, StringAttr, UnknownLoc
from xdsl.ir import Block, BlockArgument, Operation, OpResult, Region, SSAValue
from xdsl.irdl import AttributeInvT
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.utils.exceptions import ParseError
from xdsl.utils.lexer import Span

from lanearena.dialects.located import where
from lanearena.memref.compat import accept_mlir_properties, float_splats_as_bytes

_LOCATED = re.compile(r"^(\S+?:\d+:\d+): (?:error: )?")


class LocatingParser(Parser):
    """xDSL's parser, giving each op it parses without a `loc(...)` of its own the place it starts (as MLIR does:
    its results, or its name where it has none), so that errors about it can say where it was written. The line
    starts of the input are indexed once (xDSL's own `Span.get_location` counts newlines from the top each time:
    quadratic over a file of many ops)."""

    def __init__(self, ctx: Context, text: str, name: str):
        super().__init__(ctx, text, name)
        self._text, self._name = text, name
        self._line_starts = [0, *(m.end() for m in re.finditer("\n", text))]
        self._first_use: dict[str, Span] = {}

    def location(self, at: int) -> FileLineColLoc:
        """Where character `at` of the input is."""
        line = bisect.bisect_right(self._line_starts, at)
        return FileLineColLoc(StringAttr(self._name), IntAttr(line), IntAttr(at - self._line_starts[line - 1] + 1))

    def resolve_operand(self, operand: UnresolvedOperand, type: AttributeInvT) -> SSAValue[AttributeInvT]:
        if operand.operand_name not in self.ssa_values:
            self._first_use.setdefault(operand.operand_name, operand.span)
        return super().resolve_operand(operand, type)

    def parse_module(self, allow_implicit_module: bool = True) -> ModuleOp:
        if allow_implicit_module and _BLANK.fullmatch(self._text):
            return ModuleOp([])  # an empty file (or one of comments) is an empty module, as for mlir-opt
        try:
            return super().parse_module(allow_implicit_module)
        except ParseError as e:
            # xDSL reports values never defined at the end of the input: name the first use of the first instead
            undefined = next(iter(self.forward_ssa_references), None)
            if not e.msg.startswith("values used but not defined") or undefined not in self._first_use:
                raise
            raise ParseError(self._first_use[undefined], f"use of undeclared value `%{undefined}`") from e

    def parse_operation(self) -> Operation:
        start = self.pos
        try:
            op = super().parse_operation()
        except ParseError:
            raise
        except Exception as e:  # some ops' parsers build and check the op as they go: the error is this op's
            raise ParseError(
                Span(start, start, self.lexer.input), (str(e).splitlines() or [type(e).__name__])[0]
            ) from e
        if isinstance(op.location, UnknownLoc):
            op.location = self.location(start)
        return op


_BLANK = re.compile(r"(?:\s|//[^\n]*)*")
"""Text with nothing but whitespace and comments."""

_QUOTES = re.compile(r'//[^\n]*|"(?:[^"\\\n]|\\.)*"|(")')
"""A comment, a string literal closed on its line, or (group 1) a quote that none closes: each alternative one
character at a time, so linear time."""


def unclosed_string(text: str) -> int | None:
    """Where a string literal that no quote closes on its line starts in `text`, if one does. xDSL's lexer takes
    time exponential in the rest of the line to find that out (`docs/upstream.md`), so the drivers ask first."""
    for m in _QUOTES.finditer(text):
        if m.group(1) is not None:
            return m.start()
    return None


def parse_located(
    ctx: Context, text: str | bytes, name: str, line_offset: int = 0, implicit_module: bool = True
) -> ModuleOp:
    """The module in `text` (read from `name`, starting at line `line_offset + 1`), every op located. The text is
    parsed after `line_offset` empty lines, so that every location found while parsing counts lines from the top of
    the file. What xDSL reads otherwise than MLIR (a float splat by its bits, properties its ops lack) is taken
    as MLIR means it (`memref.compat`)."""
    if isinstance(text, bytes):
        raw = text
        try:
            text = raw.decode()
        except UnicodeDecodeError as e:
            line = raw.count(b"\n", 0, e.start) + 1 + line_offset
            col = e.start - (raw.rfind(b"\n", 0, e.start) + 1) + 1
            raise LocatedDiagnostic(f"{name}:{line}:{col}: not UTF-8 text: byte 0x{raw[e.start]:02x}") from None
    text = "\n" * line_offset + float_splats_as_bytes(text)
    parser = LocatingParser(ctx, text, name)
    if (quote := unclosed_string(text)) is not None:
        loc = parser.location(quote)
        raise LocatedDiagnostic(f"{name}:{loc.line.data}:{loc.column.data}: unterminated string literal")
    module = parser.parse_module(implicit_module)
    accept_mlir_properties(module)
    return module


def verify_located(module: ModuleOp) -> None:
    """Verifies `module` op by op, innermost first (as xDSL's own verifier does: a step's located message before
    the module's symbol table names no line), then the dominance of every use in a function, raising a
    `LocatedDiagnostic` for the first op that fails."""
    for op in _innermost_first(module):
        try:
            op.verify(verify_nested_ops=False)
        except Exception as e:  # xDSL's verifiers raise VerifyException, ValueError or plain Exception
            message = str(e) or type(e).__name__
            if _LOCATED.match(message):
                raise LocatedDiagnostic(message) from e
            # xDSL's traits name the op quoted; lanearena's own ops name themselves (and the tensor at fault)
            ours = op.dialect_name() in ("lane", "arena")
            named = message.startswith(f"'{op.name}'") or (ours and message.startswith(op.name))
            prefix = "" if named else f"'{op.name}' op "
            raise LocatedDiagnostic(f"{where(op)}{prefix}{message}") from e
    verify_dominance(module)


def _innermost_first(op: Operation) -> Iterator[Operation]:
    """`op` and every op inside it, each after the ops it holds (in order otherwise)."""
    for region in op.regions:
        for block in region.blocks:
            for child in block.ops:
                yield from _innermost_first(child)
    yield op


def verify_dominance(module: ModuleOp) -> None:
    """Within every `func.func`, each operand is defined before its use: earlier in the same block, or in a block
    that holds the use (xDSL's verifier does not check this; MLIR's does). Uses across the blocks of one region
    (unstructured control flow) are not checked."""
    order: dict[Block, dict[Operation, int]] = {}
    for function in [op for op in module.walk() if isinstance(op, func.FuncOp)]:
        for op in function.walk():
            for i, operand in enumerate(op.operands):
                block = operand.block if isinstance(operand, BlockArgument) else operand.owner.parent_block()
                if block is None:
                    continue
                user: Operation | None = op
                while user is not None and user.parent_block() is not block:
                    user = user.parent_op()
                if user is None:
                    if _region_holds(block.parent, op):
                        continue  # another block of the same region: a question for CFG dominance
                    message = "is used outside the region that defines it"
                elif isinstance(operand, OpResult):
                    if block not in order:
                        order[block] = {o: k for k, o in enumerate(block.ops)}
                    at = order[block]
                    if at[operand.owner] < at[user]:
                        continue
                    message = "does not dominate this use"
                else:
                    continue  # a block argument dominates its whole block
                name = f" (%{operand.name_hint})" if operand.name_hint else ""
                raise LocatedDiagnostic(f"{where(op)}'{op.name}' op operand #{i}{name} {message}")


def _region_holds(region: Region | None, op: Operation) -> bool:
    """Whether `op` is inside `region`, at any depth."""
    inside: Operation | None = op
    while inside is not None:
        if inside.parent_region() is region:
            return True
        inside = inside.parent_op()
    return False


class LocatedDiagnostic(Exception):
    """An error whose message starts with the location it is about (or with nothing where it has none)."""


def located_message(error: BaseException, fallback: str) -> tuple[str, str]:
    """`error`'s location (`file:line:col`, or `fallback` where it has none) and its message's first line."""
    if isinstance(error, ParseError):
        loc = error.span.get_location()
        message = error.msg.strip("\n").split("\n")[0]
        if message[:1].isspace():  # xDSL gives some errors only their context (" in block definition")
            message = f"unexpected {repr(error.span.text) if error.span.text else 'end of file'}{message}"
        return f"{loc.file}:{loc.line}:{loc.col}", message
    message = " ".join(str(error).split("\n")[0:1]) or type(error).__name__
    located = _LOCATED.match(message)
    if located:
        return located.group(1), message[located.end() :]
    return fallback, message


def error_line(error: BaseException, fallback: str) -> str:
    """`error` as one line `file:line:col: error: message` (`fallback: error: message` where it has no location)."""
    at, message = located_message(error, fallback)
    return f"{at}: error: {message}"


def error_lines(error: BaseException, fallback: str) -> list[str]:
    """`error` as `file:line:col: error: message` lines: its own, or, for a pass that lists several located problems
    under a heading (`lane-arena-verify failed:`), one for each, after the heading."""
    if not isinstance(error, ParseError):
        head, *rest = str(error).split("\n")
        problems = [p.strip() for p in rest if _LOCATED.match(p.strip())]
        if problems:
            return [
                error_line(Exception(f"{p[: m.end()]}{head.rstrip(':')}: {p[m.end() :]}"), fallback)
                for p in problems
                if (m := _LOCATED.match(p))
            ]
    return [error_line(error, fallback)]
