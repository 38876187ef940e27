"""Every entry of the lowering verifies the placement first, as `lane-arena-verify` does: a wrong placement is a
located error, never a module that computes garbage."""

from __future__ import annotations

from pathlib import Path

import pytest

from lanearena import api
from lanearena.errors import UserError
from lanearena.lowering.codegen.target import lower_module

CORRUPT = Path(__file__).parents[2] / "filecheck" / "lower" / "corrupt.mlir"
"""examples/decode.mlir placed, with q's plain array moved over the scratch `fp` that is live while q is written."""


def test_a_placement_that_lane_arena_verify_refuses_does_not_lower():
    module = api.parse_file(CORRUPT)
    with pytest.raises(UserError) as refused:
        api.verify(module)
    with pytest.raises(UserError) as lowered:
        lower_module(module)
    assert str(lowered.value) == str(refused.value)
    line = next(i for i, text in enumerate(CORRUPT.read_text().splitlines(), 1) if '%q = arena.tensor "q"' in text)
    assert f"corrupt.mlir:{line}:5: lane.step @decode: arena.scratch launch(1) 'fp'" in str(lowered.value)


def test_the_same_placement_put_right_lowers():
    text = CORRUPT.read_text().replace("plain(8192) quant(0)", "plain(65536) quant(0)")
    assert "step='decode'," in lower_module(api.parse(text, "decode.mlir"))
