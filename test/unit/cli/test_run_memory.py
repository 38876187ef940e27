"""`lanearena run` refuses, before drawing a single weight, a numpy run larger than the memory free here."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from lanearena.cli import main
from lanearena.cli import run as run_cli
from lanearena.errors import UserError
from lanearena.frontend import decoder_step, load
from lanearena.lowering.runtime import feed_bytes, random_feeds
from lanearena.passes.convert import step_of, steps


def _step(config: str, *settings: str):
    (op,) = steps(decoder_step(load(config, list(settings))))
    return step_of(op)[0]


@pytest.mark.parametrize("config", ["tiny", "examples/configs/qwen2.5-0.5b.json"])
def test_feed_bytes_are_the_drawn_feeds(config):
    step = _step(config, "layers=1", "vocab=512", "max_len=64")
    assert feed_bytes(step) == sum(a.nbytes for a in random_feeds(step).values())


def test_a_run_past_the_free_memory_is_refused_before_it_starts(monkeypatch, capsys):
    step = _step("tiny")
    # Free memory just under what the tiny step's run needs (2.5 bytes a byte of its feeds), then just over.
    monkeypatch.setattr(run_cli, "available_memory", lambda: int(2.5 * feed_bytes(step)) - 1)
    monkeypatch.setattr(run_cli, "compare", lambda *a, **k: pytest.fail("ran past the memory check"))
    assert main(["run", "--quiet", "--backend", "numpy"]) == 2
    err = capsys.readouterr().err
    assert "needs about" in err and "free here" in err and "--set" in err
    monkeypatch.undo()
    monkeypatch.setattr(run_cli, "available_memory", lambda: int(2.5 * feed_bytes(step)) + 1)
    assert main(["run", "--quiet", "--backend", "numpy"]) == 0


def test_where_the_system_does_not_say_the_run_goes_ahead():
    run_cli.check_memory("any", 10**15, None)
    with pytest.raises(UserError, match=r"needs about 2500000\.0 GB .* than the 1\.0 GB free here"):
        run_cli.check_memory("any", 10**15, 10**9)


def test_linux_says_how_much_is_free():
    if not Path("/proc/meminfo").exists():
        pytest.skip("no /proc/meminfo: the check is not made on this system")
    free = run_cli.available_memory()
    assert free is not None and 0 < free <= os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
