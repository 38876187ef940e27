"""The expert mixture past `moe`'s decode row (mixture.cu): a block's rows grouped by expert (the seed's batched
mixture), a router cut along k, a shared expert, and mixtures fused with the residual add and the next norm
(`moe_add`, `moe_add_norm`); their kernel calls (the kernels' numpy twins are in `mixture_twins`)."""

from __future__ import annotations

import numpy as np

from lanearena.dialects.attrs import GatesKind
from lanearena.dialects.kernel import KernelOp
from lanearena.dialects.kinds.mixtures import MoeAddNormOp, MoeAddOp, MoeOp, MoeSharedAddOp, MoeSharedOp, SharedMixture
from lanearena.lowering.kernels import twin
from lanearena.lowering.kernels.base import (
    THREADS,
    TILE,
    Bound,
    KernelCall,
    Operands,
    activation,
    cdiv,
    f32,
    fail,
    i32,
    k_part,
    lowers,
    numerics,
    operand,
    ptr,
    quant_out,
    quantized,
    variant,
    weight,
)
from lanearena.lowering.kernels.rows import quantize_call
from lanearena.lowering.kernels.twin import F32
from lanearena.model import QBLOCK, Form

TOPK_MAX = 32
Mixture = MoeOp | SharedMixture | MoeAddOp | MoeAddNormOp
"""The kinds of a mixture of experts."""

WARPS = THREADS[0] // 32
NULL = ptr(0)


def _mixture(op: Mixture):
    """(x, weights, rows, d, f, experts, topk) of a mixture launch, checked."""
    x, wr, wg, wu, wd = (operand(op, n) for n in ("x", "w_router", "w_gate", "w_up", "w_down"))
    experts, topk = op.experts.value.data, op.topk.value.data
    _, f, d = wg.shape
    rows = x.length // d
    if op.tc is not None or op.paired is not None:
        raise fail(op, "no kernels for a mixture on the tensor cores (tc, paired)")
    if wr.shape != (experts, d) or wu.shape != wg.shape or wd.shape != (experts, d, f) or rows * d != x.length:
        raise fail(
            op,
            f"weights {wr.shape}, {wg.shape}, {wu.shape}, {wd.shape} do not make a mixture of "
            f"{experts} experts over rows of {d} ({x.length} values)",
        )
    if not 1 <= topk <= min(experts, TOPK_MAX):
        raise fail(op, f"top {topk} of {experts} experts (at most {TOPK_MAX})")
    if (quantized(op, d) or op.quantizes_rows(numerics(op))) and f % QBLOCK:
        raise fail(op, f"hidden rows of {f} values are not a whole number of {QBLOCK}-value blocks")
    return x, (wr, wg, wu, wd), rows, d, f, experts, topk


def over_all(op: Mixture) -> np.int32:
    """Whether a mixture's gates are the chosen experts' shares of the softmax over all experts (1), or the softmax
    over the chosen ones (0), as the router kernels take it."""
    return i32(int(op.gates.data is GatesKind.ALL))


def gates_of(logits: np.ndarray, picked: list[int], over_all) -> np.ndarray:
    """The gates of the experts `picked` (the largest logit first) among a row's `logits`, as `write_gates` makes
    them: the softmax over the chosen, or (over_all) each one's share of the softmax over all."""
    top = logits[picked]
    e = np.exp(top - top[0])
    return e / (np.exp(logits - top[0]).sum(dtype=F32) if over_all else twin.sum_in_order(e))


def _route(op: Mixture, at: Operands, x, wr, rows: int, d: int, experts: int, topk: int):
    """The router's calls: logits, choices and gates (moe_route), or logits by a product cut along k in
    `router_split` parts (gemv over scratch rp, rq) and then the choices (mix_pick)."""
    router, scales = weight(op, at, wr)
    if scales:
        raise fail(op, "the router must be f32 or bf16")
    xs = activation(op, at, "x")
    rl, ids, gates, rc = ptr(at.scratch("rl")), ptr(at.scratch("i")), ptr(at.scratch("g")), ptr(at.counter("rc"))
    split = op.router_split.value.data
    if split == 1:
        return [
            KernelCall(
                variant(op, "moe_route", wr),
                (cdiv(experts, WARPS), rows, 1),
                THREADS,
                (rl, ids, gates, rc, *xs, router, i32(d), i32(experts), i32(topk), over_all(op)),
            )
        ]
    cut = (ptr(at.scratch("rp")), ptr(at.counter("rq")))
    return [
        KernelCall(
            variant(op, "gemv", wr),
            (cdiv(experts, TILE), split, rows),
            THREADS,
            (rl, i32(experts), *xs, router, scales, NULL, *cut, i32(experts), i32(d), i32(k_part(d, split))),
        ),
        KernelCall("mix_pick", (1, rows, 1), THREADS, (ids, gates, rc, rl, i32(experts), i32(topk), over_all(op))),
    ]


