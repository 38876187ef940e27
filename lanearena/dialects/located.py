"""Where an op was written, for messages: the location our drivers' parser records on every op it parses
(`tools.diagnose.LocatingParser`)."""

from __future__ import annotations

from xdsl.dialects.builtin import FileLineColLoc
from xdsl.ir import Operation


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
