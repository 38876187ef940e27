"""Hostile inputs: names that would be code, sizes and offsets past every limit, options out of range, NaN and
infinity, odd files. Each test here failed before the fix it guards."""

from __future__ import annotations

import dataclasses
import io
import keyword
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from xdsl.passes import PassPipeline
from xdsl.printer import Printer
from xdsl.utils.exceptions import DiagnosticException

from lanearena import api, options
from lanearena.cli import main
from lanearena.frontend import StepBuilder
from lanearena.errors import UserError
from lanearena.lowering.compile import compare
from lanearena.lowering.device import NumpyDevice
from lanearena.lowering.emit import emit
from lanearena.lowering.runtime import load
from lanearena.lowering.target import lower_module
from lanearena.passes.place import LaneArenaPlace
from lanearena.passes.verify import LaneArenaVerify

FUZZ = settings(deadline=None, derandomize=True, max_examples=40, suppress_health_check=[HealthCheck.too_slow])

HOSTILE = ['"""', "'''", '"', "'", "\n", "\r", "\x00", "#", "\\", "é", "😀", "\u2028", "\x0c", ")", "\t", " "]

names = st.one_of(
    st.lists(st.sampled_from(HOSTILE + ["a", "b"]), min_size=1, max_size=8).map("".join),
    st.sampled_from(keyword.kwlist),
    st.text(min_size=1, max_size=12),
)


def _step(step_name: str, x: str, a: str, y: str):
    """y = (x + x) * (x + x) through computed tensor a, under the names given."""
    b = StepBuilder(step_name)
    vx = b.input(x, 64)
    va = b.tensor(a, 64)
    vy = b.tensor(y, 64)
    b.launch("binary", [vx, vx], [va], op="add")
    b.launch("binary", [va, va], [vy], op="mul")
    b.output(vy)
    return b.module()


def _printed(module) -> str:
    out = io.StringIO()
    Printer(stream=out).print_op(module)
    return out.getvalue()


def _runs(module, x_name: str, y_name: str) -> None:
    """Places, lowers, imports and runs `module` on the numpy runtime, and checks its one result."""
    api.place(module, "greedy")
    ((step, plan),) = api.placed_steps(module)
    source = emit(step, plan)
    assert source.isascii()
    x = np.linspace(-1, 1, 64, dtype=np.float32)
    out = load(source).run(NumpyDevice(), {x_name: x})
    assert list(out) == [y_name]
    np.testing.assert_array_equal(out[y_name], (x + x) * (x + x))


@FUZZ
@given(st.lists(names, min_size=4, max_size=4, unique=True))
def test_names_never_become_code(picked):
    """Any step and tensor names compile to a module that imports and runs, and print to text that parses back to
    the same names."""
    step_name, x, a, y = picked
    module = _step(step_name, x, a, y)
    _runs(module, x, y)
    again = api.parse(_printed(module))
    ((step, plan),) = api.placed_steps(again)
    assert step.name == step_name and list(step.tensors) == [x, a, y]
    assert plan is not None


def test_a_docstring_breakout_runs_nothing():
    """The classic: a name that closes the module's docstring and runs code on import."""
    evil = '"""\nraise SystemExit("pwned")\n"""'
    module = _step(evil, "x" + evil, "a" + evil, "y\n#" + evil)
    _runs(module, "x" + evil, "y\n#" + evil)


def test_non_ascii_names_round_trip():
    """The printer writes a non-ASCII name as UTF-8 byte escapes; the parser takes them back."""
    text = _printed(api.place(_step("é", "ü", "a😀", "y"), "greedy"))
    assert "\\C3\\A9" in text
    ((step, _),) = api.placed_steps(api.parse(text))
    assert step.name == "é" and list(step.tensors) == ["ü", "a😀", "y"]


# --- No silent corruption -------------------------------------------------------------------------------------------


def _file(tmp_path, text: str, name: str = "step.mlir") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def _cli(capsys, *argv: str) -> tuple[int, str]:
    """Runs `lanearena argv` and returns its exit code and its standard error."""
    code = main(list(argv))
    return code, capsys.readouterr().err


def test_offsets_past_2_to_the_40_stay_in_their_buffer():
    """The symbolic addresses once packed buffer k at (k + 1) << 40: an arena offset of 2^40 became buffer 1's."""
    module = api.place(_step("s", "x", "a", "y"), "greedy")
    ((step, plan),) = api.placed_steps(module)
    far = 1 << 40
    shifted = dataclasses.replace(
        plan, bytes=plan.bytes + far, arrays=[dataclasses.replace(a, offset=a.offset + far) for a in plan.arrays]
    )
    source = emit(step, shifted)
    assert f"u64(b[0] + {far})" in source
    assert source.count("dev.launch(") == 2


def test_an_output_that_is_an_untouched_input_is_returned(tmp_path):
    text = """lane.step @s numerics(f32) {
  %x = lane.input "x" : !lane.tensor<64xf32>
  %w = lane.input "w" : !lane.tensor<64xf32>
  %y = lane.tensor "y" : !lane.tensor<64xf32>
  lane.binary %w, %w -> %y op("add")
  lane.output %x, %y : !lane.tensor<64xf32>, !lane.tensor<64xf32>
}"""
    module = api.place(api.parse(text), "greedy")
    ((step, plan),) = api.placed_steps(module)
    x, w = np.arange(64, dtype=np.float32), np.ones(64, np.float32)
    out = load(emit(step, plan)).run(NumpyDevice(), {"x": x, "w": w})
    assert sorted(out) == ["x", "y"]
    np.testing.assert_array_equal(out["x"], x)
    np.testing.assert_array_equal(out["y"], w + w)


