"""The expert mixture past `moe`'s decode row (mixture.cu): a block's rows grouped by expert (the seed's batched
mixture), a router cut along k, a shared expert, and mixtures fused with the residual add and the next norm
(`moe_add`, `moe_add_norm`); their kernel calls and numpy twins."""

from __future__ import annotations

import numpy as np

from lanearena.dialects.attrs import GatesKind
from lanearena.dialects.kernel import KernelOp
from lanearena.dialects.kinds.mixtures import MoeAddNormOp, MoeAddOp, MoeSharedOp
from lanearena.lowering.kernels import twin
from lanearena.lowering.kernels.base import (
    THREADS,
    TILE,
    KernelCall,
    Operands,
    activation,
    cdiv,
    f32,
    fail,
    i32,
    k_part,
    numerics,
    operand,
    ptr,
    quant_out,
    quantized,
    weight,
)
from lanearena.lowering.kernels.rows import _store_quantized, quantize_call
from lanearena.lowering.kernels.twin import F32, I32
from lanearena.model import QBLOCK, Form, Numerics

TOPK_MAX = 32
WARPS = THREADS[0] // 32
NULL = ptr(0)


def _mixture(op: KernelOp):
    """(x, weights, rows, d, f, experts, topk) of a mixture launch, checked."""
    x, wr, wg, wu, wd = (operand(op, n) for n in ("x", "w_router", "w_gate", "w_up", "w_down"))
    experts, topk = int(op.params["experts"]), int(op.params["topk"])
    _, f, d = wg.shape
    rows = x.length // d
    if op.params.get("tc", 0) or op.params.get("paired", 0):
        raise fail(op, "no kernels for a mixture on the tensor cores (tc, paired)")
    if wr.shape != (experts, d) or wu.shape != wg.shape or wd.shape != (experts, d, f) or rows * d != x.length:
        raise fail(
            op,
            f"weights {wr.shape}, {wg.shape}, {wu.shape}, {wd.shape} do not make a mixture of "
            f"{experts} experts over rows of {d} ({x.length} values)",
        )
    if not 1 <= topk <= min(experts, TOPK_MAX):
        raise fail(op, f"top {topk} of {experts} experts (at most {TOPK_MAX})")
    if (quantized(op, d) or numerics(op) is not Numerics.F32) and f % QBLOCK:
        raise fail(op, f"hidden rows of {f} values are not a whole number of {QBLOCK}-value blocks")
    return x, (wr, wg, wu, wd), rows, d, f, experts, topk


def over_all(op: KernelOp) -> np.int32:
    """Whether a mixture's gates are the chosen experts' shares of the softmax over all experts (1), or the softmax
    over the chosen ones (0), as the router kernels take it."""
    return i32(int(op.params["gates"] == GatesKind.ALL.value))


def gates_of(logits: np.ndarray, picked: list[int], over_all) -> np.ndarray:
    """The gates of the experts `picked` (the largest logit first) among a row's `logits`, as `write_gates` makes
    them: the softmax over the chosen, or (over_all) each one's share of the softmax over all."""
    top = logits[picked]
    e = np.exp(top - top[0])
    return e / (np.exp(logits - top[0]).sum(dtype=F32) if over_all else twin.sum_in_order(e))


def _route(op: KernelOp, at: Operands, x, wr, rows: int, d: int, experts: int, topk: int):
    """The router's calls: logits, choices and gates (moe_route), or logits by a product cut along k in
    `router_split` parts (gemv over scratch rp, rq) and then the choices (mix_pick)."""
    router, scales = weight(op, at, wr)
    if scales:
        raise fail(op, "the router must be f32")
    xs = activation(op, at, "x")
    rl, ids, gates, rc = ptr(at.scratch("rl")), ptr(at.scratch("i")), ptr(at.scratch("g")), ptr(at.counter("rc"))
    split = int(op.params.get("router_split", 1))
    if split == 1:
        return [
            KernelCall(
                "moe_route",
                (cdiv(experts, WARPS), rows, 1),
                THREADS,
                (rl, ids, gates, rc, *xs, router, i32(d), i32(experts), i32(topk), over_all(op)),
            )
        ]
    cut = (ptr(at.scratch("rp")), ptr(at.counter("rq")))
    return [
        KernelCall(
            "gemv",
            (cdiv(experts, TILE), split, rows),
            THREADS,
            (rl, i32(experts), *xs, router, scales, NULL, *cut, i32(experts), i32(d), i32(k_part(d, split))),
        ),
        KernelCall("mix_pick", (1, rows, 1), THREADS, (ids, gates, rc, rl, i32(experts), i32(topk), over_all(op))),
    ]


