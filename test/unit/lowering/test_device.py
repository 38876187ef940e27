"""The numpy device: its memory (aligned, disjoint, bounds-checked allocations) and its launches (the twins, with
the arguments checked as the kernels take them)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from lanearena.lowering.runtime.device import DeviceError, NumpyDevice
from lanearena.model import ALIGN


def test_allocations_are_aligned_disjoint_and_never_at_zero():
    dev = NumpyDevice()
    spans = [(a, a + n) for n in (1, 300, 0, 4096, 17) for a in [dev.alloc(n)]]
    assert all(a % ALIGN == 0 and a > 0 for a, _ in spans)
    assert all(e1 < s2 for (_, e1), (s2, _) in itertools.pairwise(spans))


def test_memory_is_poisoned_unless_zeroed():
    dev = NumpyDevice()
    assert np.isnan(dev.download(dev.alloc(64), np.float32, 16)).all()
    assert not dev.download(dev.alloc(64, zero=True), np.uint8, 64).any()
    a = dev.alloc(64, zero=True)
    dev.fill(a + 8, 8, 0xFF)
    assert np.isnan(dev.download(a, np.float32, 16)[2:4]).all() and not dev.download(a, np.float32, 2).any()


def test_upload_download_and_view():
    dev = NumpyDevice()
    a = dev.alloc(40)
    dev.upload(a, np.arange(10, dtype=np.int32))
    got = dev.download(a + 8, np.int32, 3)
    got[:] = 0  # a copy
    assert list(dev.download(a + 8, np.int32, 3)) == [2, 3, 4]
    dev.view(a, np.int32, 10)[9] = 99  # a view
    assert dev.download(a + 36, np.int32, 1)[0] == 99


@pytest.mark.parametrize("offset,count", [(0, 11), (36, 2), (40, 1), (-4, 1)])
def test_accesses_outside_an_allocation_are_refused(offset, count):
    dev = NumpyDevice()
    a = dev.alloc(40)
    with pytest.raises(DeviceError, match=rf"{a + offset:#x}|allocation {a:#x}"):
        dev.view(a + offset, np.int32, count)
    with pytest.raises(DeviceError):
        dev.upload(a + offset, np.zeros(count, np.int32))


def test_an_access_names_the_allocation_it_overruns():
    dev = NumpyDevice()
    dev.alloc(100)
    b = dev.alloc(64)
    with pytest.raises(DeviceError, match=f"at {b + 60:#x} run outside allocation {b:#x} of 64 bytes"):
        dev.download(b + 60, np.float32, 2)


def test_misaligned_access_is_refused():
    dev = NumpyDevice()
    a = dev.alloc(64)
    with pytest.raises(DeviceError, match="not aligned"):
        dev.view(a + 2, np.float32, 1)


def test_launch_runs_the_twin():
    dev = NumpyDevice()
    n = 300
    a, b, out = (dev.alloc(n * 4) for _ in range(3))
    dev.upload(a, np.arange(n, dtype=np.float32))
    dev.upload(b, np.full(n, 2, np.float32))
    dev.launch("binary", (2, 1, 1), (256, 1, 1), (np.uint64(out), np.uint64(a), np.uint64(b), np.int32(n), np.int32(1)))
    assert (dev.download(out, np.float32, n) == np.arange(n) * 2).all()


@pytest.mark.parametrize(
    "kernel,grid,block,args,message",
    [
        ("nothing", (1, 1, 1), (256, 1, 1), (), "no kernel"),
        ("binary", (1, 1, 1), (256, 1, 1), (np.uint64(1),) * 3 + (5, np.int32(0)), "takes"),
        ("binary", (1, 1, 1), (256, 1, 1), (np.uint64(1),) * 3 + (np.int32(5),), "takes"),
        ("binary", (1, 1), (256, 1, 1), (), "three dimensions"),
        ("binary", (1, 1, 1), (2048, 1, 1), (), "1024 threads"),
        ("binary", (0, 1, 1), (256, 1, 1), (), "out of range"),
    ],
)
def test_launches_the_kernel_would_refuse_are_refused(kernel, grid, block, args, message):
    with pytest.raises(DeviceError, match=message):
        NumpyDevice().launch(kernel, grid, block, args)
