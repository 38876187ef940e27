"""Qwen3-Next's linear attention (delta.cu): the causal convolution with its window as state, and the gated delta rule
with its gates and gated norm, stepped a row at a time or in chunks; their kernel calls and numpy twins."""

from __future__ import annotations

import numpy as np

from lanearena.dialects.kinds.recurrent import ConvOp, DeltaOp
from lanearena.kernel_shapes import DELTA_CHUNK, delta_in_chunks
from lanearena.lowering.kernels import twin
from lanearena.lowering.kernels.base import (
    THREADS,
    TILE,
    KernelCall,
    Operands,
    cdiv,
    f32,
    fail,
    i32,
    kernel,
    lowers,
    operand,
    ptr,
    quant_out,
    weight,
)
from lanearena.lowering.kernels.rows import _store_quantized
from lanearena.lowering.kernels.twin import F32
from lanearena.model import QBLOCK, Form

CONV_MAX = 8
"""The most taps a convolution takes (delta.cu's CONV_MAX)."""

NULL = ptr(0)


@lowers(ConvOp)
def conv_calls(op: ConvOp, at: Operands) -> list[KernelCall]:
    x, w, state, out = (operand(op, n) for n in ("x", "w", "state", "out"))
    channels, width = w.shape
    seqs = int(op.params["seqs"])
    slot = state.shape[1:] if seqs > 1 else state.shape
    rows = x.length // channels
    if not 2 <= width <= CONV_MAX or slot != (width - 1, channels) or x.length % channels or rows % seqs:
        raise fail(
            op,
            f"a window {state.shape} and {x.length} values do not fit {channels} channels of "
            f"{width} taps (2 to {CONV_MAX})",
        )
    data, scales = weight(op, at, w)
    if scales:
        raise fail(op, "a convolution's taps must be f32")
    args = (
        ptr(at.plain(state.value)),
        ptr(at.plain(out.value)),
        ptr(at.plain(x.value)),
        data,
        i32(rows // seqs),
        i32(channels),
        i32(width),
    )
    return [KernelCall("conv", (cdiv(channels, THREADS[0]), seqs, 1), THREADS, args)]


@kernel
def conv(dev, grid, block, state, out, x, w, rows, channels, width) -> None:
    twin.check_block("conv", block)
    rows, channels, width = int(rows), int(channels), int(width)
    each = THREADS[0]
    for b, s in np.ndindex(grid[0], grid[1]):  # a block THREADS channels of a sequence
        c0, c1 = b * each, min(channels, (b + 1) * each)
        window = int(state) + s * (width - 1) * channels * 4
        first = s * rows  # the sequence's first row
        taps = dev.download(int(w), F32, channels * width).reshape(channels, width)[c0:c1]
        win = dev.download(window, F32, (width - 1) * channels).reshape(width - 1, channels)[:, c0:c1].copy()
        for t in range(first, first + rows):
            new = dev.download(int(x) + (t * channels + c0) * 4, F32, c1 - c0)
            win = np.concatenate([win, new[None]])
            dev.upload(int(out) + (t * channels + c0) * 4, twin.silu((taps.T * win).sum(axis=0, dtype=F32)))
            win = win[1:]
        for j in range(width - 1):
            dev.upload(window + (j * channels + c0) * 4, win[j])


@lowers(DeltaOp)
def delta_calls(op: DeltaOp, at: Operands) -> list[KernelCall]:
    qkv, z, ab, state, out = (operand(op, n) for n in ("qkv", "z", "ab", "state", "out"))
    seqs = int(op.params["seqs"])
    slot = state.shape[1:] if seqs > 1 else state.shape
    hv, d = slot[0], slot[-1]
    hk = op.key_heads.value.data
    rows = z.length // (hv * d)
    if slot != (hv, d, d) or hv % hk or d > THREADS[0] or qkv.length != rows * (2 * hk + hv) * d or rows % seqs:
        raise fail(
            op,
            f"a state {state.shape} of {hk} key heads does not fit rows of {qkv.length // max(rows, 1)} "
            f"(heads of at most {THREADS[0]})",
        )
    forms = op.written_forms("out")
    if Form.QUANT in forms and d % QBLOCK:
        raise fail(op, f"heads of {d} values cannot be quantized in {QBLOCK}-value blocks")
    outs = (
        ptr(at.plain(out.value)) if Form.PLAIN in forms else NULL,
        *(quant_out(at, out.value) if Form.QUANT in forms else (NULL,) * 3),
    )
    gains = [weight(op, at, operand(op, n)) for n in ("a_log", "dt_bias", "gain")]
    if any(scales for _, scales in gains):
        raise fail(op, "a_log, dt_bias and gain must be f32")
    ins = (ptr(at.plain(qkv.value)), ptr(at.plain(z.value)), ptr(at.plain(ab.value)), *(g for g, _ in gains))
    eps = f32(op.eps.value.data)
    if seqs > 1 and rows != seqs:
        raise fail(op, f"{rows} rows of {seqs} sequences: the delta rule steps one row a sequence")
    if delta_in_chunks(rows // seqs):
        chunk = tuple(ptr(at.scratch(tag)) for tag in ("dk", "dq", "dt", "dp", "dg"))
        return [
            KernelCall(
                "delta_chunk",
                (hv, 1, 1),
                THREADS,
                (
                    ptr(at.plain(state.value)),
                    *outs,
                    ptr(at.scratch("o")),
                    *chunk,
                    *ins,
                    i32(rows),
                    i32(hv),
                    i32(hk),
                    i32(d),
                    eps,
                ),
            )
        ]
    return [
        KernelCall(
            "delta_step",
            (hv, cdiv(d, TILE), rows),
            THREADS,
            (
                ptr(at.plain(state.value)),
                *outs,
                ptr(at.scratch("o")),
                ptr(at.counter("dc")),
                *ins,
                i32(hv),
                i32(hk),
                i32(d),
                eps,
            ),
        )
    ]


def _softplus(x):
    with np.errstate(over="ignore"):
        return np.where(x > 20, x, np.log1p(np.exp(np.minimum(x, 20)))).astype(F32)


def _sigmoid(x):
    with np.errstate(over="ignore"):
        return (F32(1) / (F32(1) + np.exp(-x))).astype(F32)


def _normed(v: np.ndarray) -> np.ndarray:
    """Each row of `v` L2-normed (eps 1e-6 inside the root)."""
    return v / np.sqrt((v * v).sum(axis=-1, keepdims=True, dtype=F32) + F32(1e-6))


def _gated_norm(dev, outs: tuple, o: int, z: int, gain: int, at: int, d: int, eps) -> None:
    """Head row `at` of o normed, times gain and silu(z), into the plain and quantized outputs given."""
    out, oh, ol, os = (int(p) for p in outs)
    y = dev.download(o + at * 4, F32, d)
    inv = F32(1) / np.sqrt((y * y).sum(dtype=F32) / F32(d) + eps)
    y = y * inv * dev.download(int(gain), F32, d) * twin.silu(dev.download(int(z) + at * 4, F32, d))
    if out:
        dev.upload(out + at * 4, y)
    if oh:
        _store_quantized(dev, (oh, ol, os), at, y)


def _gates(dev, ab: int, a_log: int, dt_bias: int, t: int, h: int, hv: int) -> tuple:
    """Row t's log decay g and beta for value head h."""
    a, b = dev.download(ab + (t * 2 * hv + h) * 4, F32, 1)[0], dev.download(ab + (t * 2 * hv + hv + h) * 4, F32, 1)[0]
    g = -np.exp(dev.download(a_log + h * 4, F32, 1)[0]) * _softplus(a + dev.download(dt_bias + h * 4, F32, 1)[0])
    return F32(g), _sigmoid(b)


@kernel
def delta_step(
    dev, grid, block, state, out, oh, ol, os, o, dc, qkv, z, ab, a_log, dt_bias, gain, hv, hk, d, eps
) -> None:
    twin.check_block("delta_step", block)
    hv, hk, d = int(hv), int(hk), int(d)
    heads, tiles, rows = grid
    counts = twin.Counters(dev, "delta_step", dc, rows * hv)
    for r, h, tile in np.ndindex(rows, heads, tiles):  # a block TILE value columns of a head of a sequence's row
        kh = h // (hv // hk)
        row = dev.download(int(qkv) + r * (2 * hk + hv) * d * 4, F32, (2 * hk + hv) * d)
        q = _normed(row[kh * d : (kh + 1) * d]) * F32(1 / np.sqrt(d))
        k = _normed(row[(hk + kh) * d : (hk + kh + 1) * d])
        v = row[(2 * hk + h) * d : (2 * hk + h + 1) * d]
        g, beta = _gates(dev, int(ab), int(a_log), int(dt_bias), r, h, hv)
        j0, j1 = tile * TILE, min(d, (tile + 1) * TILE)
        s = dev.view(int(state) + (r * hv + h) * d * d * 4, F32, d * d).reshape(d, d)
        cols = s[:, j0:j1] * np.exp(g)
        delta = (v[j0:j1] - k @ cols) * beta
        cols = cols + np.outer(k, delta)
        s[:, j0:j1] = cols
        at = (r * hv + h) * d  # head h of the row in o, z and out
        dev.upload(int(o) + (at + j0) * 4, q @ cols)
        if counts.arrive(slice(r * hv + h, r * hv + h + 1), tiles):
            _gated_norm(dev, (out, oh, ol, os), int(o), z, gain, at, d, eps)


@kernel
def delta_chunk(
    dev,
    grid,
    block,
    state,
    out,
    oh,
    ol,
    os,
    o,
    dk,
    dq,
    dt,
    dp,
    dg,
    qkv,
    z,
    ab,
    a_log,
    dt_bias,
    gain,
    rows,
    hv,
    hk,
    d,
    eps,
) -> None:
    twin.check_block("delta_chunk", block)
    rows, hv, hk, d = int(rows), int(hv), int(hk), int(d)
    C, width, ow = DELTA_CHUNK, (2 * hk + hv) * d, hv * d
    for h in range(grid[0]):  # a block a head, its chunks in order
        kh = h // (hv // hk)
        x = dev.download(int(qkv), F32, rows * width).reshape(rows, width)
        s = dev.view(int(state) + h * d * d * 4, F32, d * d).reshape(d, d)
        for c in range(cdiv(rows, C)):
            t0, n = c * C, min(C, rows - c * C)
            base = c * hv + h
            K, Q = (dev.view(int(p) + base * C * d * 4, F32, C * d).reshape(C, d)[:n] for p in (dk, dq))
            T, P = (dev.view(int(p) + base * C * C * 4, F32, C * C).reshape(C, C)[:n, :n] for p in (dt, dp))
            G = dev.view(int(dg) + base * C * 4, F32, C)[:n]
            Out = dev.view(int(o), F32, rows * ow).reshape(rows, hv, d)[t0 : t0 + n, h]
            keys = _normed(x[t0 : t0 + n, (hk + kh) * d : (hk + kh + 1) * d])
            Q[...] = _normed(x[t0 : t0 + n, kh * d : (kh + 1) * d]) * F32(1 / np.sqrt(d))
            K[...] = keys
            gates = [_gates(dev, int(ab), int(a_log), int(dt_bias), t0 + t, h, hv) for t in range(n)]
            G[...] = np.cumsum(np.array([g for g, _ in gates], F32), dtype=F32)
            beta = np.array([b for _, b in gates], F32)
            below = np.tril(np.ones((n, n), bool), -1)
            e = np.exp(np.where(np.tril(np.ones((n, n), bool)), G[:, None] - G[None, :], F32(0)))
            P[...] = np.where(below | np.eye(n, dtype=bool), (Q @ K.T) * e, F32(0))
            T[...] = np.where(below, -(beta[:, None] * (K @ K.T)) * e, F32(0))
            for t in range(1, n):
                T[t, :t] = T[t, :t] + T[t, :t] @ T[:t, :t]
            T[...] = (T + np.eye(n, dtype=F32)) * beta[None, :]
            Out[...] = T @ (K * np.exp(G)[:, None])
            K[...] = Out
            Q[...] = Q * np.exp(G)[:, None]
            values = x[t0 : t0 + n, (2 * hk + h) * d : (2 * hk + h + 1) * d]
            for t in range(n):
                inter, vnew = Q[t] @ s, T[t, : t + 1] @ values[: t + 1] - K[t] @ s
                K[t], Out[t] = vnew, inter
            Out[...] = Out + P @ K
            last = G[n - 1]
            s[...] = s * np.exp(last) + (keys * np.exp(last - G)[:, None]).T @ K
    for h in range(grid[0]):
        for t in range(rows):
            _gated_norm(dev, (out, oh, ol, os), int(o), z, gain, t * ow + h * d, d, eps)
