"""torch-mlir and iree-opt's own output (`test/filecheck/memref/run/torch_*.mlir`, each with its provenance and
torch's result on the arguments `lanearena-run --seed 0` draws): every buffer but the result is placed, the arena
is at the lower bound, the tests' own check of the placed IR finds no two live buffers sharing a byte, and the
function gives the same placed and unplaced, within 1e-3 of torch."""

from __future__ import annotations

import json
from pathlib import Path

import numpy
import pytest
from xdsl.dialects import func, memref

from lanearena.memref.lifetimes import ARENA_ATTR
from lanearena.memref.place import OWN_ATTR, MemrefArenaPlace
from lanearena.tools.diagnose import parse_located, verify_located
from lanearena.tools.run import LanearenaRunMain, run_function

from .shared_bytes import faults

RUN = Path(__file__).resolve().parents[2] / "filecheck" / "memref" / "run"
FILES = sorted(RUN.glob("torch_*.mlir"))


def test_there_are_compiler_outputs():
    assert {f.stem for f in FILES} >= {"torch_mlp_linalg", "torch_mlp_loops", "torch_llama_linalg"}


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_placed_at_the_bound_and_as_torch(path):
    text = path.read_text()
    (torch_line,) = [line for line in text.splitlines() if line.startswith("// TORCH: ")]
    expected = numpy.array(json.loads(torch_line.removeprefix("// TORCH: ")))
    ctx = LanearenaRunMain([]).ctx
    module = parse_located(ctx, text, path.name)
    MemrefArenaPlace().apply(ctx, module)
    verify_located(module)
    main = next(op for op in module.walk() if isinstance(op, func.FuncOp) and op.sym_name.data == "main")
    kept = [op.attributes[OWN_ATTR].data for op in main.walk() if OWN_ATTR in op.attributes]
    assert kept == ["escapes through func.return"]
    arena = next(op for op in main.walk() if isinstance(op, memref.AllocOp) and ARENA_ATTR in op.attributes)
    assert arena.attributes[ARENA_ATTR] == arena.attributes["lanearena.lower_bound"]
    assert faults(main, 256) == []
    before, _ = run_function(text, seed=0)
    after, _ = run_function(str(module), seed=0)
    assert numpy.array_equal(before[0], after[0])
    assert numpy.abs(before[0].ravel() - expected).max() < 1e-3
