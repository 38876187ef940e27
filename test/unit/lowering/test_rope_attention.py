"""The fused attention kinds (`lane.rope_attention`, `lane.norm_rope_attention`) alone: one launch on drawn shapes
(head sizes 16, 64 and 128; 1 to 8 q heads a kv head; a decode row or a chunk's rows; windows, rope scalings,
two-word caches) run on the numpy
runtime against the float64 reference (`reference_step`); its work grows with the positions seen, never with the
caches' length; and its CUDA source compiles to PTX that ptxas assembles for Ampere and Hopper."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lanearena import api
from lanearena.dialects.kinds.fused_attention import CHUNK_GRAIN, chunk_size
from lanearena.frontend import StepBuilder
from lanearena.lowering.compile import placed, run
from lanearena.lowering.device import NumpyDevice
from lanearena.lowering.kernels import ptx, rope_attention, source, twin_of
from lanearena.lowering.runtime import random_feeds
from lanearena.options import PlaceOptions

from .test_reference_step import held_to_the_reference

FUZZ = settings(deadline=None, max_examples=60, suppress_health_check=[HealthCheck.too_slow])

SCALINGS = [
    {},
    {"scaling": "linear", "factor": 4.0},
    {"scaling": "dynamic", "factor": 2.0, "original": 16},
    {"scaling": "llama3", "factor": 32.0, "low_freq": 1.0, "high_freq": 4.0, "original": 8},
]
"""A rope of each scaling the configs use (their originals short, so the positions drawn pass them)."""


def fused_step(
    hd: int,
    group: int,
    kv_heads: int,
    length: int,
    rows: int = 1,
    numerics: str = "f32",
    normed: bool = False,
    two_words: bool = False,
    splits: int = 1,
    window: int = 0,
    rope: dict | None = None,
):
    """A step of one fused attention over inputs q, k, v and pos (`rows` of them), its caches state, its result the
    output."""
    heads = group * kv_heads
    b = StepBuilder("fused", numerics)
    q, k, v = (b.input(n, (rows, w * hd)) for n, w in (("q", heads), ("k", kv_heads), ("v", kv_heads)))
    pos = b.input("pos", (rows,), "i32")
    gains = [b.weight(n, (hd,)) for n in ("q_gain", "k_gain")] if normed else []
    kc, vc = (b.state(n, (length, kv_heads * hd)) for n in ("k_cache", "v_cache"))
    out = b.tensor("out", (rows, heads * hd))
    params = {"heads": heads, "kv_heads": kv_heads, "splits": splits, "theta": 1e4, **(rope or {})}
    if window:
        params["window"] = window
    if two_words:
        params["two_words"] = 1
    kind = "norm_rope_attention" if normed else "rope_attention"
    b.launch(kind, ins=[q, k, v, pos, *gains], outs=[kc, vc, out], **params)
    b.output(out)
    module = b.module()
    api.place(module, PlaceOptions("greedy"))
    return placed(module)


def feeds_at(step, p: int, window: int, seed: int) -> dict[str, np.ndarray]:
    """Random feeds with the rows at positions p, p + 1, ..., each cache's rows no row sees NaN (and the new rows'
    before they are written): a read of one shows."""
    feeds = random_feeds(step.step, seed)
    feeds["pos"] = np.arange(p, p + feeds["pos"].size, dtype=np.int32)
    first = max(0, p - window + 1) if window else 0
    for c in ("k_cache", "v_cache"):
        feeds[c][p:] = np.nan  # the row at p is written before it is read
        feeds[c][:first] = np.nan
    return feeds


@FUZZ
@given(
    hd=st.sampled_from([16, 64, 128]),
    group=st.sampled_from([1, 2, 4, 8]),
    kv_heads=st.integers(1, 2),
    length=st.integers(3, 80),
    rows=st.sampled_from([1, 1, 2, 3]),
    at=st.floats(0, 1),
    splits=st.integers(1, 8),
    window=st.sampled_from([0, 5, 40]),
    normed=st.booleans(),
    numerics=st.sampled_from(["f32", "int8", "int8x2"]),
    two_words=st.booleans(),
    rope=st.sampled_from(SCALINGS),
    seed=st.integers(0, 2**16),
)
def test_drawn_fused_attention_computes_what_the_reference_computes(
    hd, group, kv_heads, length, rows, at, splits, window, normed, numerics, two_words, rope, seed
):
    two_words = two_words and numerics == "int8x2"
    p = min(int(at * length), length - rows)
    step = fused_step(hd, group, kv_heads, length, rows, numerics, normed, two_words, splits, window, rope)
    got = held_to_the_reference(step, feeds_at(step, p, window, seed))
    assert not np.isnan(got["out"]).any()


def test_two_words_are_what_the_new_row_stands_for():
    """In two words the new k row is its high and low words times its kv head's scale: the row's largest value
    itself (127 / 127 of the scale), and every value within 1/127^2 of the scale of what was written."""
    step = fused_step(32, 2, 2, 8, numerics="int8x2", two_words=True)
    feeds = feeds_at(step, 3, 0, 7)
    feeds["k"] = np.linspace(-1, 3, 64).astype(np.float32)
    got = run(step, NumpyDevice(), feeds)["k_cache"][3]
    assert not np.array_equal(got, feeds["k"])  # rounded: not the f32 row (the rope at 3 turns it too)
    head_scales = np.abs(got.reshape(2, 32)).max(axis=1) / 127
    words = got.reshape(2, 32) / head_scales[:, None] * 127  # hi * 127 + lo: whole numbers
    assert np.allclose(words, np.rint(words), atol=1e-2)


@pytest.mark.parametrize("p", [0, 17, 63])
def test_work_grows_with_the_positions_seen_not_the_caches_length(p, monkeypatch):
    """The cache positions the twin scores at position p, over all chunks, are p + 1 for each q head, for caches of
    64 and 4096 rows and any number of splits: the chunks are sized from p, not from the caches' length."""
    scored: list[int] = []
    chunk = rope_attention._chunk

    def counting(dev, q, kc, vc, t0, t1, width, kv):
        scored.append(max(0, t1 - t0))
        return chunk(dev, q, kc, vc, t0, t1, width, kv)

    monkeypatch.setattr(rope_attention, "_chunk", counting)
    heads = 4
    for length in (64, 4096):
        for splits in (1, 8):
            scored.clear()
            step = fused_step(64, 2, 2, length, splits=splits)
            run(step, NumpyDevice(), feeds_at(step, p, 0, 3))
            assert sum(scored) == heads * (p + 1), (length, splits)
            assert len(scored) == heads * splits


