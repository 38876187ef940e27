"""The `lane` and `arena` verifiers beyond what a FileCheck test shows (test/filecheck/diagnostics holds one test a
check): where their messages point, the checks only built IR can reach, and that every IR the frontends build
passes them."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import IntAttr, StringAttr
from xdsl.utils.exceptions import VerifyException

from lanearena import api
from lanearena.dialects import lane
from lanearena.errors import UserError
from lanearena.frontend.builder import StepBuilder
from lanearena.frontend.configs import CONFIGS
from lanearena.frontend.decoder import decoder_step
from lanearena.options import PlaceOptions
from lanearena.passes.convert import step_of, steps

from ..support.from_model import module_of

STEP = """\
lane.step @s numerics(f32) {
  %x = lane.input "x" : !lane.tensor<64xf32>
  %g = lane.weight "g" : !lane.tensor<48xf32>
  %h = lane.tensor "h" : !lane.tensor<64xf32>
  lane.norm %x, %g -> %h
  lane.output
}
"""


def test_a_verifier_error_names_the_file_line_and_column_of_the_op():
    with pytest.raises(UserError) as e:
        api.parse(STEP, "step.mlir")
    message = "step.mlir:5:3: lane.norm: gain 'g' of 48 values does not divide x 'x' of 64 values into rows"
    assert message in str(e.value)


NEVER_WRITTEN = """\
lane.step @s numerics(f32) {
  %x = lane.input "x" : !lane.tensor<64xf32>
  %h = lane.tensor "h" : !lane.tensor<64xf32>
  %y = lane.tensor "y" : !lane.tensor<64xf32>
  lane.launch "use"(%h) -> (%y whole)
  lane.output %y : !lane.tensor<64xf32>
}
"""


def test_an_error_the_step_finds_points_at_the_launch():
    with pytest.raises(UserError, match=r"step\.mlir:5:3: lane\.launch reads the plain form of 'h', which no launch"):
        api.parse(NEVER_WRITTEN, "step.mlir")


def test_a_read_before_a_write_later_in_the_step_is_legal():
    later = NEVER_WRITTEN.replace("  lane.output", '  lane.launch "fill"(%x) -> (%h whole)\n  lane.output')
    api.parse(later)


def test_built_ops_are_checked_as_they_are_added_without_a_location():
    b = StepBuilder("s")
    x, g, h = b.input("x", 64), b.weight("g", 48), b.tensor("h", 64)
    with pytest.raises(ValueError) as e:
        b.launch("norm", [x, g], [h])
    assert str(e.value) == "launch #0: lane.norm: gain 'g' of 48 values does not divide x 'x' of 64 values into rows"


@pytest.mark.parametrize(
    "tag, elem, counter, message",
    [
        ("", "f32", 0, "scratch needs a tag"),
        ("s", "f16", 0, "scratch 's': elements are f32, i32 or i8, not f16"),
        ("s", "i32", 2, "scratch 's': counter is 0 or 1, not 2"),
    ],
)
def test_scratch_only_built_ir_can_spell(tag, elem, counter, message):
    """The text form has no way to write these: `counter` stands for an i32 counter."""
    with pytest.raises(VerifyException, match=message):
        lane.ScratchAttr(StringAttr(tag), StringAttr(elem), IntAttr(4), IntAttr(counter))


def test_a_step_with_no_ops_prints_parses_and_places():
    module = StepBuilder("empty").module()
    text = str(module)
    assert str(api.parse(text)) == text
    placed = str(api.place(module, PlaceOptions("greedy")))
    assert "arena.alloc bytes(0)" in placed and str(api.parse(placed)) == placed


@pytest.mark.parametrize("name", list(CONFIGS))
def test_every_shipped_config_verifies_and_is_the_plain_step_it_builds(name):
    module = decoder_step(CONFIGS[name])
    module.verify()
    step, _ = step_of(steps(module)[0])
    again, _ = step_of(steps(module_of(step))[0])
    assert again.tensors == step.tensors and again.outputs == step.outputs and again.numerics is step.numerics
    for a, b in zip(step.launches, again.launches, strict=True):
        assert (a.kind, a.ins, a.outs, a.params, a.reads, a.writes, a.scratch) == (
            b.kind,
            b.ins,
            b.outs,
            b.params,
            b.reads,
            b.writes,
            b.scratch,
        )
