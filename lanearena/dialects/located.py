"""Where a `lane` or `arena` op was written, kept for the verifiers' messages (`file:line:col`)."""

from __future__ import annotations

import functools
import types
from typing import TypeVar

from xdsl.dialects.builtin import (
    FileLineColLoc,
    IntAttr,
    StringAttr,
)
from xdsl.ir import (
    Operation,
)
from xdsl.irdl import (
    IRDLOperation,
)
from xdsl.parser import Parser
from xdsl.utils.exceptions import VerifyException

from lanearena.compat import op_location

OpT = TypeVar("OpT", bound=Operation)
IRDLOpT = TypeVar("IRDLOpT", bound=IRDLOperation)

# --- Where an op was written, for the verifiers' messages ------------------------------------------------------


def source_location(parser: Parser, name: str) -> FileLineColLoc:
    """Where op `name`, whose custom form `parser` is about to parse, was written: the location of its name (xDSL
    records none for an op in custom form), so that a verifier's message names the file, line and column."""
    file, line, col = op_location(parser, name)
    return FileLineColLoc(StringAttr(file), IntAttr(line), IntAttr(col))


def located(op: OpT, at: FileLineColLoc) -> OpT:
    """`op`, with `at` as its source location."""
    op.location = at
    return op


def where(op: Operation) -> str:
    """`file:line:col: ` where `op` was parsed from (or the op it is in, for an op in a declarative format), or
    nothing for an op that was built."""
    at: Operation | None = op
    while at is not None:
        loc = at.location
        if isinstance(loc, FileLineColLoc):
            return f"{loc.filename.data}:{loc.line.data}:{loc.column.data}: "
        at = at.parent_op()
    return ""


class LocatedError(VerifyException):
    """A verifier's error whose message already starts with the location of the op at fault."""


def error_at(op: Operation, message: str) -> LocatedError:
    """The error `message` about `op`, at `op`'s location."""
    return LocatedError(where(op) + message)


def located_op(cls: type[IRDLOpT]) -> type[IRDLOpT]:
    """`cls`, an op definition, whose verifier's errors (its own checks and IRDL's) start with where the op was
    written; an op in a declarative format also records that when parsed."""
    verify = cls.verify_

    @functools.wraps(verify)
    def verify_(self: Operation) -> None:
        try:
            verify(self)
        except LocatedError:
            raise
        except VerifyException as e:
            raise error_at(self, str(e)) from e

    # Replaces the verifier that irdl_op_definition installed on the class, as it installed it.
    cls.verify_ = verify_  # type: ignore[method-assign]  # mypy allows no assignment to a method
    if cls.get_irdl_definition().assembly_format is not None:
        bound = cls.parse
        assert isinstance(bound, types.MethodType)  # a classmethod read on its class: bound to it
        parse = bound.__func__  # unbound, to parse as the class it is called on

        def parse_located(cls: type[IRDLOperation], parser: Parser) -> IRDLOperation:
            at, start = source_location(parser, cls.name), parser.pos
            try:
                op = parse(cls, parser)
            except VerifyException as e:  # the format's own type constraints, checked while parsing
                parser.raise_error(f"{cls.name}: {e}", start, parser.pos)
            return located(op, at)

        cls.parse = classmethod(parse_located)  # type: ignore[method-assign, assignment]  # as verify_
    return cls
