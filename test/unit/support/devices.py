"""A device for tests that count what the host reads back."""

from __future__ import annotations

import numpy as np

from lanearena.lowering.runtime.device import NumpyDevice


class CountingDevice(NumpyDevice):
    """The numpy runtime, counting the downloads the host makes (those a kernel's twin makes inside a launch are the
    device's own work, not read back) and their bytes."""

    def __init__(self) -> None:
        super().__init__()
        self.reads: list[int] = []
        self._launching = False

    def launch(self, kernel, grid, block, args) -> None:
        self._launching = True
        try:
            super().launch(kernel, grid, block, args)
        finally:
            self._launching = False

    def download(self, addr, dtype, count):
        if not self._launching:
            self.reads.append(int(count) * np.dtype(dtype).itemsize)
        return super().download(addr, dtype, count)