_HUGE = """lane.step @s numerics(f32) {
  %x = lane.input "x" : !lane.tensor<Nxf32>
  %a = lane.tensor "a" : !lane.tensor<Nxf32>
  %y = lane.tensor "y" : !lane.tensor<Nxf32>
  lane.binary %x, %x -> %a op("add")
  lane.binary %a, %a -> %y op("mul")
  lane.output %y : !lane.tensor<Nxf32>
}"""


def test_sizes_past_a_device_are_refused_where_written(tmp_path, capsys):
    path = _file(tmp_path, _HUGE.replace("N", str(1 << 62)))
    code, err = _cli(capsys, "place", path)
    assert code == 2 and "Traceback" not in err
    assert f"{path}:2:8: tensor 'x' takes {1 << 64} bytes, more than a device can hold" in err


def test_compile_of_counts_past_int32_is_a_located_error(tmp_path, capsys):
    placed = tmp_path / "placed.mlir"
    assert _cli(capsys, "place", _file(tmp_path, _HUGE.replace("N", str(1 << 40))), "-o", str(placed))[0] == 0
    code, err = _cli(capsys, "compile", str(placed), "-o", str(tmp_path / "step.py"))
    assert code == 2 and "Traceback" not in err
    assert "launch #0 (lane.binary): binary: 1099511627776 does not fit the kernels' 32-bit sizes" in err
    assert not (tmp_path / "step.py").exists()


# --- Options: each works end to end or is refused ----------------------------------------------------------------


def _weighted(numerics: str):
    """A product by a Q8_0 weight of 96 values: its parts sit at offsets that only `align` rounds."""
    b = StepBuilder("w", numerics)
    x = b.input("x", 32)
    w = b.weight("w", (3, 32), "i8")
    y = b.tensor("y", 3)
    if numerics == "f32":
        b.launch("gemv", [x, w], [y])
    else:
        h = b.tensor("h", 32, forms=("plain", "quant"))
        b.launch("quantize", [x], [(h, "quant")])
        b.launch("gemv", [(h, "quant"), w], [y])
    b.output(y)
    return b.module()


@pytest.mark.parametrize("numerics", ["f32", "int8", "int8x2"])
@pytest.mark.parametrize("align", [16, 32, 64, 128, 256, 1024])
@pytest.mark.parametrize("qblock", options.QBLOCKS)
def test_each_supported_align_and_qblock_places_and_runs(numerics, align, qblock):
    module = api.place(_weighted(numerics), "greedy", align=align, qblock=qblock)
    api.verify(module, qblock=qblock)
    ((step, plan),) = api.placed_steps(module)
    assert plan.align == align
    assert compare(step, plan, "numpy").max_abs_err == 0.0
    source = lower_module(module, qblock)
    assert f"ALIGN = {align}" in source


@pytest.mark.parametrize(
    "option, message",
    [
        ("align=3", "align must be a power of two from 16 (bytes), not 3"),
        ("align=0", "align must be a power of two from 16"),
        ("align=8", "align must be a power of two from 16"),
        ("align=48", "align must be a power of two from 16"),
        ("qblock=64", "qblock must be a block size the kernels are built for (32), not 64"),
        ("qblock=16", "qblock must be a block size the kernels are built for (32), not 16"),
        ("time_limit=-1", "time_limit must be a positive number of seconds, not -1"),
        ("time_limit=0", "time_limit must be a positive number of seconds"),
    ],
)
def test_bad_pass_options_are_refused(option, message):
    module = api.parse(_printed(_step("s", "x", "a", "y")))
    with pytest.raises(DiagnosticException, match=re.escape(message)):
        _pipeline(f"lane-arena-place{{{option}}}").apply(api.context(), module)


def _pipeline(spec: str) -> PassPipeline:
    """The passes `spec` names, with their options parsed as `xdsl-opt -p` parses them."""
    passes = {"lane-arena-place": lambda: LaneArenaPlace, "lane-arena-verify": lambda: LaneArenaVerify}
    return PassPipeline.parse_spec(passes, spec)


def test_an_int_time_limit_is_taken():
    module = api.parse(_printed(_step("s", "x", "a", "y")))
    _pipeline("lane-arena-place{time_limit=1 align=16},lane-arena-verify").apply(api.context(), module)
    ((_, plan),) = api.placed_steps(module)
    assert plan.align == 16


def test_verify_and_lowering_refuse_an_unsupported_qblock():
    module = api.place(_step("s", "x", "a", "y"), "greedy")
    with pytest.raises(UserError, match="qblock must be a block size"):
        api.verify(module, qblock=64)
    with pytest.raises(UserError, match="qblock must be a block size"):
        lower_module(module, 64)


def test_a_hand_written_unaligned_arena_is_refused_by_the_lowering(tmp_path, capsys):
    placed = _printed(api.place(_step("s", "x", "a", "y"), "greedy")).replace("align(256)", "align(8)")
    code, err = _cli(capsys, "compile", _file(tmp_path, placed), "-o", str(tmp_path / "s.py"))
    assert code == 2 and "arena.alloc's align must be a power of two from 16" in err


def test_run_refuses_a_negative_time_limit(capsys):
    with pytest.raises(SystemExit) as e:
        main(["run", "--time-limit", "-1"])
    assert e.value.code == 2
    assert "--time-limit must be a positive number of seconds" in capsys.readouterr().err
