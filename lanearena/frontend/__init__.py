"""Builders of `lane.step`s: `StepBuilder` for any step, `decoder_step` for a decoder's from a `DecoderConfig`, and
the shipped configs."""

from lanearena.frontend.builder import StepBuilder
from lanearena.frontend.configs import CONFIGS, load
from lanearena.frontend.decoder import decoder_step
from lanearena.frontend.decoder_config import ConfigError, DecoderConfig

__all__ = ["CONFIGS", "ConfigError", "DecoderConfig", "StepBuilder", "decoder_step", "load"]
