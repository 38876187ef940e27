"""The device of the emitted modules on a GPU: PyCUDA memory and the kernels' PTX, with `NumpyDevice`'s interface.
PyCUDA is the optional `gpu` extra; it builds only where a CUDA driver is.

The PTX (compute_80, ISA 8.0, see `kernels.ptx`: the module a printed step carries, else compiled from the kernel's
CUDA source and cached) is compiled for the GPU found by the driver's JIT when a module is first loaded; a GPU older
than Ampere or a driver older than CUDA 12.0 is refused up front, saying which was found."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from lanearena.lowering.kernels import ptx, source


def available() -> str | None:
    """None where a CUDA device can be used here, else why not (for messages and skips)."""
    try:
        import pycuda.driver as cuda
    except ImportError:
        return "PyCUDA is not installed (pip install '.[gpu]' on a machine with a CUDA driver)"
    try:
        cuda.init()
        if cuda.Device.count() == 0:
            return "no CUDA device"
        return unusable(cuda, cuda.Device(0))
    except cuda.Error as e:
        return f"CUDA is not usable: {e}"


def device_memory() -> int:
    """The bytes of memory of the GPU that `CudaDevice` runs on (device 0), read without a context."""
    import pycuda.driver as cuda

    cuda.init()
    return int(cuda.Device(0).total_memory())


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
    """Device memory from `cuda.mem_alloc`, kernels from their PTX (`ptx.ptx_source`: the modules a printed step
    carries, else their sources') loaded once a module, a
    variant's kernel by its own name (JIT-compiled by the driver for the GPU it found, which `found` names).

    It works on the device's primary context (`pycuda.autoprimaryctx`: retained and made current, never a context of
    its own as `pycuda.autoinit` makes), the one PyTorch, CuPy and the CUDA runtime use, so a step runs in a process
    where they hold the GPU too. `stream` is the stream a launch plan and a CUDA graph run on."""

    def __init__(self) -> None:
        import pycuda.autoprimaryctx  # (retains the primary context and makes it current)
        import pycuda.driver as cuda

        self.driver = cuda
        self.found = found(cuda, pycuda.autoprimaryctx.device)
        if why := unusable(cuda, pycuda.autoprimaryctx.device):
            raise RuntimeError(why)
        self.device = pycuda.autoprimaryctx.device
        self.stream = cuda.Stream()
        # PyCUDA's DeviceAllocation, Module and Function (PyCUDA ships no type information).
        self._allocs: list[Any] = []
        self._modules: dict[str, Any] = {}
        self._functions: dict[str, Any] = {}
        self._carried: dict[str, str] = {}

    def carry(self, modules: Mapping[str, str]) -> None:
        """PTX modules a printed step carries (`Lowered.ptx`, by module name): the kernels they define load from them
        on this device, not from their sources (a kernel loaded already stays as it was loaded)."""
        self._carried.update(modules)

    def alloc(self, nbytes: int, zero: bool = False) -> int:
        a = self.driver.mem_alloc(max(nbytes, 1))
        self._allocs.append(a)
        if zero and nbytes:
            self.driver.memset_d8(a, 0, nbytes)
        return int(a)

    def fill(self, addr: int, nbytes: int, byte: int) -> None:
        self.driver.memset_d8(addr, byte, nbytes)

    def upload(self, addr: int, array: np.ndarray) -> None:
        self.driver.memcpy_htod(addr, np.ascontiguousarray(array))

    def download(self, addr: int, dtype, count: int) -> np.ndarray:
        out = np.empty(count, dtype)
        self.driver.memcpy_dtoh(out, addr)
        return out

    def launch(self, kernel: str, grid: tuple, block: tuple, args: tuple) -> None:
        self._function(kernel)(*args, grid=tuple(grid), block=tuple(block))

    def launcher(self, kernel: str):
        """PyCUDA's launch of `kernel` from a packed parameter buffer, `(grid, block, params, shared_bytes, stream)`:
        the driver's cuLaunchKernel with the buffer, and nothing else (what `launch_plan.LaunchPlan` replays)."""
        return self._function(kernel)._launch_kernel

    def _function(self, kernel: str):
        f = self._functions.get(kernel)
        if f is None:
            text = ptx.ptx_source(kernel, self._carried)
            module = self._modules.get(text)
            if module is None:
                try:
                    module = self.driver.module_from_buffer(text.encode())
                except self.driver.Error as e:
                    raise RuntimeError(f"the driver's JIT refused the PTX of {kernel} on {self.found}: {e}") from e
                self._modules[text] = module
            f = self._functions[kernel] = module.get_function(source.variant(kernel)[0])
        return f

    def synchronize(self) -> None:
        self.driver.Context.synchronize()

    def bandwidth(self) -> tuple[float, str]:
        """The GPU's memory bandwidth in bytes a second, and where the figure comes from (see `bandwidth`)."""
        return bandwidth(self.device.name(), self.device.get_attributes(), self.driver.device_attribute)


PEAK_BANDWIDTH = {
    "H200": 4.8e12,
    "H100 SXM": 3.35e12,
    "H100 80GB HBM3": 3.35e12,
    "H100 PCIe": 2.0e12,
    "H100 NVL": 3.9e12,
    "A100-SXM4-80GB": 2.039e12,
    "A100 80GB PCIe": 1.935e12,
    "A100-SXM4-40GB": 1.555e12,
    "A100-PCIE-40GB": 1.555e12,
    "L40S": 0.864e12,
    "RTX 4090": 1.008e12,
}
"""NVIDIA's memory bandwidth figures, bytes a second, by a part of the GPU's name."""


def bandwidth(name: str, attributes: dict, keys) -> tuple[float, str]:
    """The memory bandwidth of GPU `name`: NVIDIA's figure where `PEAK_BANDWIDTH` knows the GPU, else from its
    attributes (memory clock x bus width x 2, as DDR moves two words a clock), and which of the two it is."""
    for part, peak in PEAK_BANDWIDTH.items():
        if part in name:
            return peak, f"NVIDIA's figure for the {part}"
    clock_khz, bits = attributes.get(keys.MEMORY_CLOCK_RATE), attributes.get(keys.GLOBAL_MEMORY_BUS_WIDTH)
    if not clock_khz or not bits:
        raise RuntimeError(f"{name}: its memory bandwidth is neither known by name nor given by its attributes")
    return clock_khz * 1e3 * 2 * bits / 8, f"device attributes: {clock_khz / 1e3:.0f} MHz x {bits} bits x 2"
