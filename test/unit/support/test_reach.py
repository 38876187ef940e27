"""The generators reach every rule they are there to test, measured (by `reach`, apart from the package) over the
steps they draw: a floor under the share of drawn steps that exercise each rule, so that a change to a generator
cannot quietly stop testing one. `pytest -s` prints the shares."""

from __future__ import annotations

from collections import Counter

from hypothesis import HealthCheck, given, settings

from lanearena.passes.convert import step_of, steps

from .kernel_steps import KINDS, kernel_steps
from .reach import lowering_rules, placement_rules
from .strategies import steps as placement_steps

DRAWN = 300
"""Steps drawn from each generator."""

PLACEMENT_FLOORS = {
    "a read through a view ends a placed array's life": 0.20,
    "a view of a view touched": 0.15,
    "a quantized view in place": 0.05,
    "a quantized view of its own array": 0.05,
    "a quantized view half a block off": 0.03,
    "parts that join placed": 0.05,
    "parts that leave a gap": 0.15,
    "parts that leave a one-element gap": 0.06,
    "parts that cover a quantized array": 0.01,
    "an array kept for being unsafe": 0.20,
    "an output touched": 0.10,
    "an input": 0.20,
    "scratch": 0.40,
    "a counter": 0.35,
    **{f"numerics {n}": 0.08 for n in ("int8", "int8x2")},
    **{f"numerics {n}": 0.04 for n in ("f32", "bf16")},
}
"""The share of `strategies.steps()` that must exercise each placement rule: under the least that six samples of
300 measured (Hypothesis draws no independent samples, so a share moves a lot from one sample to another); the
mean of the six is about twice each floor."""

LOWERING_FLOORS = {
    "a read through a view ends a placed array's life": 0.50,
    "a view of a view, both at an offset": 0.20,
    "a quantized view in place at a block past the first": 0.12,
    "a quantized view of its own array": 0.12,
    "a quantized view half a block off": 0.06,
    "parts that join placed": 0.06,
    "parts that leave a gap": 0.08,
    "parts that leave a one-element gap": 0.05,
    "scratch": 0.60,
    "a counter": 0.60,
    **{f"numerics {n}": 0.20 for n in ("int8", "int8x2")},
    **{f"numerics {n}": 0.08 for n in ("f32", "bf16")},
    **{f"kind {k}": 0.04 for k in KINDS},
    "a rope scaled": 0.04,
    **{f"a rope scaled {k}": 1 / DRAWN for k in ("linear", "dynamic", "llama3")},  # each at least once
    "an attention over a sliding window": 0.04,
    "a mixture's gates over all experts": 0.04,
}
"""The share of `kernel_steps()` that must exercise each rule the lowering addresses: under the least that six
samples of 300 measured (its choices come from one Random a step, so a share moves little between samples)."""


def _shares(strategy, rules) -> dict[str, float]:
    seen: Counter[str] = Counter()

    @settings(
        max_examples=DRAWN, derandomize=True, database=None, deadline=None, suppress_health_check=list(HealthCheck)
    )
    @given(strategy)
    def draw(drawn):
        seen["#"] += 1
        seen.update(rules(drawn))

    draw()
    return {rule: n / seen["#"] for rule, n in seen.items()}


def _check(name: str, shares: dict[str, float], floors: dict[str, float]) -> None:
    print(f"\n{name}: " + ", ".join(f"{rule} {share:.2f}" for rule, share in sorted(shares.items()) if rule != "#"))
    low = {rule: shares.get(rule, 0.0) for rule, floor in floors.items() if shares.get(rule, 0.0) < floor}
    assert not low, f"{name} reaches too few steps: {low}"


def test_random_steps_reach_every_placement_rule():
    _check("steps()", _shares(placement_steps(), placement_rules), PLACEMENT_FLOORS)


def test_kernel_steps_reach_every_kind_and_every_way_of_addressing():
    _check(
        "kernel_steps()",
        _shares(kernel_steps(), lambda drawn: lowering_rules(step_of(steps(drawn.module)[0])[0])),
        LOWERING_FLOORS,
    )