def _normed(op: KernelOp, at: Operands) -> tuple:
    """The plain and quantized pointers of a fused norm's output (`normed`), null where not written or not fused."""
    if "normed" not in op.WRITES:
        return (NULL,) * 4
    normed, forms = op.operand("normed"), op.written_forms("normed")
    plain = ptr(at.plain(normed)) if Form.PLAIN in forms else NULL
    return (plain, *(quant_out(at, normed) if Form.QUANT in forms else (NULL,) * 3))


def _fused(op: KernelOp, at: Operands) -> tuple:
    """The residual's and the norm gain's pointers and eps of a fused mixture (null where the kind has none)."""
    names = op.operand_names()
    residual = ptr(at.plain(op.operand("residual"))) if "residual" in names else NULL
    gain = NULL
    if "gain" in names:
        gain, scales = weight(op, at, operand(op, "gain"))
        if scales:
            raise fail(op, "a norm's gain must be f32")
    return residual, gain, f32(float(op.params.get("eps", 1e-6)))


def batched_calls(op: KernelOp, at: Operands) -> list[KernelCall]:
    """A block's rows through the mixture grouped by expert: route, group, gather, hidden rows, weighed rows,
    combined a row a block (with the residual and the next norm where fused)."""
    x, (wr, wg, wu, wd), rows, d, f, experts, topk = _mixture(op)
    out = operand(op, "out")
    choices = rows * topk
    calls = _route(op, at, x, wr, rows, d, experts, topk)
    ids, gates = ptr(at.scratch("i")), ptr(at.scratch("g"))
    el, ep = ptr(at.scratch("el")), ptr(at.scratch("ep"))
    calls.append(
        KernelCall(
            "mix_group",
            (1, 1, 1),
            THREADS,
            (ptr(at.scratch("ec")), ptr(at.scratch("eo")), el, ep, ids, i32(experts), i32(choices)),
        )
    )
    two = numerics(op).two_words
    if numerics(op) is Numerics.F32:
        gathered = (ptr(at.scratch("gx")), NULL, NULL, NULL)
    else:
        if d % QBLOCK:
            raise fail(op, f"rows of {d} values cannot be quantized in {QBLOCK}-value blocks")
        gathered = (NULL, ptr(at.scratch("gq")), ptr(at.scratch("gl")) if two else NULL, ptr(at.scratch("gs")))
    calls.append(
        KernelCall("mix_gather", (choices, 1, 1), THREADS, (*gathered, *activation(op, at, "x"), el, i32(d), i32(topk)))
    )
    h = ptr(at.scratch("h"))
    calls.append(
        KernelCall(
            "mix_hidden",
            (cdiv(f, TILE), choices, 1),
            THREADS,
            (
                h,
                *gathered,
                ids,
                el,
                *weight(op, at, wg),
                *weight(op, at, wu),
                i32(d),
                i32(f),
            ),
        )
    )
    hidden = (h, NULL, NULL, NULL)
    if numerics(op) is not Numerics.F32:
        hq = (ptr(at.scratch("hq")), ptr(at.scratch("hl")) if two else NULL, ptr(at.scratch("hs")))
        calls.append(quantize_call(h, hq, choices * f))
        hidden = (NULL, *hq)
    pa = ptr(at.scratch("pa"))
    calls.append(
        KernelCall(
            "mix_weigh",
            (cdiv(d, TILE), choices, 1),
            THREADS,
            (pa, *hidden, ids, gates, el, *weight(op, at, wd), i32(d), i32(f)),
        )
    )
    residual, gain, eps = _fused(op, at)
    shared, fs = (NULL,) * 7, 0
    if op.kind == "moe_shared":
        # The shared expert's hidden rows reuse the choices' (h, hq): the weighed rows no longer need them.
        sg, su, sd, sr = (operand(op, f"w_shared_{n}") for n in ("gate", "up", "down", "router"))
        fs = sg.shape[0]
        if fs > topk * f or (numerics(op) is not Numerics.F32 and fs % QBLOCK):
            raise fail(
                op,
                f"a shared hidden row of {fs} values does not fit the {topk} x {f} of the choices' "
                f"rows, or is not whole {QBLOCK}-value blocks",
            )
        calls.append(
            KernelCall(
                "glu",
                (cdiv(fs, TILE), 1, rows),
                THREADS,
                (
                    h,
                    *activation(op, at, "x"),
                    *weight(op, at, sg),
                    *weight(op, at, su),
                    NULL,
                    NULL,
                    NULL,
                    NULL,
                    i32(fs),
                    i32(d),
                    i32(d),
                ),
            )
        )
        if numerics(op) is not Numerics.F32:
            calls.append(quantize_call(h, hidden[1:], rows * fs))
        shared = (*hidden, *weight(op, at, sd), weight(op, at, sr)[0])
    calls.append(
        KernelCall(
            "mix_combine",
            (rows, 1, 1),
            THREADS,
            (
                ptr(at.plain(out.value)),
                *_normed(op, at),
                pa,
                ep,
                residual,
                gain,
                *shared,
                *(activation(op, at, "x") if fs else (NULL,) * 4),
                i32(d),
                i32(fs),
                i32(topk),
                eps,
            ),
        )
    )
    return calls


