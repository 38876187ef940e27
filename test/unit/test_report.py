"""`lanearena report`: the table's numbers and the picture's rectangles follow the plan, the picture is written
whole as valid SVG, and bad input fails with a message and exit 2."""

from __future__ import annotations

import re
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

import lanearena.cli
from lanearena import arena_report
from lanearena.analysis.check import check
from lanearena.analysis.plan import ArenaPlan, Counter, OwnArray, PlacedArray, PlacedScratch
from lanearena.arena_report import Peak, Rect
from lanearena.cli.build import mlir_text
from lanearena.frontend.builder import StepBuilder
from lanearena.model import Form, Scratch
from lanearena.passes.convert import place_step, step_of, steps


@pytest.fixture(autouse=True)
def only_report(monkeypatch):
    """The command line with `report` alone, so that these tests see only what `report` does."""
    monkeypatch.setattr(lanearena.cli, "SUBCOMMANDS", ("report",))


def _example():
    """A three-launch step and a hand-made plan of it: `a` (plain and quant) lives 0-2, the scratch `t` at launch 0,
    `c` 1-2 in the bytes `t` left; launch 1 holds the most."""
    b = StepBuilder("s", "int8")
    x = b.input("x", 256)
    a = b.tensor("a", 256, forms=("plain", "quant"))
    c = b.tensor("c", 1024)
    y = b.tensor("y", 256)
    b.generic(
        "k0",
        ins=[x],
        outs=[(a, ("plain", "quant"))],
        scratch=[Scratch("t", "f32", 2048), Scratch("n", "i32", 4, counter=True)],
    )
    b.generic("k1", ins=[(a, "quant")], outs=[c])
    b.generic("k2", ins=[a, c], outs=[y])
    b.output(y)
    module = b.module()
    step, values = step_of(steps(module)[0])
    plan = ArenaPlan(
        5632,
        arrays=[
            PlacedArray("a", Form.PLAIN, 0, 1024, 0, 2),
            PlacedArray("a", Form.QUANT, 1024, 512, 0, 1),
            PlacedArray("c", Form.PLAIN, 1536, 4096, 1, 2),
        ],
        scratch=[PlacedScratch(0, "t", 1536, 2048)],
        counters=[Counter(0, "n", 4)],
        own=[OwnArray("x", Form.PLAIN, 1024, "input"), OwnArray("y", Form.PLAIN, 1024, "output")],
        lower_bound=5632,
        algorithm="by-hand",
    )
    return module, step, values, plan


def test_the_example_plan_is_safe():
    _, step, _, plan = _example()
    assert check(step, plan) == []


def test_rectangles_follow_the_plan():
    _, step, _, plan = _example()
    assert arena_report.rects(plan) == [
        Rect("a", "plain", 0, 3, 0, 1024),
        Rect("a", "quant", 0, 2, 1024, 512),
        Rect("c", "plain", 1, 3, 1536, 4096),
        Rect("t", "scratch", 0, 1, 1536, 2048, launch=0),
    ]
    assert [r.label(step) for r in arena_report.rects(plan)] == ["a", "a (quant)", "c", "t (#0 k0)"]


