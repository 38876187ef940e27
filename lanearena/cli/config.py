"""The decoder config a subcommand runs on (`build`, `run`, `profile`): its `--set` flag, and the config read with
it, a bad one a `UserError`."""

from __future__ import annotations

import argparse

from lanearena.errors import UserError
from lanearena.frontend import ConfigError, DecoderConfig, load
from lanearena.frontend.configs import model_directory
from lanearena.frontend.model_files import ConfigJson


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


def config_of(name: str | ConfigJson, settings: list[str], notes: list[str] | None = None) -> DecoderConfig:
    """The config `name` names (a shipped config, a JSON file, a model directory or its config.json read already,
    - for standard input) with `settings`; the keys it ignores added to `notes`."""
    try:
        return load(name, settings, notes)
    except ConfigError as e:
        raise UserError(str(e)) from None


def config_json_of(name: str) -> ConfigJson | None:
    """The config.json of the model directory `name` names, read once for all its readers; None where `name` names
    none."""
    try:
        return model_directory(name)
    except ConfigError as e:
        raise UserError(str(e)) from None
