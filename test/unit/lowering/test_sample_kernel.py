"""The token drawn on the device (`lane.sample`): sample.cu's algorithm (a radix select for top-k, a search over
values for top-p, a draw in id order split over the block's threads) written out here line for line and held to
`decoding.choose`, the procedure it computes; the numpy twin run through a placed step; the kind's checks."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lanearena import api
from lanearena.decoding import Sampling, choose, uniform
from lanearena.frontend import StepBuilder
from lanearena.lowering.codegen.placed import placed
from lanearena.lowering.kernels import source
from lanearena.lowering.runtime.device import NumpyDevice
from lanearena.lowering.runtime.execute import load
from lanearena.options import PlaceOptions

THREADS = 256


def _keys(x: np.ndarray) -> np.ndarray:
    """sample.cu's `key_of`: the 32-bit keys that order the floats as their values do (-0 as +0)."""
    u = np.where(x == 0, np.float32(0), x).astype(np.float32).view(np.uint32).astype(np.int64)
    return np.where(u & 0x80000000, ~u & 0xFFFFFFFF, u | 0x80000000)


GATHERED = 1024
"""sample.cu's GATHERED: the most candidates of the top-k cut gathered in shared memory."""


def _kernel_sample(row: np.ndarray, t: float, k: int, p: float, u: float, dtype: type = np.float64) -> int:
    """sample.cu, step by step, its sums in `dtype` (float64 here, so that only the steps are compared)."""
    v = len(row)
    if np.isnan(row).any() or np.isposinf(row).any() or row.max() == -np.inf:
        return -1
    largest, whole = row.max(), (row, np.arange(v))

    def weight_from(values, start: int):
        weights = np.exp((values.astype(dtype) - dtype(largest)) / dtype(t))
        return weights[_keys(values) >= start].sum(dtype=dtype)

    if 0 < k < v:
        start = _kth_key(row, k)
        kept = np.flatnonzero(_keys(row) >= start)  # gather: each thread's run counted, then copied: id order
        values, ids = (row[kept], kept) if len(kept) <= GATHERED else whole
        need = dtype(p) * weight_from(values, start)
        return _cut_and_draw(values, ids, start, largest, t, p, need, u, dtype)
    if p < 1 and v > GATHERED:
        need = dtype(p) * weight_from(row, 0)
        first = _kth_key(row, GATHERED)
        kept = np.flatnonzero(_keys(row) >= first)
        if len(kept) <= GATHERED and weight_from(row[kept], first) >= need:
            return _cut_and_draw(row[kept], kept, first, largest, t, p, need, u, dtype)
        return _cut_and_draw(row, np.arange(v), 0, largest, t, p, need, u, dtype)
    need = dtype(p) * weight_from(row, 0) if p < 1 else dtype(0)
    return _cut_and_draw(row, np.arange(v), 0, largest, t, p, need, u, dtype)


def _kth_key(row: np.ndarray, k: int) -> int:
    """sample.cu's kth_key: eight bits a pass, the counts of the keys that match the bits picked so far."""
    keys = _keys(row)
    prefix, mask, want = 0, 0, k
    for shift in (24, 16, 8, 0):
        hist = np.bincount((keys[(keys & mask) == prefix] >> shift) & 255, minlength=256)
        b = 255
        while b > 0 and want > hist[b]:
            want -= hist[b]
            b -= 1
        prefix |= b << shift
        mask |= 255 << shift
    return prefix


