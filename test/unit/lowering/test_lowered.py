"""The `Lowered` value and its printer: the printed module builds the very value it was printed from, runs alone in a
fresh process to the results of the reference layout (nothing shared), and every pointer of every launch lies in a
buffer of the step."""

from __future__ import annotations

import itertools
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lanearena import api
from lanearena.frontend import decoder_step, load
from lanearena.lowering.codegen.lower import COUNTERS, layout
from lanearena.lowering.codegen.lowered import Pointer
from lanearena.lowering.codegen.placed import placed
from lanearena.lowering.runtime.device import NumpyDevice
from lanearena.lowering.runtime.execute import load as load_module
from lanearena.lowering.runtime.execute import max_abs_err, random_feeds, run_step
from lanearena.model import Role
from lanearena.options import PlaceOptions

from ..support.kernel_steps import kernel_steps

CONFIGS = ["tiny", "tiny-moe", "tiny-prefill"]
NUMERICS = ["f32", "int8", "int8x2"]


def _placed(config: str, numerics: str):
    return placed(api.place(decoder_step(load(config, [f"numerics={numerics}"])), PlaceOptions("greedy")))


@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("numerics", NUMERICS)
def test_the_printed_module_builds_the_value_it_was_printed_from(config, numerics):
    p = _placed(config, numerics)
    source = p.source()
    assert source.isascii()
    assert p.lowered == load_module(source).LOWERED


@pytest.mark.parametrize("config", CONFIGS)
def test_every_pointer_lies_in_a_buffer_and_every_feed_is_bound_once(config):
    p = _placed(config, "int8")
    low = p.lowered
    pointers = [a for launch in low.launches for a in launch.args if isinstance(a, Pointer)]
    assert pointers and all(0 <= q.buffer < len(low.buffers) for q in pointers)
    assert all(q.offset <= low.buffers[q.buffer].bytes for q in pointers)
    assert {n for n, f in low.feeds.items() if f.role is Role.WEIGHT} == {
        t.name for t in p.step.tensors.values() if t.role is Role.WEIGHT and t.view_of is None
    }
    for f in low.feeds.values():
        assert f.offset + f.length * (1 if f.elem == "i8" else 4) <= low.buffers[f.buffer].bytes


_FRESH = """
import sys
import numpy as np
from lanearena.lowering.runtime.device import NumpyDevice
from lanearena.lowering.runtime.execute import load

step = load(open(sys.argv[1]).read())
feeds = dict(np.load(sys.argv[2]))
np.savez(sys.argv[3], **step.run(NumpyDevice(), feeds))
"""


@pytest.mark.parametrize("config", ["tiny", "tiny-moe"])
def test_a_printed_module_runs_alone_in_a_fresh_process(config, tmp_path):
    """Printed, written and run by another Python process: its results are those of the unshared layout run here
    (no two arrays sharing bytes), exactly."""
    p = _placed(config, "int8")
    module, feeds_file, out = tmp_path / "step.py", tmp_path / "feeds.npz", tmp_path / "out.npz"
    module.write_text(p.source())
    feeds = random_feeds(p.step, 5)
    np.savez(feeds_file, **feeds)
    done = subprocess.run(
        [sys.executable, "-c", _FRESH, str(module), str(feeds_file), str(out)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    got = dict(np.load(out))
    assert sorted(got) == sorted(p.lowered.results)
    assert max_abs_err(got, run_step(NumpyDevice(), p.unshared, feeds)) == 0.0


@settings(deadline=None, max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(kernel_steps(), st.sampled_from([16, 64, 256]))
def test_every_counter_has_aligned_zeroed_bytes_of_its_own_in_one_allocation(drawn, align):
    """Drawn steps of every kind: the counters the placement lists each get `align`-aligned bytes of their own
    (as many as the counter asks, none shared with another), all in one zeroed allocation that holds nothing else
    and is no arena byte; a step without counters has no such allocation."""
    api.place(drawn.module, PlaceOptions("greedy", align=align))
    p = placed(drawn.module)
    lay = layout(p.step, p.plan)
    zeroed = [k for k, b in enumerate(lay.buffers) if b.zeroed]
    if not p.plan.counters:
        assert zeroed == []
        return
    (k,) = zeroed
    assert k != 0 and lay.buffers[k].name == COUNTERS
    spans = sorted((lay.scratch[(c.launch, c.tag)].offset, c.bytes) for c in p.plan.counters)
    assert all(lay.scratch[(c.launch, c.tag)].buffer == k for c in p.plan.counters)
    assert all(at % align == 0 for at, _ in spans)
    assert all(a + n <= b for (a, n), (b, _) in itertools.pairwise(spans))
    assert spans[-1][0] + spans[-1][1] <= lay.buffers[k].bytes
    assert all(q.buffer != k for q in lay.arrays.values())
    assert all(
        q.buffer != k for key, q in lay.scratch.items() if key not in {(c.launch, c.tag) for c in p.plan.counters}
    )