@pytest.mark.parametrize("seen,splits,want", [(1, 8, 16), (16, 8, 16), (17, 8, 16), (130, 8, 32), (4096, 8, 512)])
def test_chunks_are_even_shares_in_whole_grains(seen, splits, want):
    size = chunk_size(seen, splits)
    assert size == want and size % CHUNK_GRAIN == 0
    assert splits * size >= seen > splits * (size - CHUNK_GRAIN)  # the least whole grains that cover them


SOURCE = Path(rope_attention.__file__).with_suffix(".cu")


@pytest.mark.skipif(not ptx.can_compile(), reason="nvcc is not on PATH")
def test_the_kernels_compile_and_assemble_for_ampere_and_hopper():
    """The package's build (compute_80 at ISA 8.0, checked by ptxas for sm_80), then ptxas for sm_90."""
    text = ptx.build(source.packaged()["rope_attention"])
    assert ".entry rope_attention(" in text and ".entry rope_append(" in text
    assert ptx.isa(text) <= ptx.PTX_ISA and ptx.assemble(text, "sm_90") is None


@pytest.mark.parametrize("kernel", ["rope_attention", "rope_append"])
def test_each_twin_takes_its_kernels_parameters(kernel):
    (params,) = re.findall(rf'extern "C" __global__ void {kernel}\(([^)]*)\)', SOURCE.read_text())
    names = [re.findall(r"\w+", p)[-1] for p in params.split(",")]
    twin = twin_of(kernel)
    assert twin is not None
    assert list(inspect.signature(twin).parameters)[3:] == names
