"""The suite's settings: every Hypothesis test derandomized unless it says otherwise (the same examples on every
run, so that a failure, or a mutant's kill in bench/mutants.py, reproduces); under LANEARENA_NO_SHRINK (which
bench/mutants.py sets) a failing example is reported as found, not shrunk first; under LANEARENA_EXPLORE each run
draws new examples, to look for bugs past the fixed ones (`LANEARENA_EXPLORE=1 python -m pytest -q test/unit`). And
what the suite did not run, said in its summary: the CUDA kernels execute only where PyCUDA finds a GPU
(`test_gpu_matches_numpy`); everywhere else the numpy twins stand in for them."""

from __future__ import annotations

import importlib
import os
import pkgutil

from hypothesis import Phase, settings

import lanearena
from lanearena.lowering.runtime import cuda

# Every module of the package imported before any test draws: Hypothesis mixes into what it draws the constants of
# the local modules loaded so far (its "local constants", read from sys.modules), so without this a test's examples
# change with which other test files a session runs (test_reach's shares moved, e.g. one from 0.10 to 0.03, between
# running it alone and after test_fuzz_kernels), derandomized or not.
for _module in pkgutil.walk_packages(lanearena.__path__, "lanearena."):
    if not _module.name.endswith(".__main__"):  # (which runs the CLI)
        importlib.import_module(_module.name)

settings.register_profile("lanearena", derandomize=True, deadline=None)
settings.register_profile(
    "unshrunk", settings.get_profile("lanearena"), phases=[Phase.explicit, Phase.reuse, Phase.generate]
)
settings.register_profile("explore", settings.get_profile("lanearena"), derandomize=False)
if os.environ.get("LANEARENA_NO_SHRINK"):
    settings.load_profile("unshrunk")
else:
    settings.load_profile("explore" if os.environ.get("LANEARENA_EXPLORE") else "lanearena")

GPU_TEST = "test_end_to_end.py::test_gpu_matches_numpy"


def pytest_terminal_summary(terminalreporter) -> None:
    ran = any(r.nodeid.endswith(GPU_TEST) for r in terminalreporter.stats.get("passed", []))
    if ran:
        terminalreporter.write_line("CUDA kernels: executed on the GPU and compared with the numpy runtime.")
        return
    ran_or_skipped = (r for key, reports in terminalreporter.stats.items() if key != "deselected" for r in reports)
    selected = any(GPU_TEST in getattr(r, "nodeid", "") for r in ran_or_skipped)
    why = (cuda.available() or "the GPU test failed") if selected else "the GPU test was not selected"
    terminalreporter.write_line(
        f"CUDA kernels were not executed: {why}. Every step ran on the numpy runtime's twins; the PTX was compiled "
        "and assembled, not run (on a GPU machine: bash bench/gpu_check.sh).",
        yellow=True,
    )