def test_table_numbers_follow_the_plan():
    _, step, _, plan = _example()
    assert arena_report.live_bytes(step, plan) == [1024 + 512 + 2048, 1024 + 512 + 4096, 1024 + 4096]
    assert arena_report.peak(step, plan) == Peak(1, "k1", 5632, 3)
    assert [(r.name, r.kind) for r in arena_report.largest(plan)] == [
        ("c", "plain"),
        ("t", "scratch"),
        ("a", "plain"),
        ("a", "quant"),
    ]
    assert arena_report.no_reuse_bytes(plan) == 1024 + 512 + 4096 + 2048
    assert arena_report.own_by_reason(plan) == {"input": (1, 1024), "output": (1, 1024)}
    text = arena_report.table(step, plan)
    assert "  arena              5,632 B    5.50 KiB  ratio 1.000 to the lower bound\n" in text
    assert "  no reuse           7,680 B    7.50 KiB  sum of the 4 placed items\n" in text
    assert "  peak        launch 1 (k1): 5,632 B (5.50 KiB) live in 3 items\n" in text
    assert "  own buffers 2: input 1 (1.00 KiB), output 1 (1.00 KiB)\n" in text
    assert "  counters    1 (4 B), each outside the arena (the lowering packs them in one zeroed allocation)\n" in text
    rows = text.split("largest placed items\n")[1].splitlines()[1:]
    assert [row.split()[:3] for row in rows] == [
        ["c", "plain", "4,096"],
        ["t", "(#0", "k0)"],
        ["a", "plain", "1,024"],
        ["a", "quant", "512"],
    ]
    assert [row.split()[-1] for row in rows] == ["1-2", "0", "0-2", "0-1"]


def test_sizes_take_the_unit_that_fits():
    assert [arena_report.size(n) for n in (0, 1023, 1024, 3 << 19, 5 << 30)] == [
        "0 B",
        "1023 B",
        "1.00 KiB",
        "1.50 MiB",
        "5.00 GiB",
    ]


def test_crowded_steps_label_only_the_largest():
    crowded = ArenaPlan(
        1 << 20, scratch=[PlacedScratch(i, "t", 0, 256 * (i + 1)) for i in range(arena_report.CROWDED + 1)]
    )
    candidates, wanted = arena_report.to_label(crowded)
    assert wanted == arena_report.FEW and candidates[0].launch == arena_report.CROWDED
    _, _, _, plan = _example()
    assert arena_report.to_label(plan)[1] == 4


