"""Hostile inputs: names that would be code, sizes and offsets past every limit, options out of range, NaN and
infinity, odd files. Each test here failed before the fix it guards."""

from __future__ import annotations

import io
import keyword

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from xdsl.printer import Printer

from lanearena import api
from lanearena.frontend import StepBuilder
from lanearena.lowering.device import NumpyDevice
from lanearena.lowering.emit import emit
from lanearena.lowering.runtime import load

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
