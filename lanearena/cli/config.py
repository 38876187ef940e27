"""The decoder config a subcommand runs on (`build`, `run`, `profile`): its `--set` flag, and the config read with
it, a bad one a `UserError`."""

from __future__ import annotations

import argparse

from lanearena.errors import UserError
from lanearena.frontend import ConfigError, DecoderConfig, load


def add_settings(p: argparse.ArgumentParser, example: str) -> None:
    """Adds `--set KEY=VALUE` (repeatable) to `p`; `example` is shown in its help."""
    p.add_argument(
        "--set",
        dest="settings",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help=f"change one key of the config (repeatable), e.g. --set {example}",
    )


def config_of(name: str, settings: list[str], notes: list[str] | None = None) -> DecoderConfig:
    """The config `name` names (a shipped config, a JSON file, a model directory, - for standard input) with
    `settings`; the keys it ignores added to `notes`."""
    try:
        return load(name, settings, notes)
    except ConfigError as e:
        raise UserError(str(e)) from None
