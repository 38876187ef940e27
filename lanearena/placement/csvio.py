"""MiniMalloc's CSV: one buffer a row, `id,lower,upper,size` (half-open lives), and back with an `offset` column.

The csv module's C reader splits the rows; the columns are then converted and checked whole (comprehensions,
`min`, a set of ids), and only where that finds a fault are the rows walked one by one to name the first faulty
line: 100k rows in about 0.2 s where the walk over every cell takes 2 s."""

from __future__ import annotations

import csv
import gc
import io
from collections.abc import Sequence
from pathlib import Path

from lanearena.errors import UserError
from lanearena.files import read_text
from lanearena.placement.limit import LIMIT
from lanearena.placement.problem import Buffer

COLUMNS = ("id", "lower", "upper", "size")


def read_buffers(path: str | Path) -> list[Buffer]:
    """The buffers in CSV file `path`; a `UserError` naming the file and line for anything malformed."""
    return parse_buffers(read_text(path, "CSV file"), str(path))


def parse_buffers(text: str, name: str = "<input>") -> list[Buffer]:
    """The buffers in CSV `text` (see `read_buffers`)."""
    # The rows make millions of objects and no cycles: the cyclic collector, run every few hundred allocations, would
    # walk them all again and again (1M rows: 10 s to 4.5 s without it).
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _parse(text, name)
    finally:
        if collecting:
            gc.enable()


def _parse(text: str, name: str) -> list[Buffer]:
    rows = list(csv.reader(io.StringIO(text)))
    if not rows or not any(h.strip() for h in rows[0]):
        raise UserError(f"{name}: empty file: expected a header {','.join(COLUMNS)}")
    header = [h.strip() for h in rows[0]]
    missing = [c for c in COLUMNS if c not in header]
    if missing:
        raise UserError(
            f"{name}:1: missing column{'s' if len(missing) > 1 else ''} {', '.join(missing)} "
            f"(the header is {','.join(header)})"
        )
    at = [header.index(c) for c in COLUMNS]
    body = [row for row in rows[1:] if "".join(row).strip()]  # blank rows are skipped
    buffers = _columns(body, len(header), at)
    if buffers is None:  # a fault: name the first faulty line
        _walk(rows, len(header), at, name)
        raise AssertionError("the walk over the rows raises where the columns fail")
    if not buffers:
        raise UserError(f"{name}: no buffers after the header")
    return buffers


def _columns(body: list[list[str]], width: int, at: list[int]) -> list[Buffer] | None:
    """The buffers of `body` converted and checked column by column, or None where any row is faulty."""
    if any(len(row) != width for row in body):
        return None
    ids = [row[at[0]].strip() for row in body]
    try:
        lowers, uppers, sizes = ([int(row[k]) for row in body] for k in at[1:])
    except ValueError:
        return None
    if body and (
        len(set(ids)) != len(ids)
        or min(sizes) <= 0
        or min(lowers) < 0
        or max(max(uppers), max(sizes)) >= LIMIT
        or any(upper <= lower for lower, upper in zip(lowers, uppers, strict=True))
    ):
        return None
    return list(map(Buffer, ids, lowers, uppers, sizes))


def _walk(rows: list[list[str]], width: int, at: list[int], name: str) -> None:
    """A `UserError` for the first faulty row, as one walk over them all finds it."""
    seen: dict[str, int] = {}  # id -> the line that gave it
    for line, row in enumerate(rows[1:], start=2):
        if not "".join(row).strip():
            continue
        if len(row) != width:
            raise UserError(f"{name}:{line}: {len(row)} fields, the header has {width}")
        values = {}
        for c, k in zip(COLUMNS[1:], at[1:], strict=True):
            cell = row[k].strip()
            try:
                values[c] = int(cell)
            except ValueError:
                raise UserError(f"{name}:{line}: {c} '{cell}' is not an integer") from None
            if values[c] >= LIMIT:
                raise UserError(f"{name}:{line}: {c} {values[c]} is past 2^62, the most a placement counts")
        ident = row[at[0]].strip()
        if ident in seen:
            raise UserError(f"{name}:{line}: id '{ident}' already given on line {seen[ident]}")
        seen[ident] = line
        if values["size"] <= 0:
            raise UserError(f"{name}:{line}: size {values['size']} of '{ident}' is not positive")
        if values["upper"] <= values["lower"]:
            raise UserError(
                f"{name}:{line}: '{ident}' lives over [{values['lower']}, {values['upper']}): upper must be above lower"
            )
        if values["lower"] < 0:
            raise UserError(f"{name}:{line}: lower {values['lower']} of '{ident}' is negative")


def solution_text(buffers: Sequence[Buffer], offsets: Sequence[int]) -> str:
    """The buffers as CSV with their offsets, in the same order."""
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow((*COLUMNS, "offset"))
    w.writerows(
        zip(
            [b.id for b in buffers],
            [b.lower for b in buffers],
            [b.upper for b in buffers],
            [b.size for b in buffers],
            offsets,
            strict=True,
        )
    )
    return out.getvalue()