def decode_calls(op: KernelOp, at: Operands) -> list[KernelCall]:
    """The decode row's mixture with a shared expert, the residual or the next norm: route, the choices' hidden rows
    and the shared expert's after them, quantized under int8, and the down projections finished in mix_down."""
    x, (wr, wg, wu, wd), rows, d, f, experts, topk = _mixture(op)
    out = operand(op, "out")
    calls = _route(op, at, x, wr, rows, d, experts, topk)
    ids, gates, h = ptr(at.scratch("i")), ptr(at.scratch("g")), ptr(at.scratch("h"))
    xs = activation(op, at, "x")
    calls.append(
        KernelCall(
            "moe_hidden",
            (cdiv(f, TILE), topk, 1),
            THREADS,
            (
                h,
                *xs,
                ids,
                *weight(op, at, wg),
                *weight(op, at, wu),
                i32(d),
                i32(f),
                i32(topk),
            ),
        )
    )
    shared = op.kind == "moe_shared"
    fs = operand(op, "w_shared_gate").shape[0] if shared else 0
    if shared:
        sg, su = operand(op, "w_shared_gate"), operand(op, "w_shared_up")
        calls.append(
            KernelCall(
                "glu",
                (cdiv(fs, TILE), 1, 1),
                THREADS,
                (
                    ptr(int(h) + topk * f * 4),
                    *xs,
                    *weight(op, at, sg),
                    *weight(op, at, su),
                    NULL,
                    NULL,
                    NULL,
                    NULL,
                    i32(fs),
                    i32(d),
                    i32(d),
                ),
            )
        )
    hidden = (h, NULL, NULL, NULL)
    if numerics(op) is not Numerics.F32:
        if fs % QBLOCK:
            raise fail(op, f"a shared hidden row of {fs} values is not a whole number of {QBLOCK}-value blocks")
        hq = (ptr(at.scratch("hq")), ptr(at.scratch("hl")) if numerics(op).two_words else NULL, ptr(at.scratch("hs")))
        calls.append(quantize_call(h, hq, topk * f + fs))
        hidden = (NULL, *hq)
    if shared:
        sd, sr = operand(op, "w_shared_down"), operand(op, "w_shared_router")
        shared_args = (*weight(op, at, sd), weight(op, at, sr)[0])
    else:
        shared_args = (NULL, NULL, NULL)
    residual, gain, eps = _fused(op, at)
    gc = ptr(at.counter("gc")) if gain else NULL
    calls.append(
        KernelCall(
            "mix_down",
            (cdiv(d, TILE), 1, 1),
            THREADS,
            (
                ptr(at.plain(out.value)),
                *_normed(op, at),
                gc,
                *hidden,
                ids,
                gates,
                *weight(op, at, wd),
                *shared_args,
                *xs,
                residual,
                gain,
                i32(d),
                i32(f),
                i32(fs),
                i32(topk),
                eps,
            ),
        )
    )
    return calls