def test_the_plain_logic_needs_no_matplotlib():
    code = "import sys, lanearena.arena_report; assert 'matplotlib' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def _report(capsys, *argv: str) -> tuple[int, str, str]:
    code = lanearena.cli.main(["report", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def _placed_file(tmp_path):
    module, step, _, plan = _example()
    place_step(steps(module)[0], step, plan)
    path = tmp_path / "step.mlir"
    path.write_text(mlir_text(module))
    return path


def test_prints_the_table_of_a_placed_file(tmp_path, capsys):
    _, step, _, plan = _example()
    code, out, err = _report(capsys, str(_placed_file(tmp_path)))
    assert (code, out, err) == (0, arena_report.table(step, plan), "")


def test_writes_an_svg_with_a_rectangle_per_item(tmp_path, capsys):
    pytest.importorskip("matplotlib", reason="drawing needs matplotlib (the plot extra)")
    picture = tmp_path / "placement.svg"
    code, out, _ = _report(capsys, str(_placed_file(tmp_path)), "-o", str(picture))
    assert code == 0 and "peak        launch 1 (k1)" in out
    ids = [e.get("id") for e in ET.parse(picture).iter() if (e.get("id") or "").startswith("item:")]
    assert sorted(ids) == ["item:plain:a", "item:plain:c", "item:quant:a", "item:scratch:0:t"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["placement.svg", "step.mlir"]


def test_writes_a_png(tmp_path, capsys):
    pytest.importorskip("matplotlib", reason="drawing needs matplotlib (the plot extra)")
    picture = tmp_path / "placement.png"
    assert _report(capsys, str(_placed_file(tmp_path)), "-o", str(picture))[0] == 0
    assert picture.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")


def test_without_matplotlib_drawing_says_how_to_get_it(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    code, out, err = _report(capsys, str(_placed_file(tmp_path)), "-o", str(tmp_path / "p.svg"))
    assert (code, out) == (2, "")
    assert err == "lanearena report: error: drawing needs matplotlib: pip install '.[plot]'\n"


@pytest.mark.parametrize(
    "content, extra, message",
    [
        ("lane.step @s numerics(f32) {", (), "step.mlir:"),
        (None, ("-o", "p.pdf"), "p.pdf: the picture must be a .svg or .png file"),
        (None, ("--step", "other"), "step.mlir: no lane.step @other"),
    ],
)
def test_bad_input_fails_with_one_line(tmp_path, capsys, monkeypatch, content, extra, message):
    monkeypatch.chdir(tmp_path)
    path = _placed_file(tmp_path)
    if content is not None:
        path.write_text(content)
    code, out, err = _report(capsys, "step.mlir", *extra)
    assert (code, out) == (2, "")
    assert err.startswith(f"lanearena report: error: {message}")


def test_a_missing_file_fails_with_one_line(tmp_path, capsys):
    code, _, err = _report(capsys, str(tmp_path / "none.mlir"))
    missing = tmp_path / "none.mlir"
    assert code == 2 and err == f"lanearena report: error: {missing}: cannot read: No such file or directory\n"


def test_a_window_of_launches_lists_each_launch_and_the_items_live_in_it():
    _, step, _, plan = _example()
    window = arena_report.window_of(step, 1, 3)
    assert window == range(1, 3)
    text = arena_report.table(step, plan, window)
    assert text.startswith(arena_report.table(step, plan).split("\n\n")[0])  # the whole step's figures first
    live = text.split("largest placed items live in launches 1-2\n")[1].split("\n\n")[0].splitlines()[1:]
    assert [row.split()[:2] for row in live] == [["c", "plain"], ["a", "plain"], ["a", "quant"]]  # not t: launch 0
    rows = text.split("  launches 1-2\n")[1].splitlines()[1:]
    assert [row.split() for row in rows] == [
        ["1", "k1", "5,632", "5.50", "KiB", "3", "c"],  # a, a (quant) and c live; c starts here
        ["2", "k2", "5,120", "5.00", "KiB", "2"],
    ]


@pytest.mark.parametrize(
    "start, stop, window",
    [(None, None, range(3)), (2, None, range(2, 3)), (None, 1, range(1)), (0, 3, range(3))],
)
def test_a_window_takes_a_slices_bounds(start, stop, window):
    _, step, _, _ = _example()
    assert arena_report.window_of(step, start, stop) == window


@pytest.mark.parametrize(
    "start, stop, message",
    [
        (2, 2, "2:2 holds no launch"),
        (3, None, "3:3 holds no launch"),
        (1, 4, "1:4 runs past the last launch: @s has 3"),
    ],
)
def test_a_window_outside_the_step_says_why(start, stop, message):
    _, step, _, _ = _example()
    with pytest.raises(ValueError, match=re.escape(message)):
        arena_report.window_of(step, start, stop)


@pytest.mark.parametrize(
    "text, window", [("1:3", range(1, 3)), ("2", range(2, 3)), (":1", range(1)), ("1:", range(1, 3))]
)
def test_the_command_prints_the_window_it_is_given(tmp_path, capsys, text, window):
    _, step, _, plan = _example()
    code, out, err = _report(capsys, str(_placed_file(tmp_path)), "--launches", text)
    assert (code, out, err) == (0, arena_report.table(step, plan, window), "")


@pytest.mark.parametrize(
    "text, message",
    [
        ("1:9", "lanearena report: error: step.mlir: --launches: 1:9 runs past the last launch: @s has 3 (0 to 2)"),
        ("2:1", "lanearena report: error: step.mlir: --launches: 2:1 holds no launch"),
        ("x", "lanearena report: error: argument --launches: 'x' is not a range of launches A:B"),
        ("-1:2", "lanearena report: error: argument --launches: '-1:2' is not a range of launches A:B"),
        (":", "lanearena report: error: argument --launches: ':' is not a range of launches A:B"),
    ],
)
def test_a_bad_window_is_one_located_line(tmp_path, capsys, monkeypatch, text, message):
    monkeypatch.chdir(tmp_path)
    _placed_file(tmp_path)
    try:
        code = lanearena.cli.main(["report", "step.mlir", f"--launches={text}"])
    except SystemExit as e:  # argparse's own error
        code = e.code
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert err.splitlines()[-1].startswith(message)
