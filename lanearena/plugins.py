"""Kinds of one's own: a model compiler's dialect of launch kinds, found through the `lanearena.kinds` entry-point
group (`docs/adding-a-kind.md`), so that `lanearena`, `lanearena-opt`, `xdsl-opt` (through lanearena's
`xdsl.universe`) and the lowering all know it. An entry point is named as its dialect and names the `Dialect`
object; loading it imports the module that defines the kind's op classes, which registers their launchers and twins
(`@lowers`, `@kernel`) and their PTX where it has any."""

from __future__ import annotations

from importlib.metadata import EntryPoint, entry_points

from xdsl.ir import Dialect

from lanearena.errors import UserError

GROUP = "lanearena.kinds"


def kind_entry_points() -> list[EntryPoint]:
    """The entry points of the group, by name (one a dialect)."""
    return sorted(entry_points(group=GROUP), key=lambda ep: ep.name)


def load_dialect(ep: EntryPoint) -> Dialect:
    """The dialect entry point `ep` names; a `UserError` naming the entry point where it does not load, is no
    `Dialect`, or is named otherwise."""
    try:
        dialect = ep.load()
    except Exception as e:  # the model compiler's module, whatever it raises
        raise UserError(f"entry point '{ep.name} = {ep.value}' ({GROUP}) does not load: {type(e).__name__}: {e}") from e
    if not isinstance(dialect, Dialect):
        raise UserError(f"entry point '{ep.name} = {ep.value}' ({GROUP}) names {type(dialect).__name__}, not a Dialect")
    if dialect.name != ep.name:
        raise UserError(f"entry point '{ep.name} = {ep.value}' ({GROUP}) names dialect '{dialect.name}': name it so")
    return dialect


def outside_dialects() -> list[Dialect]:
    """Every dialect of the group, loaded."""
    return [load_dialect(ep) for ep in kind_entry_points()]