def fused_calls(op: KernelOp, at: Operands) -> list[KernelCall]:
    x = operand(op, "x")
    d = operand(op, "w_gate").shape[2]
    return batched_calls(op, at) if x.length // d > 1 else decode_calls(op, at)


# --- Twins -----------------------------------------------------------------------------------------------------


def _rank_first(values: np.ndarray) -> int:
    """The index that ranks first: the first NaN, else the largest, ties to the lowest index (numpy's argmax)."""
    return int(np.argmax(values))


def _pick(dev, row: int, ids: int, gates: int, experts: int, topk: int, over_all) -> None:
    logits = dev.download(row, F32, experts)
    picked: list[int] = []
    for _ in range(topk):
        free = np.setdiff1d(np.arange(experts), picked)
        picked.append(int(free[_rank_first(logits[free])]))
    dev.upload(ids, np.array(picked, I32))
    dev.upload(gates, gates_of(logits, picked, over_all))


def mix_pick(dev, grid, block, ids, gates, rc, rl, experts, topk, over_all) -> None:
    twin.check_block("mix_pick", block)
    rows, experts, topk = grid[1], int(experts), int(topk)
    counts = twin.Counters(dev, "mix_pick", rc, rows)
    for r in range(rows):  # a block a row
        twin.require(counts.arrive(slice(r, r + 1), 1), "mix_pick: one block a row")
        at = (int(rl) + r * experts * 4, int(ids) + r * topk * 4, int(gates) + r * topk * 4)
        _pick(dev, *at, experts, topk, over_all)


def mix_group(dev, grid, block, ec, eo, el, ep, ids, experts, choices) -> None:
    twin.check_block("mix_group", block)
    experts, choices = int(experts), int(choices)
    chosen = dev.download(int(ids), I32, choices)
    twin.require(((chosen >= 0) & (chosen < experts)).all(), f"mix_group: choices {chosen} outside {experts} experts")
    counts = np.bincount(chosen, minlength=experts).astype(I32)
    starts = np.concatenate([[0], np.cumsum(counts)]).astype(I32)
    order = np.argsort(chosen, kind="stable").astype(I32)
    places = np.empty(choices, I32)
    places[order] = np.arange(choices, dtype=I32)
    for addr, values in ((ec, counts), (eo, starts), (el, order), (ep, places)):
        dev.upload(int(addr), values)


