"""The placed step as IR: placing twice changes nothing, the placement is read back from the ops alone (the
verifier, `lanearena place --json` and the lowering), a hand-made overlap is an error at its op, and the kernel ops
and the pin of xDSL stay what the dialects were written for."""

from __future__ import annotations

import json
import re
import subprocess
from importlib.metadata import version
from pathlib import Path

import pytest

import lanearena.cli
from lanearena import api
from lanearena.dialects import arena, lane
from lanearena.errors import UserError
from lanearena.frontend import decoder_step
from lanearena.frontend.configs import CONFIGS
from lanearena.lowering.target import lower_module
from lanearena.model import Form, aligned
from lanearena.options import PlaceOptions
from lanearena.passes.convert import plan_of, steps

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "examples" / "decode.mlir"


def _placed_text(algorithm: str = "greedy") -> str:
    return str(api.place(decoder_step(CONFIGS["tiny"]), PlaceOptions(algorithm)))


@pytest.mark.parametrize("again", ["greedy", "best"])
def test_placing_a_placed_step_changes_nothing(again):
    once = _placed_text()
    module = api.parse(once)
    assert str(api.place(module, PlaceOptions(again))) == once


def test_xdsl_opt_places_its_own_output_to_the_same_text():
    once = subprocess.run(
        ["xdsl-opt", str(EXAMPLE), "-p", "lane-arena-place{algorithm=greedy}"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    twice = subprocess.run(
        ["xdsl-opt", "-p", "lane-arena-place"], input=once, capture_output=True, text=True, check=True
    ).stdout
    assert twice == once


def test_nothing_follows_the_output_and_every_placed_tensor_is_on_the_arena():
    module = api.parse(_placed_text())
    step_op = steps(module)[0]
    ops = list(step_op.body.block.ops)
    assert isinstance(ops[0], arena.AllocOp) and isinstance(ops[-1], lane.OutputOp)
    placed = [op for op in ops if isinstance(op, arena.TensorOp)]
    assert placed and all(op.arena is ops[0].result for op in placed)
    for op in ops:
        if isinstance(op, lane.LaunchOp):
            assert all(isinstance(b.owner, (arena.ScratchOp, arena.CounterOp)) for b in op.buffers)


def test_the_lowering_uses_an_offset_edited_by_hand():
    """Moving a placed array past the end of the arena (a valid spot, the arena grown to hold it) moves it in the
    emitted launcher: the lowering reads the offset from the IR."""
    text = _placed_text()
    step_op = steps(api.parse(text))[0]
    plan = plan_of(step_op)
    a = next(a for a in plan.arrays if a.form is Form.PLAIN)
    new = aligned(plan.bytes, plan.align)
    head = f'%{re.escape(a.tensor)} = arena.tensor "{re.escape(a.tensor)}" %arena'
    pattern = rf"({head}[^\n]* plain\(){a.offset}\)"
    edited, n = re.subn(pattern, rf"\g<1>{new})", text)
    assert n == 1
    edited = edited.replace(f"arena.alloc bytes({plan.bytes})", f"arena.alloc bytes({new + a.bytes})")
    module = api.parse(edited)
    api.verify(module)
    lowered = lower_module(module)
    assert f"ARENA_BYTES = {new + a.bytes}" in lowered
    writer = lowered.splitlines()
    at = next(i for i, line in enumerate(writer) if f"# {a.first}: " in line)
    assert f"b[0] + {new})" in writer[at + 1] or f"b[0] + {new}," in writer[at + 1]
    assert f"b[0] + {new}" not in lower_module(api.parse(text))


OVERLAP = """\
lane.step @overlap numerics(f32) {
  %arena = arena.alloc bytes(2048) align(256) lower_bound(2304) algorithm("hand")
  %x = lane.input "x" own(plain = input) : !lane.tensor<256xf32>
  %a = arena.tensor "a" %arena plain(0) : !lane.tensor<320xf32>
  %b = arena.tensor "b" %arena plain(1024) : !lane.tensor<256xf32>
  %y = lane.tensor "y" own(plain = output) : !lane.tensor<256xf32>
  lane.launch "a"(%x) -> (%a whole)
  lane.launch "b"(%a) -> (%b whole)
  lane.launch "y"(%b) -> (%y whole)
  lane.output %y : !lane.tensor<256xf32>
}
"""


def test_a_hand_made_overlap_is_an_error_at_its_op():
    module = api.parse(OVERLAP, "hand.mlir")
    with pytest.raises(UserError) as e:
        api.verify(module)
    assert (
        "hand.mlir:5:3: lane.step @overlap: arena.tensor 'a' plain [0, 1280) live 0-1 overlaps arena.tensor 'b'"
        in str(e.value)
    )


def _place_json(capsys, path: Path) -> list:
    assert lanearena.cli.main(["place", str(path), "--algorithm", "greedy", "--json", "--quiet"]) == 0
    return json.loads(capsys.readouterr().out)


def test_place_json_reads_back_the_same_from_a_placed_file(tmp_path, capsys):
    first = _place_json(capsys, EXAMPLE)
    placed = tmp_path / "placed.mlir"
    placed.write_text(
        subprocess.run(
            ["xdsl-opt", str(EXAMPLE), "-p", "lane-arena-place{algorithm=greedy}"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )
    assert _place_json(capsys, placed) == first
    (step,) = first
    assert (step["step"], step["arena_bytes"], step["lower_bound"], step["algorithm"]) == (
        "decode",
        84224,
        84224,
        "greedy",
    )
    assert {"tensor": "q", "form": "plain", "offset": 65536, "bytes": 16384, "first": 1, "last": 3} in step["arrays"]
    assert step["scratch"] == [{"launch": 1, "tag": "fp", "offset": 0, "bytes": 65536}]
    assert step["counters"] == [{"launch": 1, "tag": "fq", "bytes": 256}]
    assert {"tensor": "y", "form": "plain", "bytes": 8192, "reason": "output"} in step["own"]


def test_ci_runs_the_lit_tests_under_the_lowest_xdsl_release_of_the_range():
    """pyproject.toml requires a range of xDSL releases (`xdsl>=LOW,<HIGH`); `.ci/run` runs the lit tests in a venv of
    the lowest, and the development venv holds one inside the range."""
    low, high = re.search(r'"xdsl>=([\d.]+),<([\d.]+)"', (ROOT / "pyproject.toml").read_text()).groups()
    (pinned,) = re.findall(r"'xdsl==([\d.]+)'", (ROOT / ".ci" / "run").read_text())

    def release(text: str) -> tuple[int, ...]:
        return tuple(int(part) for part in text.split("."))

    assert release(pinned)[:2] == release(low)[:2]
    assert release(low) <= release(version("xdsl")) < release(high)


def test_every_kind_is_an_op_of_the_dialect():
    ops = list(lane.LANE.operations)
    for name, op in lane.KERNEL_OPS.items():
        assert op.name == f"lane.{name}" and op in ops
