"""Place and verify a chain of launches (each reads the tensor the one before wrote): how the passes scale with the
launches of a step. Prints one row a length; the ratio against the shortest shows whether the work grows linearly.

    python bench/chain.py [LAUNCHES ...]        (default 5000 10000 20000)
"""

from __future__ import annotations

import sys
import time

from lanearena import api
from lanearena.frontend import StepBuilder
from lanearena.model import Scratch
from lanearena.options import PlaceOptions


def chain(n: int):
    """A step of `n` launches: x -> t0 -> t1 -> ... -> y, every tenth launch with scratch and a counter."""
    b = StepBuilder("chain", numerics="f32")
    prev = b.input("x", (256,))
    for i in range(n - 1):
        t = b.tensor(f"t{i}", (256,))
        scratch = [Scratch("s", "f32", 1024), Scratch("c", "i32", 4, counter=True)] if i % 10 == 0 else []
        b.generic(f"k{i}", ins=[prev], outs=[t], scratch=scratch)
        prev = t
    y = b.tensor("y", (256,))
    b.generic("last", ins=[prev], outs=[y])
    b.output(y)
    return b.module()


def timed(f):
    start = time.perf_counter()
    out = f()
    return out, time.perf_counter() - start


def main(argv: list[str]) -> int:
    sizes = [int(a) for a in argv] or [5000, 10000, 20000]
    print("| launches | build | place (greedy) | verify | print + parse | total | per launch |")
    print("|---|---|---|---|---|---|---|")
    for n in sizes:
        # Each lambda binds this round's values (run at once, but the binding says so).
        module, build = timed(lambda n=n: chain(n))
        _, place = timed(lambda m=module: api.place(m, PlaceOptions("greedy")))
        _, verify = timed(lambda m=module: api.verify(m))
        _, text = timed(lambda m=module: api.parse(str(m)))
        total = place + verify + text
        print(
            f"| {n} | {build:.2f} s | {place:.2f} s | {verify:.2f} s | {text:.2f} s | {total:.2f} s | "
            f"{total / n * 1e6:.0f} us |",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