def mix_gather(dev, grid, block, gx, gq, gl, gs, x, xh, xl, xs, el, d, topk) -> None:
    twin.check_block("mix_gather", block)
    d, topk = int(d), int(topk)
    for place in range(grid[0]):  # a block a place
        row = int(dev.download(int(el) + place * 4, I32, 1)[0]) // topk
        a = twin.activation(dev, (x, xh, xl, xs), range(row, row + 1), d, 0, d)
        if gx:
            values = a[0] if isinstance(a, np.ndarray) else _dequantized(a)
            dev.upload(int(gx) + place * d * 4, values)
        elif isinstance(a, np.ndarray):
            _store_quantized(dev, (gq, gl, gs), place * d, a[0])
        else:
            dev.upload(int(gq) + place * d, a.hi[0])
            if gl:
                dev.upload(int(gl) + place * d, a.lo[0] if a.lo is not None else np.zeros(d, np.int8))
            dev.upload(int(gs) + place * d // QBLOCK * 4, a.scales[0])


def _dequantized(a) -> np.ndarray:
    """A quantized row's values as mix_gather's f32 copy makes them: scale * (hi + lo / 127)."""
    v = a.hi[0].astype(F32)
    if a.lo is not None:
        v = v + a.lo[0].astype(F32) / F32(127)
    return np.repeat(a.scales[0], QBLOCK) * v


def mix_hidden(dev, grid, block, h, gx, gq, gl, gs, ids, el, wg, wgs, wu, wus, d, f) -> None:
    twin.check_block("mix_hidden", block)
    tiles, places = grid[0], grid[1]
    d, f = int(d), int(f)
    for place, tile in np.ndindex(places, tiles):  # a block a tile of a place's hidden row
        c0, c1 = tile * TILE, min(f, (tile + 1) * TILE)
        choice = int(dev.download(int(el) + place * 4, I32, 1)[0])
        e = int(dev.download(int(ids) + choice * 4, I32, 1)[0])
        a = twin.activation(dev, (gx, gq, gl, gs), range(place, place + 1), d, 0, d)
        g = twin.dot(a, twin.weight(dev, wg, wgs, e * f + c0, c1 - c0, d, 0, d))[0]
        u = twin.dot(a, twin.weight(dev, wu, wus, e * f + c0, c1 - c0, d, 0, d))[0]
        dev.upload(int(h) + (place * f + c0) * 4, twin.silu(g) * u)


def mix_weigh(dev, grid, block, pa, h, hh, hl, hs, ids, gates, el, wd, wds, d, f) -> None:
    twin.check_block("mix_weigh", block)
    tiles, places = grid[0], grid[1]
    d, f = int(d), int(f)
    for place, tile in np.ndindex(places, tiles):  # a block a tile of a place's weighed row
        c0, c1 = tile * TILE, min(d, (tile + 1) * TILE)
        choice = int(dev.download(int(el) + place * 4, I32, 1)[0])
        e = int(dev.download(int(ids) + choice * 4, I32, 1)[0])
        gate = dev.download(int(gates) + choice * 4, F32, 1)[0]
        a = twin.activation(dev, (h, hh, hl, hs), range(place, place + 1), f, 0, f)
        s = twin.dot(a, twin.weight(dev, wd, wds, e * d + c0, c1 - c0, f, 0, f))[0]
        dev.upload(int(pa) + (place * d + c0) * 4, gate * s)


def _norm_into(dev, ptrs: tuple, at: int, y: np.ndarray, gain: int, eps) -> None:
    """`y` RMS-normed with `gain`, written plain and quantized where their pointers (np, nh, nl, ns) are given."""
    nf, nh, nl, ns = (int(p) for p in ptrs)
    d = y.size
    inv = F32(1) / np.sqrt((y * y).sum(dtype=F32) / F32(d) + eps)
    normed = y * inv * dev.download(int(gain), F32, d)
    if nf:
        dev.upload(nf + at * 4, normed)
    if nh:
        _store_quantized(dev, (nh, nl, ns), at, normed)


def mix_combine(
    dev,
    grid,
    block,
    out,
    nf,
    nh,
    nl,
    ns,
    pa,
    ep,
    residual,
    gain,
    hsh,
    hsh_h,
    hsh_l,
    hsh_s,
    wsd,
    wsds,
    wsr,
    x,
    xh,
    xl,
    xs,
    d,
    fs,
    topk,
    eps,
) -> None:
    twin.check_block("mix_combine", block)
    d, fs, topk = int(d), int(fs), int(topk)
    for r in range(grid[0]):  # a block a row
        y = dev.download(int(residual) + r * d * 4, F32, d).copy() if residual else np.zeros(d, F32)
        if wsd:
            xa = twin.activation(dev, (x, xh, xl, xs), range(r, r + 1), d, 0, d)
            logit = twin.dot(xa, twin.weight(dev, wsr, 0, 0, 1, d, 0, d))[0, 0]
            with np.errstate(over="ignore"):
                gate = F32(1) / (F32(1) + np.exp(-logit))
            a = twin.activation(dev, (hsh, hsh_h, hsh_l, hsh_s), range(r, r + 1), fs, 0, fs)
            y = y + gate * twin.dot(a, twin.weight(dev, wsd, wsds, 0, d, fs, 0, fs))[0]
        for place in dev.download(int(ep) + r * topk * 4, I32, topk):
            y += dev.download(int(pa) + int(place) * d * 4, F32, d)
        dev.upload(int(out) + r * d * 4, y)
        if gain:
            _norm_into(dev, (nf, nh, nl, ns), r * d, y, gain, eps)


def mix_down(
    dev,
    grid,
    block,
    out,
    nf,
    nh,
    nl,
    ns,
    gc,
    h,
    hh,
    hl,
    hs,
    ids,
    gates,
    wd,
    wds,
    wsd,
    wsds,
    wsr,
    x,
    xh,
    xl,
    xs,
    residual,
    gain,
    d,
    f,
    fs,
    topk,
    eps,
) -> None:
    twin.check_block("mix_down", block)
    d, f, fs, topk = int(d), int(f), int(fs), int(topk)
    tiles = grid[0]
    counts = twin.Counters(dev, "mix_down", gc, 1) if gain else None
    for tile in range(tiles):  # a block a tile of the row
        c0, c1 = tile * TILE, min(d, (tile + 1) * TILE)
        chosen = dev.download(int(ids), I32, topk)
        weights = dev.download(int(gates), F32, topk)
        hidden = (h, hh, hl, hs)
        acc = np.zeros(c1 - c0, F32)
        for j, e in enumerate(chosen):
            a = twin.activation(dev, hidden, range(j, j + 1), f, 0, f)
            acc += weights[j] * twin.dot(a, twin.weight(dev, wd, wds, int(e) * d + c0, c1 - c0, f, 0, f))[0]
        if wsd:
            xa = twin.activation(dev, (x, xh, xl, xs), range(1), d, 0, d)
            logit = twin.dot(xa, twin.weight(dev, wsr, 0, 0, 1, d, 0, d))[0, 0]
            with np.errstate(over="ignore"):
                gate = F32(1) / (F32(1) + np.exp(-logit))
            a = _shared_row(dev, hidden, topk * f, fs)
            acc += gate * twin.dot(a, twin.weight(dev, wsd, wsds, c0, c1 - c0, fs, 0, fs))[0]
        if residual:
            acc = dev.download(int(residual) + c0 * 4, F32, c1 - c0) + acc
        dev.upload(int(out) + c0 * 4, acc)
        if counts is not None and counts.arrive(slice(0, 1), tiles):
            _norm_into(dev, (nf, nh, nl, ns), 0, dev.download(int(out), F32, d).copy(), gain, eps)


def _shared_row(dev, hidden: tuple, at: int, fs: int):
    """The shared expert's hidden row of `fs` values, `at` values into the hidden rows (f32 or quantized)."""
    h, hh, hl, hs = (int(p) for p in hidden)
    moved = (h + at * 4 if h else 0, hh + at if hh else 0, hl + at if hl else 0, hs + at // QBLOCK * 4 if hs else 0)
    return twin.activation(dev, moved, range(1), fs, 0, fs)


CALLS = {MoeSharedOp: fused_calls, MoeAddOp: fused_calls, MoeAddNormOp: fused_calls}
TWINS = {
    "mix_pick": mix_pick,
    "mix_group": mix_group,
    "mix_gather": mix_gather,
    "mix_hidden": mix_hidden,
    "mix_weigh": mix_weigh,
    "mix_combine": mix_combine,
    "mix_down": mix_down,
}
