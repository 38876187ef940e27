"""The step builder: the ops it makes, the plain step they are, and the errors it raises at the call at fault."""

from __future__ import annotations

import pytest

from lanearena.dialects import lane
from lanearena.frontend.builder import StepBuilder
from lanearena.model import Form, Numerics, Other, Part, Role, Scratch, Touch, Whole, Write
from lanearena.passes.convert import step_of, steps


def _example() -> StepBuilder:
    b = StepBuilder("decode", numerics=Numerics.INT8)
    x = b.input("x", (2048,))
    g = b.weight("g", 2048)
    wq = b.weight("wq", (4096, 2048), "i8")
    h = b.tensor("h", (2048,), forms=("plain", "quant"))
    q = b.tensor("q", (4096,))
    pos = b.input("pos", (1,), "i32")
    qk = b.view("qk", q, offset=2048, shape=(2048,))
    b.launch("norm", ins=[x, g], outs=[(h, ("plain", "quant"))], eps=1e-5)
    b.launch("gemv", ins=[(h, "quant"), wq], outs=[q], split=4)
    b.launch("rope", ins=[pos], outs=[qk], heads=16, theta=10000)
    b.output(q)
    return b


def test_builds_the_step_it_is_told():
    module = _example().module()
    text = str(module)
    assert '%qk = lane.view "qk" %q[2048] : !lane.tensor<2048xf32>' in text
    assert "lane.norm %x, %g -> %h(plain, quant) eps(1.000000e-05)" in text
    assert "lane.gemv %h(quant), %wq -> %q split(4)" in text
    assert "lane.rope %pos -> %qk heads(16) theta(1.000000e+04)" in text  # an integer given for a float parameter
    assert "lane.output %q : !lane.tensor<4096xf32>" in text
    step, _ = step_of(steps(module)[0])
    assert step.numerics is Numerics.INT8
    assert [t.role for t in step.tensors.values()] == [
        Role.INPUT,
        Role.WEIGHT,
        Role.WEIGHT,
        Role.COMPUTED,
        Role.COMPUTED,
        Role.INPUT,
        Role.COMPUTED,
    ]
    assert (step.tensors["qk"].view_of, step.tensors["qk"].view_offset) == ("q", 2048)
    assert step.outputs == {"q"}
    norm, gemv, rope = step.launches
    assert norm.writes == (Write("h", Form.PLAIN), Write("h", Form.QUANT))
    assert gemv.reads == (Touch("h", Form.QUANT), Touch("wq", Form.PLAIN))
    assert [s.tag for s in gemv.scratch] == ["fp", "fq"]
    assert rope.reads == (Touch("pos", Form.PLAIN), Touch("qk", Form.PLAIN))


def test_generic_launch_spells_out_writes_and_scratch():
    b = StepBuilder("s", "int8x2")
    x = b.input("x", 64)
    y = b.tensor("y", (2, 64), forms=("plain", "quant"))
    b.generic(
        "mine",
        ins=[(x, Form.PLAIN)],
        outs=[(y, "plain", Part(64, 0, 32)), (y, "plain", Part(64, 32, 32)), (y, "quant", "other")],
        scratch=[Scratch("t", "f32", 512), Scratch("n", "i32", 4, counter=True)],
    )
    b.generic("plain_whole", ins=[], outs=[y])
    module = b.module()
    assert 'lane.launch "mine"(%x) -> (%y part<64, 0, 32>, %y part<64, 32, 32>, %y(quant) other) asks' in str(module)
    step, _ = step_of(steps(module)[0])
    mine, whole = step.launches
    assert mine.kind == "mine"
    assert mine.writes == (
        Write("y", Form.PLAIN, Part(64, 0, 32)),
        Write("y", Form.PLAIN, Part(64, 32, 32)),
        Write("y", Form.QUANT, Other()),
    )
    assert mine.scratch == (Scratch("t", "f32", 512), Scratch("n", "i32", 4, counter=True))
    assert whole.writes == (Write("y", Form.PLAIN, Whole()),)


