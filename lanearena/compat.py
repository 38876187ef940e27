"""Where lanearena works around the pinned xDSL (0.75.0): imported by every dialect module, so it is in force
wherever the `lane` and `arena` dialects are registered (`api.context`, `xdsl-opt` through `universe`, the CLI).

- The MLIR lexer's string-literal pattern backtracks without end on a quote left open before a long line; it is
  replaced by one that matches a string one character at a time (linear time).
- The parser has no two-token lookahead: `next_op_result` steps over `%name` to see whether `=` follows (the
  next op's result, not an operand), through the parser's private token state.
- xDSL records no location for an op parsed in custom form; `dialects.located` finds it from the op's name
  (nothing to patch here, but it is the same version's behaviour: look again when the pin moves).

Each workaround applies only to the xDSL version it was written for: `test/unit/test_compat.py` fails when the
installed version is not `PINNED`, so that someone checks whether they are still needed."""

from __future__ import annotations

import re
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
