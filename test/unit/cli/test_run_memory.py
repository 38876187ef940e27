"""`lanearena run` refuses, before drawing or reading a single weight, a numpy run larger than the memory free here;
what it counts is what the lowered steps allocate (test/unit/lowering/test_streaming_memory.py measures the peak)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from lanearena import api
from lanearena.cli import main, memory
from lanearena.cli import run as run_cli
from lanearena.errors import UserError
from lanearena.frontend import decoder_step, load
from lanearena.lowering.compile import placed
from lanearena.lowering.runtime import load as load_module
from lanearena.lowering.runtime import unshared
from lanearena.lowering.weights import kept
from lanearena.options import PlaceOptions


def _placed(config: str, *settings: str):
    module = decoder_step(load(config, list(settings)))
    api.place(module, PlaceOptions("best"))
    p = placed(module)
    return p, p.step, p.plan


@pytest.mark.parametrize("numerics", ["int8", "bf16"])
@pytest.mark.parametrize("config", ["tiny", "examples/configs/qwen2.5-0.5b.json"])
def test_the_weights_counted_are_the_buffers_the_lowered_step_allocates(config, numerics):
    p, step, _ = _placed(config, "layers=1", "vocab=512", "max_len=64", f"numerics={numerics}")
    module = load_module(p.source())
    weights = sum(nbytes for role, _, _, nbytes in kept([module], ("weight",)).values() if role == "weight")
    largest = max(4 * t.length for t in step.tensors.values() if t.role.value == "weight")
    state = sum(4 * t.length for t in step.tensors.values() if t.role.value in ("input", "state"))
    assert memory.run_bytes(step, 0, copies=2) == weights + 2 * state + largest + memory.OVERHEAD


def test_a_run_past_the_free_memory_is_refused_before_it_starts(monkeypatch, capsys):
    _, step, plan = _placed("tiny")
    need = memory.run_bytes(step, plan.bytes + unshared(plan).bytes, run_cli.COMPARISON_COPIES)
    monkeypatch.setattr(run_cli, "available_memory", lambda: need - 1)
    monkeypatch.setattr(run_cli, "compare", lambda *a, **k: pytest.fail("ran past the memory check"))
    assert main(["run", "--quiet", "--backend", "numpy"]) == 2
    err = capsys.readouterr().err
    assert "needs about" in err and "free here" in err and "--set" in err
    monkeypatch.undo()
    monkeypatch.setattr(run_cli, "available_memory", lambda: need + 1)
    assert main(["run", "--quiet", "--backend", "numpy"]) == 0


def test_where_the_system_does_not_say_the_run_goes_ahead():
    memory.check_memory("any", 10**15, None)
    with pytest.raises(UserError, match=r"needs about 1000000\.0 GB .* than the 1\.0 GB free here"):
        memory.check_memory("any", 10**15, 10**9)


def test_linux_says_how_much_is_free():
    if not Path("/proc/meminfo").exists():
        pytest.skip("no /proc/meminfo: the check is not made on this system")
    free = memory.available_memory()
    assert free is not None and 0 < free <= os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
