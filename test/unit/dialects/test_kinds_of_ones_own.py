"""docs/adding-a-kind.md runs as written: its Python blocks, in order, as one script (with nvcc on the path and
without: the numpy runtime needs no compiler); and the kind those blocks define, registered in the `lanearena.kinds`
entry-point group by a distribution on the path, is seen by `lanearena place`, `lanearena compile`, `lanearena-opt`,
`xdsl-opt` and the lowering. Each runs in a process of its own, as a model compiler's would."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

DOC = Path(__file__).resolve().parents[3] / "docs" / "adding-a-kind.md"

MEAN_STEP = """lane.step @mean numerics(f32) {
  %x = lane.input "x" : !lane.tensor<3x2500xf32>
  %h = lane.tensor "h" : !lane.tensor<3x2500xf32>
  %m = lane.tensor "m" : !lane.tensor<3xf32>
  lane.binary %x, %x -> %h
  mine.mean %h -> %m
  lane.output %m : !lane.tensor<3xf32>
}
"""


def _blocks(before: str | None = None) -> str:
    """The page's Python blocks in order (those before the heading `before` only, where given), as one script."""
    text = DOC.read_text()
    if before is not None:
        text = text[: text.index(f"\n## {before}\n")]
    return "\n".join(re.findall(r"```python\n(.*?)```", text, re.S))


def _run(argv: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, env=os.environ | env)


def test_the_page_runs_as_written(tmp_path):
    added = "\nassert 'mine' in source.ADDED and 'mine_mean' in source.kernel_names()\n"
    done = _run([sys.executable, "-c", _blocks() + added], tmp_path)
    assert done.returncode == 0, done.stderr


def test_the_page_runs_on_the_numpy_runtime_with_no_compiler(tmp_path):
    """With no nvcc on the path nothing is compiled: the numpy runtime runs the kind's twin, its arguments checked
    against those its source declares."""
    bare = tmp_path / "bin"
    bare.mkdir()
    none = "\nfrom lanearena.lowering.kernels import ptx\nassert not ptx.can_compile()\n"
    done = _run([sys.executable, "-c", _blocks() + none], tmp_path, PATH=str(bare))
    assert done.returncode == 0, done.stderr


def _distribution(where: Path) -> None:
    """`mine_kinds`, the page's kind, installed at `where` as a distribution whose entry point names its dialect."""
    (where / "mine_kinds.py").write_text(_blocks(before="Using it"))
    info = where / "mine_kinds-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: mine-kinds\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[lanearena.kinds]\nmine = mine_kinds:MINE\n")


def _path(where: Path) -> str:
    """PYTHONPATH with `where` first, then the caller's (a work tree's lanearena over the one installed)."""
    return os.pathsep.join(filter(None, [str(where), os.environ.get("PYTHONPATH")]))


def _tool(name: str) -> str:
    return str(Path(sys.executable).with_name(name)) if Path(sys.executable).with_name(name).exists() else name


def test_an_outside_kind_registered_in_the_group_is_seen_by_every_command(tmp_path):
    step = tmp_path / "mean.mlir"
    step.write_text(MEAN_STEP)
    unknown = _run([_tool("lanearena"), "place", str(step)], tmp_path)
    assert unknown.returncode != 0 and "mine.mean" in unknown.stderr  # not registered: a located refusal
    _distribution(tmp_path)
    path = {"PYTHONPATH": _path(tmp_path)}

    placed = _run([_tool("lanearena"), "place", str(step), "--json"], tmp_path, **path)
    assert placed.returncode == 0, placed.stderr
    (record,) = json.loads(placed.stdout)
    assert [s["tag"] for s in record["scratch"]] == ["ps"] and [c["tag"] for c in record["counters"]] == ["pc"]

    for tool in ("lanearena-opt", "xdsl-opt"):
        lowered = _run([_tool(tool), str(step), "-p", "lane-arena-place", "-t", "lane-pycuda"], tmp_path, **path)
        assert lowered.returncode == 0, (tool, lowered.stderr)
        assert "dev.launch('mine_mean'" in lowered.stdout, tool

    module = tmp_path / "mean.py"
    compiled = _run([_tool("lanearena"), "compile", str(step), "-o", str(module)], tmp_path, **path)
    assert compiled.returncode == 0, compiled.stderr
    assert "    'mine': " in module.read_text() or not shutil.which("nvcc")  # the kind's PTX, where it can be made
    ran = _run(
        [
            sys.executable,
            "-c",
            "import numpy as np, mine_kinds\n"
            "from lanearena.lowering.device import NumpyDevice\n"
            "from lanearena.lowering.runtime import load\n"
            f"step = load(open({str(module)!r}).read())\n"
            "x = np.ones((3, 2500), np.float32) * np.arange(1, 4, dtype=np.float32)[:, None]\n"
            "print(step.run(NumpyDevice(), {'x': x})['m'].tolist())\n",
        ],
        tmp_path,
        **path,
    )
    assert ran.returncode == 0, ran.stderr
    assert json.loads(ran.stdout) == [2.0, 4.0, 6.0]  # the mean of x + x, row by row


def test_a_broken_entry_point_is_refused_by_name(tmp_path):
    _distribution(tmp_path)
    entry = tmp_path / "mine_kinds-0.1.dist-info" / "entry_points.txt"
    entry.write_text("[lanearena.kinds]\nmine = mine_kinds:NOPE\n")
    step = tmp_path / "mean.mlir"
    step.write_text(MEAN_STEP)
    done = _run([_tool("lanearena"), "place", str(step)], tmp_path, PYTHONPATH=_path(tmp_path))
    assert done.returncode != 0
    assert "entry point 'mine = mine_kinds:NOPE' (lanearena.kinds) does not load" in done.stderr
    assert "Traceback" not in done.stderr
