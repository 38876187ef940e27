"""bench/gpu_check.py, run as CI runs it on the numpy device: the same code path as on a GPU (plain path, launch
plan, equality bit for bit, timing table marked as the CPU's), so that a change that breaks the GPU check fails
here; and a plan that drops a launch is caught."""

from __future__ import annotations

import json

from lanearena.lowering.replay.launch_plan import LaunchPlan

from ..support.bench import script


def _gpu_check():
    return script("gpu_check")


ARGS = ["--backend", "numpy", "tiny", "tiny-prefill", "--numerics", "f32,int8", "--max-len", "0", "--runs", "2"]


def test_the_gpu_check_runs_on_the_numpy_device(tmp_path, capsys):
    assert _gpu_check().main([*ARGS, "--out", str(tmp_path)]) == 0
    text = (tmp_path / "gpu_check.txt").read_text()
    out = capsys.readouterr().out
    first, *table = text.splitlines()
    assert "the CPU's timings, not a GPU's" in text
    assert out.startswith(first + "\n") and "\n".join(table) in out  # printed as written
    rows = json.loads((tmp_path / "gpu_check.json").read_text())
    assert [(r["config"], r["numerics"]) for r in rows] == [
        ("tiny", "f32"),
        ("tiny", "int8"),
        ("tiny-prefill", "f32"),
        ("tiny-prefill", "int8"),
        ("tiny sampled", "f32"),  # the step drawing its token (lane.sample), in the first numerics
        ("tiny-prefill sampled", "f32"),
    ]
    assert all(r["equal"] and r["graph_ms"] is None and r["plain_ms"] > 0 for r in rows)
    assert rows[1]["weight_bytes"] < rows[0]["weight_bytes"]  # Q8_0 against f32
    assert "| tiny int8 | 13 | yes |" in text  # fused (lane-fuse): 5 launches a layer and 3


def test_the_gpu_check_fails_a_plan_that_differs_from_the_plain_path(tmp_path, monkeypatch, capsys):
    """A plan that leaves out its last launch (the step's last result is then never written on its buffers)."""
    replay = LaunchPlan.replay

    def short(self, stream=None):
        self.calls, kept = self.calls[:-1], self.calls
        try:
            replay(self, stream)
        finally:
            self.calls = kept

    monkeypatch.setattr(LaunchPlan, "replay", short)
    assert _gpu_check().main([*ARGS[:3], "--numerics", "f32", "--max-len", "0", "--runs", "1"]) == 1
    assert "paths equal False" in capsys.readouterr().out
