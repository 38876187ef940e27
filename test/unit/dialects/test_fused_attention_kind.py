"""The fused attention kinds' verifiers: each shape check's located message, on IR a frontend would not build."""

from __future__ import annotations

import pytest

from lanearena import api
from lanearena.errors import UserError

STEP = """\
lane.step @s numerics({numerics}) {{
  %pos = lane.input "pos" : !lane.tensor<{rows}xi32>
  %q = lane.input "q" : !lane.tensor<{rows}x128xf32>
  %k = lane.input "k" : !lane.tensor<{rows}x64xf32>
  %v = lane.input "v" : !lane.tensor<{rows}x64xf32>
  %qg = lane.weight "qg" : !lane.tensor<{gain}xf32>
  %kg = lane.weight "kg" : !lane.tensor<32xf32>
  %kc = lane.state "kc" : !lane.tensor<16x64xf32>
  %vc = lane.state "vc" : !lane.tensor<16x64xf32>
  %a = lane.tensor "a" : !lane.tensor<{rows}x128xf32>
  lane.norm_rope_attention %q, %k, %v, %pos, %qg, %kg -> %kc, %vc, %a heads({heads}) kv_heads(2) {extra}
  lane.output %a : !lane.tensor<{rows}x128xf32>
}}
"""


def step(numerics="f32", rows=1, gain=32, heads=4, extra="") -> str:
    return STEP.format(numerics=numerics, rows=rows, gain=gain, heads=heads, extra=extra)


def test_a_well_formed_one_parses():
    api.parse(step())
    api.parse(step(rows=3))
    api.parse(step("int8x2", extra="two_words"))


@pytest.mark.parametrize(
    "text, message",
    [
        (
            step(rows=2).replace("<2x64xf32>", "<64xf32>"),
            "k 'k' holds 64 values, but 2 rows of 2 kv heads of 32 make 128",
        ),
        (step(extra="two_words"), "a cache in two words is int8x2 numerics' only"),
        (step(gain=16), "q_gain 'qg' holds 16 values, but heads of 32 make 32"),
        (step(heads=3), "kv_heads 2 do not divide heads 3"),
        (step(extra="rotary(5)"), "rotary 5 is not an even count of at most a head's 32 values"),
        (step(extra="scaling(llama3) factor(8.0)"), "scaling llama3 needs the original length"),
    ],
)
def test_each_check_says_what_is_wrong_where(text, message):
    with pytest.raises(UserError) as e:
        api.parse(text, "step.mlir")
    assert "step.mlir:11:3: lane.norm_rope_attention: " + message in str(e.value)
