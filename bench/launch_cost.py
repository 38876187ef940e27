"""The host's cost a launch of a decode step: the plain path (`launches(dev, b)`, arguments built and handed over a
launch at a time) against the static launch plan (`plan.LaunchPlan`, packed once), both on a device whose launches
do nothing, measured in the same run, interleaved, so that only the Python each path spends a launch is counted.

    python bench/launch_cost.py qwen3-0.6b --set numerics=int8

Prints each path's microseconds a launch and their ratio (the issue's target: the plan at most a third)."""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from lanearena import api
from lanearena.frontend import decoder_step, load
from lanearena.lowering.compile import placed
from lanearena.lowering.plan import LaunchPlan
from lanearena.lowering.runtime import load as load_module
from lanearena.options import PlaceOptions


class NullDevice:
    """A device whose launches do nothing, either way they are made."""

    def launch(self, kernel: str, grid: tuple, block: tuple, args: tuple) -> None:
        pass

    def launcher(self, kernel: str):
        return self._nothing

    @staticmethod
    def _nothing(grid, block, params, shared, stream) -> None:
        pass


def host_cost(module, rounds: int = 50) -> tuple[float, float]:
    """Median microseconds a launch of emitted `module`'s step on the plain path and replayed as a plan."""
    dev = NullDevice()
    b = [(k + 1) << 36 for k in range(len(module.BUFFERS))]
    plan = LaunchPlan(dev, module, b)
    plain, planned = [], []
    for _ in range(rounds):
        t0 = time.perf_counter()
        module.launches(dev, b)
        t1 = time.perf_counter()
        plan.replay()
        t2 = time.perf_counter()
        plain.append(t1 - t0)
        planned.append(t2 - t1)
    n = len(plan)
    return statistics.median(plain) * 1e6 / n, statistics.median(planned) * 1e6 / n


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("configs", nargs="*", default=["tiny", "qwen3-0.6b"])
    p.add_argument("--set", dest="settings", action="append", default=[], metavar="KEY=VALUE")
    p.add_argument("--rounds", type=int, default=50)
    args = p.parse_args(argv)
    print(f"{'config':<36} {'launches':>8} {'plain us/launch':>16} {'plan us/launch':>15} {'plan/plain':>10}")
    for config in args.configs:
        module = decoder_step(load(config, args.settings))
        api.place(module, PlaceOptions("greedy"))
        emitted = load_module(placed(module).source())
        plain, planned = host_cost(emitted, args.rounds)
        print(f"{config:<36} {emitted.KERNEL_LAUNCHES:>8} {plain:16.2f} {planned:15.3f} {planned / plain:10.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