def _cut_and_draw(values, ids, start: int, largest, t: float, p: float, need, u: float, dtype: type) -> int:
    """sample.cu's cut_and_draw over `values` (in id order, their `ids`) from key `start` up."""
    keys = _keys(values)
    weights = np.exp((values.astype(dtype) - dtype(largest)) / dtype(t))

    def weight_from(key: int) -> float:
        return weights[keys >= key].sum(dtype=dtype)

    if p < 1:  # top_p_key
        lo, hi = start, int(_keys(np.array([largest]))[0])
        while lo < hi:
            mid = lo + (hi - lo) // 2 + 1
            if weight_from(mid) >= need:
                lo = mid
            else:
                hi = mid - 1
        start = lo
    kept = np.where(keys >= start, weights, 0)  # draw_from
    n = len(values)
    per = -(-n // THREADS)
    parts = [kept[i * per : (i + 1) * per].sum(dtype=dtype) for i in range(THREADS)]
    total = sum(parts, dtype(0))
    aim = dtype(u) * total
    run, owner, last = dtype(0), 0, 0
    for owner in range(THREADS + 1):
        if owner == THREADS:  # rounding left the aim past the sum: the last run with weight
            owner, run = last, sum(parts[:last], dtype(0))
            break
        if parts[owner] > 0:
            last = owner
        if run + parts[owner] > aim and parts[owner] > 0:
            break
        run += parts[owner]
    token = -1
    for j in range(owner * per, min(n, (owner + 1) * per)):
        if kept[j] == 0:
            continue
        token = int(ids[j])
        run += kept[j]
        if run > aim:
            break
    return token


def test_the_steps_written_here_are_the_kernels():
    cu = (source.HERE / "sample.cu").read_text()
    for line in (
        "const unsigned u = __float_as_uint(x == 0.f ? 0.f : x);",
        "return (u & 0x80000000u) ? ~u : (u | 0x80000000u);",
        "if ((key & mask) == prefix) atomicAdd(&hist[(key >> shift) & 255u], 1u);",
        "while (b > 0 && want > hist[b]) want -= hist[b--];",
        "const unsigned mid = lo + (hi - lo) / 2 + 1;",
        "if (weight_from(r, mid, largest, temperature) >= need)",
        "if (kept <= GATHERED) {",
        "if (kept <= GATHERED && weight_from(g, first, largest, temperature) >= need)  // the same in every thread",
        "const unsigned first = kth_key(whole.row, v, GATHERED);",
        "#define GATHERED 1024",
        "if (run + parts[t] > aim && parts[t] > 0.f) break;",
        "return expf((x - largest) / temperature);",
        "bad |= isnan(x) || x == INFINITY;",
    ):
        assert line in cu, line


_VALUES = st.sampled_from([-np.inf, -30.0, -3.0, -1.0, -0.0, 0.0, 0.5, 1.0, 1.0, 2.0, 2.5, 7.0])


@settings(deadline=None, max_examples=200)
@given(
    st.lists(st.one_of(_VALUES, st.floats(-8, 8, width=32)), min_size=1, max_size=2500),
    st.sampled_from([0.05, 0.3, 1.0, 2.0]),
    st.sampled_from([0, 1, 2, 5, 40, 1000, 1100, 2000]),
    st.sampled_from([0.1, 0.5, 0.9, 0.95, 1.0]),
    st.floats(0, 1, exclude_max=True),
)
def test_the_kernels_steps_choose_the_stated_token(values, t, k, p, u):
    row = np.asarray(values, np.float32)
    want = choose(row, Sampling(t, k, p), u)
    assert _kernel_sample(row, t, k, p, u) == want


@pytest.mark.parametrize("k", [0, 5, 40, 1024, 1025, 2000])  # kept gathered (at most 1024) or not; top-p alone
@pytest.mark.parametrize("p", [0.5, 0.95, 1.0])
def test_the_kernels_steps_on_rows_of_a_vocabulary_gathered_or_not(k, p):
    rng = np.random.default_rng(k)
    for case in range(12):
        row = (rng.standard_normal(5000) * rng.choice([0.3, 3.0])).astype(np.float32)
        if case % 3 == 0:  # ties at the cut: a run of equal values that the top-k cut keeps all of
            row[rng.choice(5000, 1500, replace=False)] = np.sort(row)[-k]
        t, u = float(rng.choice([0.1, 0.8, 1.5])), float(rng.random())
        assert _kernel_sample(row, t, k, p, u) == choose(row, Sampling(t, k, p), u), (case, t, u)


def test_a_row_with_nan_or_inf_draws_no_token_and_minus_inf_is_never_drawn():
    row = np.array([0.0, 1.0, -np.inf, 2.0], np.float32)
    s = Sampling(1.0)
    assert {choose(row, s, uniform(0, i)) for i in range(200)} == {0, 1, 3}
    for bad in (np.nan, np.inf):
        assert choose(np.array([0.0, bad, 1.0], np.float32), s, 0.5) == -1
        assert _kernel_sample(np.array([0.0, bad, 1.0], np.float32), 1.0, 0, 1.0, 0.5) == -1
    assert choose(np.array([-np.inf, -np.inf], np.float32), s, 0.5) == -1


def test_the_draws_follow_the_probabilities_top_k_and_top_p_keep():
    """Over many uniform numbers each token is drawn about as often as softmax(logits / T) over what top-k and then
    top-p keep says (the largest 3 of 5 by top-k; of those the two whose probability first reaches 0.8)."""
    logits = np.array([1.0, 0.0, 2.0, -1.0, 1.5], np.float32)
    s = Sampling(temperature=1.0, top_k=3, top_p=0.8)
    counts = np.bincount([choose(logits, s, uniform(3, i)) for i in range(4000)], minlength=5)
    top3 = np.exp(np.array([1.0, 2.0, 1.5]))
    assert (top3[1] + top3[2]) / top3.sum() >= 0.8 > top3[1] / top3.sum()  # the cut falls after two
    want = np.zeros(5)
    want[[2, 4]] = np.exp([2.0, 1.5]) / np.exp([2.0, 1.5]).sum()
    assert np.abs(counts / 4000 - want).max() < 0.03


def _sample_step(rows: int, v: int, **params):
    b = StepBuilder("draw")
    logits = b.input("logits", (rows, v))
    draw = b.input("draw", (rows,))
    out = b.tensor("out", rows, "i32")
    b.launch("sample", [logits, draw], [out], **params)
    b.output(out)
    return api.place(b.module(), PlaceOptions("greedy"))


def test_the_twin_in_a_placed_step_draws_each_row_with_its_own_number():
    rows, v = 3, 3000
    params = {"temperature": 0.7, "top_k": 50, "top_p": 0.9}
    logits = (3 * np.random.default_rng(1).standard_normal((rows, v))).astype(np.float32)
    draws = np.array([0.1, 0.5, 0.97], np.float32)
    out = load(placed(_sample_step(rows, v, **params)).source()).run(NumpyDevice(), {"logits": logits, "draw": draws})[
        "out"
    ]
    s = Sampling(0.7, 50, 0.9)
    assert list(out) == [choose(row, s, float(u)) for row, u in zip(logits, draws, strict=True)]
    assert list(out) == [_kernel_sample(row, 0.7, 50, 0.9, float(u)) for row, u in zip(logits, draws, strict=True)]


@pytest.mark.parametrize(
    "params, message",
    [
        ({"temperature": 0.0}, "parameter 'temperature' must be positive"),
        ({"top_p": 1.5}, "top_p must be at most 1"),
        ({"top_k": -1}, "parameter 'top_k' must be at least 0"),
    ],
)
def test_the_kind_refuses_what_the_kernel_cannot_draw_by(params, message):
    with pytest.raises(ValueError, match=message):
        _sample_step(1, 10, **params)
