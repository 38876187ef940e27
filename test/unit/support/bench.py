"""The scripts of bench/ as modules, for the tests that run them as CI must (bench/ is no package)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

BENCH = Path(__file__).resolve().parents[3] / "bench"


def script(name: str) -> ModuleType:
    """bench/<name>.py, imported (once) as module `bench_<name>`."""
    key = f"bench_{name}"
    if key not in sys.modules:
        spec = importlib.util.spec_from_file_location(key, BENCH / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[key] = module  # (dataclasses look their module up)
        spec.loader.exec_module(module)
    return sys.modules[key]
