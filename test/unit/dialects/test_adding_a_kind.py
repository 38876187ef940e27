"""Adding a launch kind from outside the package, as a model compiler does: the worked example of
`docs/adding-a-kind.md`. One op class (in a dialect of its own), its kernel (CUDA C, compiled to PTX by the package's
path) and the kernel's numpy twin; nothing of lanearena changes, and the kind is built, placed, verified, printed,
parsed, lowered and run like the package's own."""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import pytest
from xdsl.ir import Dialect
from xdsl.irdl import irdl_op_definition, operand_def

from lanearena import api
from lanearena.dialects.attrs import TensorType
from lanearena.dialects.kernel import KernelOp, arg, signature
from lanearena.frontend import StepBuilder
from lanearena.lowering.compile import placed
from lanearena.lowering.device import NumpyDevice
from lanearena.lowering.kernels import ptx, source, twin
from lanearena.lowering.kernels.base import THREADS, KernelCall, Operands, cdiv, i32, kernel, lowers, ptr
from lanearena.lowering.runtime import load
from lanearena.model import Numerics, Scratch
from lanearena.options import PlaceOptions

# --- The kind: its op class ----------------------------------------------------------------------------------------

BLOCK = 1024
"""Values of a row one block of the kernel sums."""


@irdl_op_definition
class MeanOp(KernelOp):
    """`mine.mean %x -> %out`: each row's mean, over the rows of `x` [rows, width] into `out` [rows], in blocks of
    `BLOCK` values whose sums meet in scratch."""

    name = "mine.mean"
    x = operand_def(TensorType)
    out = operand_def(TensorType)
    WRITES: ClassVar = ("out",)
    assembly_format = signature([arg("x")], [arg("out")])

    def verify_(self) -> None:
        super().verify_()
        width = self.dims("x")[-1]
        if self.length("out") * width != self.length("x"):
            raise self.fail(f"out '{self.tensor('out').tensor_name}' is not one value a row of {width} of x")

    def scratch(self, numerics: Numerics) -> list[Scratch]:
        """Each block's sum, and each row's count of blocks arrived (a counter: zero before, left zero)."""
        width = self.dims("x")[-1]
        rows, blocks = self.length("out"), cdiv(width, BLOCK)
        return [Scratch("ps", "f32", rows * blocks * 4), Scratch("pc", "i32", rows * 4, counter=True)]


MINE = Dialect("mine", [MeanOp])

# --- Its kernel, and the calls one launch makes ---------------------------------------------------------------------

MEAN_CU = r"""
#define BLOCK 1024
extern "C" __global__ void mine_mean(float *out, const float *x, float *parts, int *arrived, int width) {
    __shared__ float sums[256];
    __shared__ bool last;
    int r = blockIdx.y, b = blockIdx.x, blocks = gridDim.x;
    const float *row = x + (long long)r * width;
    float s = 0.0f;
    for (int i = b * BLOCK + threadIdx.x; i < min(width, (b + 1) * BLOCK); i += blockDim.x) s += row[i];
    sums[threadIdx.x] = s;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k /= 2) {
        if (threadIdx.x < k) sums[threadIdx.x] += sums[threadIdx.x + k];
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        parts[r * blocks + b] = sums[0];
        __threadfence();
        last = atomicAdd(&arrived[r], 1) == blocks - 1;
    }
    __syncthreads();
    if (last && threadIdx.x == 0) {
        float total = 0.0f;
        for (int k = 0; k < blocks; ++k) total += __ldcg(&parts[r * blocks + k]);
        out[r] = total / width;
        arrived[r] = 0;
    }
}
"""


@lowers(MeanOp)
def mean_calls(op: MeanOp, at: Operands) -> list[KernelCall]:
    """A block a `BLOCK` values of a row; the last of a row's blocks to arrive adds their sums."""
    x, out = op.operand("x"), op.operand("out")
    width = op.dims("x")[-1]
    args = (ptr(at.plain(out)), ptr(at.plain(x)), ptr(at.scratch("ps")), ptr(at.counter("pc")), i32(width))
    return [KernelCall("mine_mean", (cdiv(width, BLOCK), op.length("out"), 1), THREADS, args)]


