"""Where an op was written, for messages: the location our drivers' parser records on every op it parses
(`tools.diagnose.LocatingParser`), and a verifier's error that starts with it."""

from __future__ import annotations

from xdsl.dialects.builtin import FileLineColLoc
from xdsl.ir import Operation
from xdsl.utils.exceptions import VerifyException


def where(op: Operation) -> str:
    """`file:line:col: ` where `op` was parsed from (or the op it is in, where it has no location of its own), or
    nothing for an op that was built or parsed by a driver that records no locations."""
    at: Operation | None = op
    while at is not None:
        loc = at.location
        if isinstance(loc, FileLineColLoc):
            return f"{loc.filename.data}:{loc.line.data}:{loc.column.data}: "
        at = at.parent_op()
    return ""


def located(op: Operation, message: str) -> VerifyException:
    """The error `message` about `op`, which a verifier of the op holding it found: it starts with `op`'s location
    where the parser recorded one, so that the driver names the op at fault rather than the one verified."""
    return VerifyException(where(op) + message)
