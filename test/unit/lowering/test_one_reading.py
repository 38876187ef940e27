"""The IR is read into the plain model once a pass run: `lanearena run` reads the step twice (the placement, then
the lowering's verification, whose reading the lowering and both runs use), `lanearena compile` likewise, and no
step is built again from plain data on the way (the unshared reference is another layout of the same launches)."""

from __future__ import annotations

import sys
from collections import Counter

import pytest

from lanearena import cli
from lanearena.passes import convert

from ..support import from_model


@pytest.fixture
def readings(monkeypatch) -> Counter:
    """How often a `lane.step` is read into a `model.Step` (`convert.step_of`) and a `model.Step` built into IR
    (`from_model.module_of`), wherever a module imported either."""
    cli.parser()  # imports every subcommand's modules first, so that each holds the function it imports
    seen: Counter = Counter()
    for name, fn in (("step_of", convert.step_of), ("module_of", from_model.module_of)):

        def counted(*args, _name=name, _fn=fn, **kwargs):
            seen[_name] += 1
            return _fn(*args, **kwargs)

        for module in list(sys.modules.values()):
            if getattr(module, name, None) is fn:
                monkeypatch.setattr(module, name, counted)
    return seen


def test_lanearena_run_reads_the_step_once_to_place_and_once_to_lower(readings, capsys):
    assert cli.main(["run", "--json", "--backend", "numpy", "--quiet"]) == 0
    assert '"max_abs_err": 0.0' in capsys.readouterr().out
    assert readings == {"step_of": 2}


def test_lanearena_compile_reads_the_step_once_to_place_and_once_to_lower(readings, tmp_path):
    step = tmp_path / "tiny.mlir"
    assert cli.main(["build", "-o", str(step)]) == 0
    readings.clear()
    assert cli.main(["compile", str(step), "-o", str(tmp_path / "tiny.py")]) == 0
    assert "def launches(dev, b):" in (tmp_path / "tiny.py").read_text()
    assert readings == {"step_of": 2}
