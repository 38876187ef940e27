"""`lanearena profile`: on a machine without a GPU it says so and exits 0; and what it sums on a GPU, checked here:
each kernel launch of the lowered step is the op's it names, summed by kind, and the bytes they move."""

from __future__ import annotations

import subprocess
import sys

import pytest

from lanearena import api
from lanearena.cli.profile import kinds, label, moved
from lanearena.dialects.base import tensor_type
from lanearena.dialects.kernel import KernelOp
from lanearena.frontend import decoder_step, load
from lanearena.lowering import kernels
from lanearena.lowering.codegen.placed import placed
from lanearena.lowering.runtime import cuda
from lanearena.options import PlaceOptions


def test_without_a_gpu_profile_says_so_and_exits_0():
    if cuda.available() is None:
        pytest.skip("a GPU is here: the profile runs")
    done = subprocess.run([sys.executable, "-m", "lanearena.cli", "profile", "tiny"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("lanearena profile: no GPU to profile on: ")


class _Anywhere:
    """Operands at made-up addresses: enough for a launch op's lowering to say which kernels it launches, op by op,
    away from the lowering of the whole step."""

    AT = 1 << 40

    def __init__(self, two_words: bool):
        self.two = two_words

    def plain(self, tensor) -> int:
        return self.AT

    def quant(self, tensor) -> tuple[int, int, int]:
        return self.AT, self.AT if self.two else 0, self.AT

    def weight(self, tensor) -> tuple[int, int]:
        return self.AT, self.AT if tensor_type(tensor).elem == "i8" else 0

    def scratch(self, tag: str) -> int:
        return self.AT

    counter = scratch


@pytest.mark.parametrize("config", ["tiny", "tiny-moe", "tiny-prefill"])
@pytest.mark.parametrize("numerics", ["f32", "bf16", "int8x2"])
def test_each_launch_names_the_op_that_launches_it(config, numerics):
    """Each op lowered alone, at made-up addresses, launches the kernels that the step's launches naming it launch,
    in order; and the profile's sums count every launch once, an op in the row of its label."""
    p = placed(api.place(decoder_step(load(config, [f"numerics={numerics}"])), PlaceOptions("greedy")))
    ops = [op for op in p.op.body.block.ops if isinstance(op, KernelOp)]
    two = p.op.step_numerics.two_words
    alone = [(i, c.kernel) for i, op in enumerate(ops) for c in kernels.calls(op, _Anywhere(two))]
    assert [(launch.op, launch.kernel) for launch in p.lowered.launches] == alone
    assert all(
        launch.kind == ops[launch.op].kind and launch.op_class is type(ops[launch.op]) for launch in p.lowered.launches
    )
    rows, total = kinds(p.op, p.lowered, [1.0] * len(alone), peak=1e12)
    assert total == len(alone) == sum(r.launches for r in rows)
    for r in rows:
        mine = {i for i, _ in alone if label(ops[i]) == r.kind}
        assert r.ops == len(mine) and r.launches == sum(1 for i, _ in alone if i in mine)


def test_bytes_moved_by_a_product_are_its_weight_and_rows():
    """A gemv of n x k f32 weights moves the weights, x and out; in bf16 numerics two bytes a weight; in int8
    numerics a byte and a scale a block of the weight, x's int8 words and scales."""
    for numerics, weight_bytes, x_bytes in (("f32", 4, 4), ("bf16", 2, 4), ("int8", 1.125, 1.125)):
        unfused = load("tiny", [f"numerics={numerics}", "lane_fuse=false"])  # its products are gemv's
        p = placed(api.place(decoder_step(unfused), PlaceOptions("greedy")))
        gemv = next(op for op in p.op.body.block.ops if isinstance(op, KernelOp) and op.kind == "gemv")
        n, k = gemv.operand("w").type.dims
        out = gemv.operand("out").type.length
        want = weight_bytes * n * k + x_bytes * gemv.operand("x").type.length + 4 * out
        assert moved(gemv, two_words=False) == int(want)


def test_a_gather_moves_the_rows_its_ids_pick_not_the_table():
    """gather(table[V, D], ids[rows]) -> out[rows, D]: the ids, `rows` rows of the table (f32, or Q8_0 under int8)
    and the output, whatever V is."""
    for numerics, row_bytes in (("f32", 4), ("bf16", 2), ("int8", 1.125)):
        p = placed(api.place(decoder_step(load("tiny", [f"numerics={numerics}"])), PlaceOptions("greedy")))
        gather = next(op for op in p.op.body.block.ops if isinstance(op, KernelOp) and op.kind == "gather")
        (vocab, width), rows = gather.operand("table").type.dims, gather.operand("ids").type.length
        assert vocab > rows
        want = 4 * rows + row_bytes * rows * width + 4 * gather.operand("out").type.length
        assert moved(gather, two_words=False) == int(want)