def _router(op: Mixture, at: Operands, router) -> np.uint64:
    """The pointer of a shared expert's router (f32 or bf16, as its down projection: never Q8_0)."""
    data, scales = weight(op, at, router)
    if scales:
        raise fail(op, "the shared expert's router must be f32 or bf16")
    return data


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
    return residual, gain, f32(op.eps.value.data if isinstance(op, MoeAddNormOp) else 1e-6)


def batched_calls(op: Mixture, at: Operands) -> list[KernelCall]:
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
    if not op.gathers_quantized(numerics(op)):
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
            variant(op, "mix_hidden", wg, wu),
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
    if op.quantizes_rows(numerics(op)):
        hq = (ptr(at.scratch("hq")), ptr(at.scratch("hl")) if two else NULL, ptr(at.scratch("hs")))
        calls.append(quantize_call(h, hq, choices * f))
        hidden = (NULL, *hq)
    pa = ptr(at.scratch("pa"))
    calls.append(
        KernelCall(
            variant(op, "mix_weigh", wd),
            (cdiv(d, TILE), choices, 1),
            THREADS,
            (pa, *hidden, ids, gates, el, *weight(op, at, wd), i32(d), i32(f)),
        )
    )
    residual, gain, eps = _fused(op, at)
    shared, fs = (NULL,) * 7, 0
    shared_matrices: list[Bound] = []  # the shared expert's down projection and router, where it has one
    if isinstance(op, SharedMixture):
        # The shared expert's hidden rows reuse the choices' (h, hq): the weighed rows no longer need them.
        sg, su, sd, sr = (operand(op, f"w_shared_{n}") for n in ("gate", "up", "down", "router"))
        fs = sg.shape[0]
        if fs > topk * f or (op.quantizes_rows(numerics(op)) and fs % QBLOCK):
            raise fail(
                op,
                f"a shared hidden row of {fs} values does not fit the {topk} x {f} of the choices' "
                f"rows, or is not whole {QBLOCK}-value blocks",
            )
        calls.append(
            KernelCall(
                variant(op, "glu", sg, su),
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
        if op.quantizes_rows(numerics(op)):
            calls.append(quantize_call(h, hidden[1:], rows * fs))
        shared, shared_matrices = (*hidden, *weight(op, at, sd), _router(op, at, sr)), [sd, sr]
    calls.append(
        KernelCall(
            variant(op, "mix_combine", *shared_matrices),
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


def decode_calls(op: Mixture, at: Operands) -> list[KernelCall]:
    """The decode row's mixture with a shared expert, the residual or the next norm: route, the choices' hidden rows
    and the shared expert's after them, quantized under int8, and the down projections finished in mix_down."""
    x, (wr, wg, wu, wd), rows, d, f, experts, topk = _mixture(op)
    out = operand(op, "out")
    calls = _route(op, at, x, wr, rows, d, experts, topk)
    ids, gates, h = ptr(at.scratch("i")), ptr(at.scratch("g")), ptr(at.scratch("h"))
    xs = activation(op, at, "x")
    calls.append(
        KernelCall(
            variant(op, "moe_hidden", wg, wu),
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
    shared = isinstance(op, SharedMixture)
    fs = operand(op, "w_shared_gate").shape[0] if shared else 0
    if shared:
        sg, su = operand(op, "w_shared_gate"), operand(op, "w_shared_up")
        calls.append(
            KernelCall(
                variant(op, "glu", sg, su),
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
    if op.quantizes_rows(numerics(op)):
        if fs % QBLOCK:
            raise fail(op, f"a shared hidden row of {fs} values is not a whole number of {QBLOCK}-value blocks")
        hq = (ptr(at.scratch("hq")), ptr(at.scratch("hl")) if numerics(op).two_words else NULL, ptr(at.scratch("hs")))
        calls.append(quantize_call(h, hq, topk * f + fs))
        hidden = (NULL, *hq)
    if shared:
        sd, sr = operand(op, "w_shared_down"), operand(op, "w_shared_router")
        shared_args, matrices = (*weight(op, at, sd), _router(op, at, sr)), [wd, sd, sr]
    else:
        shared_args, matrices = (NULL, NULL, NULL), [wd]
    residual, gain, eps = _fused(op, at)
    gc = ptr(at.counter("gc")) if gain else NULL
    calls.append(
        KernelCall(
            variant(op, "mix_down", *matrices),
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


@lowers(MoeSharedOp, MoeSharedAddOp, MoeAddOp, MoeAddNormOp)
def fused_calls(op: SharedMixture | MoeAddOp | MoeAddNormOp, at: Operands) -> list[KernelCall]:
    x = operand(op, "x")
    d = operand(op, "w_gate").shape[2]
    return batched_calls(op, at) if x.length // d > 1 else decode_calls(op, at)
