"""Where lanearena works around the pinned xDSL (0.75.0): imported by every dialect module, so it is in force
wherever the `lane` and `arena` dialects are registered (`api.context`, `xdsl-opt` through `universe`, the CLI).

- The MLIR lexer's string-literal pattern backtracks without end on a quote left open before a long line; it is
  replaced by one that matches a string one character at a time (linear time).
- The parser has no two-token lookahead: `next_op_result` steps over `%name` to see whether `=` follows (the
  next op's result, not an operand), through the parser's private token state.
- xDSL records no location for an op parsed in custom form; `op_location` finds it from the op's name. xDSL's own
  `Span.get_location` counts the newlines from the start of the file each time (quadratic over a file of many
  ops), so the line starts of an input are indexed once.

Each workaround applies only to the xDSL version it was written for: `test/unit/test_compat.py` fails when the
installed version is not `PINNED`, so that someone checks whether they are still needed."""

from __future__ import annotations

import re
from bisect import bisect_right
from importlib.metadata import version

from xdsl.parser import Parser
from xdsl.utils.mlir_lexer import MLIRLexer, MLIRTokenKind

PINNED = "0.75.0"
"""The xDSL version these workarounds were written for (pyproject.toml pins it)."""

XDSL = version("xdsl")

_BACKTRACKING_STRING = r'"(?:[^"\\\n\v\f]+|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*"'
"""xDSL 0.75's string-literal pattern: its nested repetition (`(?:[^"...]+|...)*`) tries every way to cut a run of
characters when no closing quote follows on the line, so a quote left open before a long line never returns."""

_LINEAR_STRING = r'"(?:[^"\\\n\v\f]|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*"'
"""The same strings, one character at a time: a single way to match, so linear time."""


def apply() -> bool:
    """Applies the workarounds where the installed xDSL is the pinned one; whether they are in force."""
    if XDSL != PINNED:
        return False
    if MLIRLexer._unescaped_characters_regex.pattern == _BACKTRACKING_STRING:
        MLIRLexer._unescaped_characters_regex = re.compile(_LINEAR_STRING)
    return MLIRLexer._unescaped_characters_regex.pattern == _LINEAR_STRING


ACTIVE = apply()


def next_op_result(parser: Parser) -> bool:
    """Whether the parser stands at the result of the next op (`%s = ...`) rather than at an operand: an op whose
    operand list may end empty (a launch writing nothing) is followed by one. xDSL's parser has no two-token
    lookahead, so this steps over the name and back."""
    if parser._current_token.kind != MLIRTokenKind.PERCENT_IDENT:
        return False
    at = parser.pos
    parser._consume_token()
    result = parser._current_token.kind == MLIRTokenKind.EQUAL
    parser._resume_from(at)
    return result


_line_starts: tuple[object, list[int]] | None = None
"""The input last located in, and where each of its lines starts."""


def op_location(parser: Parser, name: str) -> tuple[str, int, int]:
    """Where op `name`, whose custom form `parser` is about to parse, was written: the file, line and column of
    its name (or of the parser's position, where the name is not before it)."""
    global _line_starts
    start = parser.pos
    source = parser.lexer.input
    content = source.content
    at = content.rfind(name.encode() if isinstance(content, bytes) else name, 0, start)
    at = at if at >= 0 else start
    if _line_starts is None or _line_starts[0] is not content:
        newline = re.compile(b"\n" if isinstance(content, bytes) else "\n")
        _line_starts = (content, [0, *(m.end() for m in newline.finditer(content))])
    starts = _line_starts[1]
    line = bisect_right(starts, at)
    return source.name, line, at - starts[line - 1] + 1
