"""Which device a run gets: the GPU through PyCUDA where one can be used, else the numpy runtime."""

from __future__ import annotations

from lanearena.lowering.runtime import cuda
from lanearena.lowering.runtime.device import NumpyDevice


def resolve_backend(backend: str = "auto") -> str:
    """The backend `backend` names: 'numpy', 'cuda', or for 'auto' CUDA where PyCUDA and a GPU are, else numpy.
    Asking for 'cuda' where it cannot run is a `RuntimeError` saying why."""
    if backend == "numpy":
        return "numpy"
    why = cuda.available()
    if why is None:
        return "cuda"
    if backend == "cuda":
        raise RuntimeError(f"backend cuda: {why}")
    return "numpy"


def new_device(backend: str = "auto"):
    """A fresh device of `backend` (see `resolve_backend`)."""
    return cuda.CudaDevice() if resolve_backend(backend) == "cuda" else NumpyDevice()
