"""The device of the emitted modules on a GPU: PyCUDA memory and the kernels' PTX, with `NumpyDevice`'s interface.
PyCUDA is the optional `gpu` extra; it builds only where a CUDA driver is."""

from __future__ import annotations

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
    except cuda.Error as e:
        return f"CUDA is not usable: {e}"
    return None


class CudaDevice:
    """Device memory from `cuda.mem_alloc`, kernels from the package's PTX loaded once a module."""

    def __init__(self) -> None:
        import pycuda.autoinit  # noqa: F401  (creates the context)
        import pycuda.driver as cuda

        self._cuda = cuda
        self._allocs = []
        self._modules = {}
        self._functions = {}

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
                module = self._modules[source] = self._cuda.module_from_buffer(source.encode())
            f = self._functions[kernel] = module.get_function(kernel)
        f(*args, grid=tuple(grid), block=tuple(block))

    def synchronize(self) -> None:
        self._cuda.Context.synchronize()
