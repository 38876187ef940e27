"""What the suite did not run, said in its summary: the CUDA kernels execute only where PyCUDA finds a GPU
(`test_gpu_matches_numpy`); everywhere else the numpy twins stand in for them."""

from __future__ import annotations

from lanearena.lowering import cuda

GPU_TEST = "test_end_to_end.py::test_gpu_matches_numpy"


def pytest_terminal_summary(terminalreporter) -> None:
    ran = any(r.nodeid.endswith(GPU_TEST) for r in terminalreporter.stats.get("passed", []))
    if ran:
        terminalreporter.write_line("CUDA kernels: executed on the GPU and compared with the numpy runtime.")
        return
    selected = any(GPU_TEST in getattr(r, "nodeid", "") for reports in terminalreporter.stats.values() for r in reports)
    why = (cuda.available() or "the GPU test failed") if selected else "the GPU test was not selected"
    terminalreporter.write_line(
        f"CUDA kernels were not executed: {why}. Every step ran on the numpy runtime's twins; the PTX was compiled "
        "and assembled, not run (on a GPU machine: bash bench/gpu_check.sh).",
        yellow=True,
    )
