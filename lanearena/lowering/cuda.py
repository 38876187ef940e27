"""The device of the emitted modules on a GPU: PyCUDA memory and the kernels' PTX, with `NumpyDevice`'s interface.
PyCUDA is the optional `gpu` extra; it builds only where a CUDA driver is.

The PTX (compute_80, ISA 8.0, see `kernels.ptx`) is compiled for the GPU found by the driver's JIT when a module is
first loaded; a GPU older than Ampere or a driver older than CUDA 12.0 is refused up front, saying which was found."""

from __future__ import annotations

from typing import Any

import numpy as np

from lanearena.lowering.kernels import ptx


def available() -> str | None:
    """None where a CUDA device can be used here, else why not (for messages and skips)."""
    try:
        import pycuda.driver as cuda
    except ImportError:
        return "PyCUDA is not installed (pip install -e '.[gpu]' on a machine with a CUDA driver)"
    try:
        cuda.init()
        if cuda.Device.count() == 0:
            return "no CUDA device"
        return unusable(cuda, cuda.Device(0))
    except cuda.Error as e:
        return f"CUDA is not usable: {e}"


MIN_DRIVER = 12000
"""The oldest CUDA driver (as `cuDriverGetVersion` counts: 12.0) whose JIT takes the kernels' PTX ISA 8.0."""

MIN_CAPABILITY = (8, 0)
"""The oldest GPU the PTX targets: Ampere (sm_80)."""


def found(cuda, device) -> str:
    """Which GPU and driver PyCUDA's `cuda` module sees for `device`: `NVIDIA H200 (sm_90), CUDA driver 12.4`."""
    major, minor = device.compute_capability()
    version = cuda.get_driver_version()
    return f"{device.name()} (sm_{major}{minor}), CUDA driver {version // 1000}.{version % 1000 // 10}"


def unusable(cuda, device) -> str | None:
    """Why the kernels' PTX cannot run on `device` under this driver, or None where it can."""
    if device.compute_capability() < MIN_CAPABILITY:
        return f"{found(cuda, device)}: the kernels need an Ampere GPU (sm_80) or later"
    if cuda.get_driver_version() < MIN_DRIVER:
        return f"{found(cuda, device)}: the kernels' PTX (ISA 8.0) needs a CUDA 12.0 driver or later"
    return None


class CudaDevice:
    """Device memory from `cuda.mem_alloc`, kernels from the package's PTX loaded once a module (JIT-compiled by the
    driver for the GPU it found, which `found` names)."""

    def __init__(self) -> None:
        import pycuda.autoinit  # (creates the context)
        import pycuda.driver as cuda

        self._cuda = cuda
        self.found = found(cuda, pycuda.autoinit.device)
        if why := unusable(cuda, pycuda.autoinit.device):
            raise RuntimeError(why)
        # PyCUDA's DeviceAllocation, Module and Function (PyCUDA ships no type information).
        self._allocs: list[Any] = []
        self._modules: dict[str, Any] = {}
        self._functions: dict[str, Any] = {}

    def alloc(self, nbytes: int, zero: bool = False) -> int:
        a = self._cuda.mem_alloc(max(nbytes, 1))
        self._allocs.append(a)
        if zero and nbytes:
            self._cuda.memset_d8(a, 0, nbytes)
        return int(a)

    def fill(self, addr: int, nbytes: int, byte: int) -> None:
        self._cuda.memset_d8(addr, byte, nbytes)

    def upload(self, addr: int, array: np.ndarray) -> None:
        self._cuda.memcpy_htod(addr, np.ascontiguousarray(array))

    def download(self, addr: int, dtype, count: int) -> np.ndarray:
        out = np.empty(count, dtype)
        self._cuda.memcpy_dtoh(out, addr)
        return out

    def launch(self, kernel: str, grid: tuple, block: tuple, args: tuple) -> None:
        f = self._functions.get(kernel)
        if f is None:
            source = ptx.ptx_source(kernel)
            module = self._modules.get(source)
            if module is None:
                try:
                    module = self._cuda.module_from_buffer(source.encode())
                except self._cuda.Error as e:
                    raise RuntimeError(f"the driver's JIT refused the PTX of {kernel} on {self.found}: {e}") from e
                self._modules[source] = module
            f = self._functions[kernel] = module.get_function(kernel)
        f(*args, grid=tuple(grid), block=tuple(block))

    def synchronize(self) -> None:
        self._cuda.Context.synchronize()
