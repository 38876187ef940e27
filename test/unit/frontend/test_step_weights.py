"""`step_weights`, the weights of a config's step as plain data (what `lanearena run` checks a checkpoint against
before any step is built), is the decoder builder's: the weights of the step `decoder_step` builds, names and
shapes, for every shipped config and every family's tiny model, as a decode row and as a prefill chunk, with the
decoder's own fusions and the lane-fuse pass on and off."""

from __future__ import annotations

import dataclasses

import pytest

from lanearena.frontend import CONFIGS, decoder_step, load
from lanearena.frontend.step_weights import step_weights
from lanearena.model import Role
from lanearena.passes.convert import step_of, steps

from ..support.checkpoints import FAMILY_CHANGES, tiny_config

VARIANTS = {
    "as given": {},
    "prefill": {"rows": 4},
    "fused": {"fuse": True},
    "unfused": {"lane_fuse": False},
}
"""Changes that change how the decoder builds a step: a chunk's rows (q, k and v projected each alone), the first
norm built into the gather and a mixture's add and next norm into the mixture, the lane-fuse pass off."""


def _built(c) -> dict[str, tuple[int, ...]]:
    """The weights of the step `decoder_step` builds for `c`, read back from its IR."""
    (op,) = steps(decoder_step(c))
    return {t.name: t.shape for t in step_of(op)[0].tensors.values() if t.role is Role.WEIGHT}


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("name", CONFIGS)
def test_a_shipped_configs_weights_are_its_steps(name, variant):
    c = dataclasses.replace(CONFIGS[name], **VARIANTS[variant])
    assert step_weights(c) == _built(c)


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("model_type", FAMILY_CHANGES)
def test_a_familys_weights_are_its_steps(model_type, variant, tmp_path):
    tiny_config(model_type, **FAMILY_CHANGES[model_type]).save_pretrained(tmp_path)
    c = dataclasses.replace(load(str(tmp_path)), **VARIANTS[variant])
    assert step_weights(c) == _built(c)