def test_values_carry_their_names_into_the_text():
    b = StepBuilder("s")
    b.input("l0.k_cache", 4)
    b.input("9lives", 4)
    b.input("a b", 4)
    text = str(b.module())
    assert '%l0.k_cache = lane.input "l0.k_cache"' in text
    assert '%t9lives = lane.input "9lives"' in text
    assert '%a_b = lane.input "a b"' in text


def _builder():
    b = StepBuilder("s", "int8")
    return b, b.input("x", 64), b.weight("g", 64), b.tensor("h", 64)


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda b, x, g, h: b.input("x", 3), "tensor name 'x' is already defined"),
        (lambda b, x, g, h: b.tensor("", 3), "a tensor needs a name"),
        (lambda b, x, g, h: b.tensor("t", (0, 2)), "a shape is one or more positive integers"),
        (lambda b, x, g, h: b.tensor("t", 32, "f16"), "elements are f32, i32, i8"),
        (lambda b, x, g, h: b.tensor("t", 33, forms=("plain", "quant")), "whole number of blocks of 32"),
        (lambda b, x, g, h: b.tensor("t", 32, forms="packed"), "forms are plain and quant"),
        (lambda b, x, g, h: b.view("v", h, 40, 32), "lie outside the 64 elements of 'h'"),
        (lambda b, x, g, h: b.view("v", x, 0, 32), "only a computed tensor or a view can be viewed"),
        (lambda b, x, g, h: b.launch("conv2d", [x], [h]), "unknown launch kind 'conv2d'"),
        (lambda b, x, g, h: b.launch("norm", [x, g], [h], eps=1e-6, alpha=2), "unknown parameter 'alpha'"),
        (lambda b, x, g, h: b.launch("gemv", [x, g], [h], split=True), "parameter 'split' is an integer"),
        (lambda b, x, g, h: b.launch("gemv", [x, g], [h], split=0), "parameter 'split' must be positive"),
        (lambda b, x, g, h: b.launch("norm", [x, g], [(h, "quant")]), "the quant form of 'h'"),
        (lambda b, x, g, h: b.launch("norm", [x, x], [h]), "operand 'gain' must be a lane.weight"),
        (lambda b, x, g, h: b.launch("norm", [x, g], [x]), "writes input 'x'"),
        (lambda b, x, g, h: b.launch("norm", [x], [h]), "takes (x, gain) -> (out)"),
        (lambda b, x, g, h: b.launch("binary", [x, h], [h], op="sub"), "op must be one of add, mul"),
        (lambda b, x, g, h: b.launch("norm", [x, (g, "plain", "quant")], [h]), "a read operand is a value or"),
        (lambda b, x, g, h: b.launch("norm", [x, g], [(h, "plain", "whole")]), "a written operand is a value or"),
        (lambda b, x, g, h: b.launch("norm", [x, StepBuilder("t").input("g", 64)], [h]), "is not a tensor of step"),
        (lambda b, x, g, h: b.generic("k", [x], [(h, "plain", "some")]), "a write is 'whole', 'other'"),
        (lambda b, x, g, h: b.generic("k", [x], [h], scratch=[("t", "f32", 4)]), "scratch is a list of"),
        (lambda b, x, g, h: b.output(h, h), "'h' is already an output"),
    ],
)
def test_mistakes_fail_at_the_call(make, message):
    b, x, g, h = _builder()
    with pytest.raises(ValueError) as e:
        make(b, x, g, h)
    assert message in str(e.value)


def test_a_spent_builder_refuses_more():
    b, *_ = _builder()
    b.module()
    with pytest.raises(ValueError, match="already built"):
        b.tensor("t", 4)
    with pytest.raises(ValueError, match="already built"):
        b.module()


def test_numerics_are_checked():
    with pytest.raises(ValueError, match="numerics are f32, bf16, int8 or int8x2"):
        StepBuilder("s", "int4")


def test_launch_ops_are_the_dialects():
    b, x, g, h = _builder()
    op = b.launch("norm", [x, g], [h], eps=1e-6)
    assert isinstance(op, lane.KERNEL_OPS["norm"])
    assert b.value("h") is h
