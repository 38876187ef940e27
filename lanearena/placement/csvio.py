"""MiniMalloc's CSV: one buffer a row, `id,lower,upper,size` (half-open lives), and back with an `offset` column."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from pathlib import Path

from lanearena.errors import UserError
from lanearena.files import read_text
from lanearena.placement.problem import Buffer

COLUMNS = ("id", "lower", "upper", "size")


def read_buffers(path: str | Path) -> list[Buffer]:
    """The buffers in CSV file `path`; a `UserError` naming the file and line for anything malformed."""
    return parse_buffers(read_text(path, "CSV file"), str(path))


def parse_buffers(text: str, name: str = "<input>") -> list[Buffer]:
    """The buffers in CSV `text` (see `read_buffers`)."""
    rows = csv.reader(io.StringIO(text))
    header = next(rows, None)
    if header is None or not any(h.strip() for h in header):
        raise UserError(f"{name}: empty file: expected a header {','.join(COLUMNS)}")
    header = [h.strip() for h in header]
    missing = [c for c in COLUMNS if c not in header]
    if missing:
        raise UserError(
            f"{name}:1: missing column{'s' if len(missing) > 1 else ''} {', '.join(missing)} "
            f"(the header is {','.join(header)})"
        )
    at = {c: header.index(c) for c in COLUMNS}
    buffers: list[Buffer] = []
    seen: dict[str, int] = {}  # id -> the line that gave it
    for line, row in enumerate(rows, start=2):
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != len(header):
            raise UserError(f"{name}:{line}: {len(row)} fields, the header has {len(header)}")
        values = {}
        for c in COLUMNS[1:]:
            cell = row[at[c]].strip()
            try:
                values[c] = int(cell)
            except ValueError:
                raise UserError(f"{name}:{line}: {c} '{cell}' is not an integer") from None
        ident = row[at["id"]].strip()
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
        buffers.append(Buffer(ident, values["lower"], values["upper"], values["size"]))
    if not buffers:
        raise UserError(f"{name}: no buffers after the header")
    return buffers


def solution_text(buffers: Sequence[Buffer], offsets: Sequence[int]) -> str:
    """The buffers as CSV with their offsets, in the same order."""
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow((*COLUMNS, "offset"))
    for b, o in zip(buffers, offsets, strict=True):
        w.writerow((b.id, b.lower, b.upper, b.size, o))
    return out.getvalue()