@kernel
def mine_mean(dev, grid, block, out, x, parts, arrived, width) -> None:
    """The kernel's numpy twin: its blocks one at a time, each summing its values into its part of the scratch."""
    twin.check_block("mine_mean", block)
    blocks, rows, width = grid[0], grid[1], int(width)
    counts = twin.Counters(dev, "mine_mean", arrived, rows)
    for r, b in np.ndindex(rows, blocks):
        lo, hi = b * BLOCK, min(width, (b + 1) * BLOCK)
        part = dev.download(int(x) + (r * width + lo) * 4, twin.F32, hi - lo).sum(dtype=twin.F32)
        dev.upload(int(parts) + (r * blocks + b) * 4, np.array([part], twin.F32))
        if counts.arrive(slice(r, r + 1), blocks):
            total = twin.sum_in_order(dev.download(int(parts) + r * blocks * 4, twin.F32, blocks))
            dev.upload(int(out) + r * 4, np.array([total / twin.F32(width)], twin.F32))


@pytest.fixture(scope="module")
def mean_kind():
    """The kind's source registered with the lowering for these tests, and taken back after."""
    source.add_source("mine", MEAN_CU)
    yield MeanOp
    source.add_source("mine", "")


# --- The kind in use -------------------------------------------------------------------------------------------------


def _step():
    """x + x into h, and h's row means into m: h lives only inside the step, beside the mean's scratch."""
    b = StepBuilder("mean", "f32")
    x = b.input("x", (3, 2500))
    h = b.tensor("h", (3, 2500))
    m = b.tensor("m", 3)
    b.launch("binary", [x, x], [h])
    b.launch(MeanOp, [h], [m])
    b.output(m)
    return b.module()


def _step_placed():
    module = api.place(_step(), PlaceOptions("best"))
    api.verify(module)
    return module


def test_a_kind_added_outside_is_placed_lowered_and_run(mean_kind):
    text = str(_step_placed())
    assert "mine.mean %h -> %m scratch(%ps, %pc)" in text
    again = api.parse(text, "mean.mlir", dialects=[MINE])
    assert str(again) == text
    x = (3 + np.random.default_rng(7).standard_normal((3, 2500))).astype(np.float32)
    got = load(placed(again).source()).run(NumpyDevice(), {"x": x})["m"]
    want = (2 * x.astype(np.float64)).mean(axis=1)
    assert np.abs(got - want).max() <= 1e-6 * np.abs(want).max()  # f32 sums of 1024 values, then of 3


def test_its_scratch_is_placed_in_the_arena_and_its_counter_apart(mean_kind):
    module = _step_placed()
    ((_, plan),) = api.placed_steps(module)
    assert plan is not None
    assert [(s.launch, s.tag, s.bytes) for s in plan.scratch] == [(1, "ps", 256)]  # 3 rows of 3 sums, aligned
    assert [(c.launch, c.tag, c.bytes) for c in plan.counters] == [(1, "pc", 3 * 4)]


def test_its_shape_checks_run_with_the_kinds_of_the_package(mean_kind):
    b = StepBuilder("bad", "f32")
    x = b.input("x", (3, 2500))
    m = b.tensor("m", 4)
    with pytest.raises(ValueError, match=r"launch #0: mine\.mean: out 'm' is not one value a row of 2500 of x"):
        b.launch(MeanOp, [x], [m])


@pytest.mark.skipif(not ptx.can_compile(), reason="nvcc is not on PATH")
def test_its_kernel_is_compiled_by_the_packages_path_and_printed_with_the_step(mean_kind):
    """The kind's source takes the package's own path to PTX (compute_80 at ISA 8.0, cached, checked by ptxas) and
    a printed step carries its module beside the package's."""
    text = ptx.ptx_source("mine_mean")
    assert ".entry mine_mean(" in text and ptx.isa(text) <= ptx.PTX_ISA
    assert source.signature("mine_mean") == (np.uint64,) * 4 + (np.int32,)
    printed = placed(_step_placed()).source(embed_ptx=True)
    assert "    'mine': " in printed and "    'pointwise': " in printed  # mine_mean's module, and binary's
