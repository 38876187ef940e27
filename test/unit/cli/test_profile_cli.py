"""`lanearena profile`: on a machine without a GPU it says so and exits 0; and what it sums on a GPU, checked here:
the launch ops own every kernel launch of the emitted module, in order, and the bytes they move."""

from __future__ import annotations

import subprocess
import sys

import pytest

from lanearena import api
from lanearena.cli.profile import label, moved, owners
from lanearena.dialects.kernel import KernelOp
from lanearena.frontend import decoder_step, load
from lanearena.lowering import cuda
from lanearena.lowering.compile import placed
from lanearena.lowering.plan import record
from lanearena.lowering.runtime import load as load_module
from lanearena.options import PlaceOptions


def test_without_a_gpu_profile_says_so_and_exits_0():
    if cuda.available() is None:
        pytest.skip("a GPU is here: the profile runs")
    done = subprocess.run([sys.executable, "-m", "lanearena.cli", "profile", "tiny"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("lanearena profile: no GPU to profile on: ")


@pytest.mark.parametrize("config", ["tiny", "tiny-moe", "tiny-prefill"])
@pytest.mark.parametrize("numerics", ["f32", "bf16", "int8x2"])
def test_the_ops_own_every_launch_in_order(config, numerics):
    """Each op's share of the launches, told by its lowering at made-up addresses, is the module's launches at the
    real ones: the same count, and the same kernels in the same order."""
    p = placed(api.place(decoder_step(load(config, [f"numerics={numerics}"])), PlaceOptions("greedy")))
    emitted = load_module(p.source())
    launches = record(emitted, [(k + 1) << 36 for k in range(len(emitted.BUFFERS))])
    who = owners(p.op)
    ops = [op for op in p.op.body.block.ops if isinstance(op, KernelOp)]
    assert len(who) == len(launches) == emitted.KERNEL_LAUNCHES
    assert [name for name, _ in who] == [label(ops[i]) for _, i in who]
    assert sorted({i for _, i in who}) == list(range(len(ops)))  # every op launches


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
