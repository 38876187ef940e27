"""What each kernel kind takes its operands to be: the shapes, element types and forms that `lane`'s kernel ops
verify against the kernels' semantics (`docs/kernels.md`) and their scratch (`kinds`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from xdsl.utils.exceptions import VerifyException

from lanearena import kinds, seedhelpers
from lanearena.dialects.lane_tensors import TensorDef, _length, step_numerics
from lanearena.model import QBLOCK, Form, Numerics

if TYPE_CHECKING:
    from lanearena.dialects.lane_launches import KernelOp  # whose verifier calls these checks


def _shape_error(op: KernelOp, message: str) -> VerifyException:
    return VerifyException(f"{op.name}: {message}")


def _dims(t: TensorDef) -> tuple[int, ...]:
    return t.result.type.dims


def _len(t: TensorDef) -> int:
    return _length(t.result.type)


def _quantized(op: KernelOp, tensors: dict[str, TensorDef]) -> bool:
    """Whether a product reads a quantized activation or a Q8_0 weight, and so works in blocks."""
    return any(f == Form.QUANT.value for _, f in op.reads()) or any(
        t.result.type.elem == "i8" for t in tensors.values()
    )


def _rows(op: KernelOp, x: TensorDef, k: int, what: str) -> int:
    """The rows of `k` values `x` holds: its length must be a whole number of them."""
    if _len(x) % k:
        raise _shape_error(op, f"x '{x.tensor_name}' of {_len(x)} values is not rows of {what}'s {k} values (k)")
    return _len(x) // k


def _blocks(op: KernelOp, k: int, what: str) -> None:
    if k % QBLOCK:
        raise _shape_error(
            op, f"{what} of {k} values is not a whole number of {QBLOCK}-value blocks, as a quantized product needs"
        )


def _out_length(op: KernelOp, out: TensorDef, want: int, why: str) -> None:
    if _len(out) != want:
        raise _shape_error(op, f"out '{out.tensor_name}' holds {_len(out)} values, but {why} make {want}")


def _matrix(op: KernelOp, w: TensorDef, operand: str) -> tuple[int, int]:
    """(n, k) of weight `w`, which must be a matrix [n, k]."""
    if len(_dims(w)) != 2:
        raise _shape_error(op, f"{operand} '{w.tensor_name}' is {_dims(w)}, not a matrix [n, k]")
    n, k = _dims(w)
    return n, k


def _check_gather(op: KernelOp, t: dict[str, TensorDef], p: dict) -> None:
    table, ids, out = t["table"], t["ids"], t["out"]
    if len(_dims(table)) < 2:
        raise _shape_error(op, f"table '{table.tensor_name}' is {_dims(table)}, not rows [vocab, d]")
    d = _len(table) // _dims(table)[0]
    _out_length(op, out, _len(ids) * d, f"{_len(ids)} ids of table rows of {d} values")


def _check_norm(op: KernelOp, t: dict[str, TensorDef], p: dict) -> None:
    x, gain, out = t["x"], t["gain"], t["out"]
    d = _len(gain)
    if _len(x) % d:
        raise _shape_error(
            op,
            f"gain '{gain.tensor_name}' of {d} values does not divide x '{x.tensor_name}' of "
            f"{_len(x)} values into rows",
        )
    _out_length(op, out, _len(x), f"{_len(x) // d} rows of {d} values")
    forms = next((fs for v, fs in op.writes() if v is out.result), ())
    if Form.QUANT.value in forms and d % QBLOCK:
        raise _shape_error(op, f"rows of {d} values cannot be quantized in {QBLOCK}-value blocks")


def _check_quantize(op: KernelOp, t: dict[str, TensorDef], p: dict) -> None:
    _out_length(op, t["out"], _len(t["x"]), f"the {_len(t['x'])} values of x '{t['x'].tensor_name}'")


def _check_gemv(op: KernelOp, t: dict[str, TensorDef], p: dict) -> None:
    x, out = t["x"], t["out"]
    n, k = _matrix(op, t["w"], "w")
    rows = _rows(op, x, k, f"w '{t['w'].tensor_name}'")
    if _quantized(op, t):
        _blocks(op, k, "k")
    part = kinds.part_of(p)
    if part is None:
        _out_length(op, out, rows * n, f"{rows} rows of {n} values")
        return
    if part.width != n:
        raise _shape_error(op, f"a part of width {part.width} of every {part.pitch}, but w makes {n} values a row")
    _out_length(op, out, rows * part.pitch, f"{rows} rows of a pitch of {part.pitch}")


def _check_glu(op: KernelOp, t: dict[str, TensorDef], p: dict) -> None:
    x, wg, wu, out = t["x"], t["w_gate"], t["w_up"], t["out"]
    n, k = _matrix(op, wg, "w_gate")
    if _dims(wu) != _dims(wg):
        raise _shape_error(op, f"w_up '{wu.tensor_name}' is {_dims(wu)}, but w_gate is {_dims(wg)}")
    rows = _rows(op, x, k, f"w_gate '{wg.tensor_name}'")
    if _quantized(op, t):
        _blocks(op, k, "k")
    _out_length(op, out, rows * n, f"{rows} rows of {n} values")


def _check_rope(op: KernelOp, t: dict[str, TensorDef], p: dict) -> None:
    pos, x = t["pos"], t["x"]
    heads, rows = p["heads"], _len(pos)
    if _len(x) % (rows * heads) or (_len(x) // (rows * heads)) % 2:
        raise _shape_error(
            op,
            f"x '{x.tensor_name}' of {_len(x)} values is not {rows} rows (positions) of {heads} heads of an even size",
        )
    rotary = p.get("rotary", 0)
    if rotary % 2 or rotary > _len(x) // (rows * heads):
        raise _shape_error(
            op, f"rotary {rotary} is not an even count of at most a head's {_len(x) // (rows * heads)} values"
        )


def _check_kv_store(op: KernelOp, t: dict[str, TensorDef], p: dict) -> None:
    k, v, pos, kc, vc = (t[n] for n in ("k", "v", "pos", "k_cache", "v_cache"))
    if _dims(vc) != _dims(kc) or len(_dims(kc)) < 2:
        raise _shape_error(
            op,
            f"caches '{kc.tensor_name}' {_dims(kc)} and '{vc.tensor_name}' {_dims(vc)} are "
            "not two caches [length, width] of one shape",
        )
    width = _len(kc) // _dims(kc)[0]
    for new in (k, v):
        if _len(new) != _len(pos) * width:
            raise _shape_error(
                op,
                f"'{new.tensor_name}' of {_len(new)} values is not {_len(pos)} rows (positions) of the caches' {width}",
            )


def _check_attention(op: KernelOp, t: dict[str, TensorDef], p: dict) -> None:
    q, kc, vc, pos, out = (t[n] for n in ("q", "k_cache", "v_cache", "pos", "out"))
    heads, kv_heads = p["heads"], p["kv_heads"]
    width = _dims(q)[-1]
    if width % heads or _len(q) != _len(pos) * width:
        raise _shape_error(op, f"q '{q.tensor_name}' {_dims(q)} is not {_len(pos)} rows (positions) of {heads} heads")
    if heads % kv_heads:
        raise _shape_error(op, f"kv_heads {kv_heads} do not divide heads {heads}")
    hd = width // heads
    if _dims(vc) != _dims(kc) or _len(kc) != _dims(kc)[0] * kv_heads * hd:
        raise _shape_error(
            op,
            f"caches '{kc.tensor_name}' {_dims(kc)} and '{vc.tensor_name}' {_dims(vc)} are not "
            f"[length, {kv_heads} kv heads of {hd}] both",
        )
    _out_length(op, out, _len(q), f"the {_len(q)} values of q")


def _check_moe(op: KernelOp, t: dict[str, TensorDef], p: dict) -> None:
    x, wr, wg, wu, wd, out = (t[n] for n in ("x", "w_router", "w_gate", "w_up", "w_down", "out"))
    experts, topk = p["experts"], p["topk"]
    _check_mixture_flags(op, p)
    if len(_dims(wg)) != 3 or _dims(wg)[0] != experts:
        raise _shape_error(op, f"w_gate '{wg.tensor_name}' is {_dims(wg)}, not [{experts} experts, ffn, d]")
    _, f, d = _dims(wg)
    want = {"w_router": (wr, (experts, d)), "w_up": (wu, (experts, f, d)), "w_down": (wd, (experts, d, f))}
    for operand, (w, shape) in want.items():
        if _dims(w) != shape:
            raise _shape_error(op, f"{operand} '{w.tensor_name}' is {_dims(w)}, not {shape}")
    if topk > experts:
        raise _shape_error(op, f"topk {topk} exceeds the {experts} experts")
    _rows(op, x, d, f"w_gate '{wg.tensor_name}'")
    quantized = _quantized(op, t)
    if quantized:
        _blocks(op, d, "d")
    if quantized or step_numerics(op) not in (None, Numerics.F32):
        _blocks(op, f, "a hidden row")
    _out_length(op, out, _len(x), f"the {_len(x)} values of x")


def _check_binary(op: KernelOp, t: dict[str, TensorDef], p: dict) -> None:
    a, b, out = t["a"], t["b"], t["out"]
    if not _len(a) == _len(b) == _len(out):
        raise _shape_error(
            op,
            f"a '{a.tensor_name}', b '{b.tensor_name}' and out '{out.tensor_name}' hold "
            f"{_len(a)}, {_len(b)} and {_len(out)} values, not one length",
        )


def _check_argmax(op: KernelOp, t: dict[str, TensorDef], p: dict) -> None:
    logits, out = t["logits"], t["out"]
    vocab = _dims(logits)[-1]
    _out_length(op, out, _len(logits) // vocab, f"{_len(logits) // vocab} rows of {vocab} logits")


def _check_tiles(op: KernelOp, t: dict[str, TensorDef], p: dict) -> None:
    """A projection on the tensor cores: a product's shapes, and `whole` tiles fewer than it has."""
    w = t["w"] if "w" in t else t["w_gate"]  # a tiled kind takes one or the other
    if "w_gate" in t:
        _check_glu(op, t, p)
    else:
        _check_gemv(op, t, {k: v for k, v in p.items() if k not in kinds.PART_PARAMS})
    n, k = _dims(w)
    m = _len(t["x"]) // k
    split, whole = p.get("split", 1), p.get("whole", 0)
    wide = seedhelpers.gemm_tiles_wide(2 * n if "w_gate" in t else n)
    tiles = wide * -(-m // seedhelpers.gemm_rows(m, Numerics.F32))
    if split > 1 and whole >= tiles:
        raise _shape_error(op, f"whole {whole} leaves none of its {tiles} tiles to cut in {split} parts")


def _check_shared_attention(op: KernelOp, t: dict[str, TensorDef], p: dict) -> None:
    _check_attention(op, t, p)


def _check_two_word_attention(op: KernelOp, t: dict[str, TensorDef], p: dict) -> None:
    _check_attention(op, {**t}, {**p, "splits": 1})
    if step_numerics(op) not in (None, Numerics.INT8X2):
        raise _shape_error(op, "an attention in two words runs under int8x2 numerics only")


def _check_moe_shared(op: KernelOp, t: dict[str, TensorDef], p: dict) -> None:
    _check_moe(op, t, p)
    _, _, d = _dims(t["w_gate"])
    fs = _dims(t["w_shared_gate"])[0] if len(_dims(t["w_shared_gate"])) == 2 else 0
    want = {"w_shared_gate": (fs, d), "w_shared_up": (fs, d), "w_shared_down": (d, fs), "w_shared_router": (1, d)}
    for operand, shape in want.items():
        if _dims(t[operand]) != shape or not fs:
            raise _shape_error(op, f"{operand} '{t[operand].tensor_name}' is {_dims(t[operand])}, not {shape}")
    rows, f = _len(t["x"]) // d, _dims(t["w_gate"])[1]
    if rows > 1 and fs > p["topk"] * f:
        raise _shape_error(
            op,
            f"a chunk's shared expert of {fs} values a row does not fit the {p['topk']} x {f} "
            "of its choices' hidden rows, where it is made",
        )


def _check_mixture_flags(op: KernelOp, p: dict) -> None:
    if p.get("paired", 0) and not p.get("tc", 0):
        raise _shape_error(op, "paired gate and up rows are a GEMM on the tensor cores: paired needs tc")


def _check_conv(op: KernelOp, t: dict[str, TensorDef], p: dict) -> None:
    x, w, state, out = t["x"], t["w"], t["state"], t["out"]
    ch, width = _matrix(op, w, "w")
    if _len(x) % ch or width < 2:
        raise _shape_error(
            op,
            f"x '{x.tensor_name}' of {_len(x)} values is not rows of w's {ch} channels, or the "
            f"kernel's {width} taps are fewer than 2",
        )
    if _dims(state) != (width - 1, ch):
        raise _shape_error(
            op, f"state '{state.tensor_name}' is {_dims(state)}, not the last {width - 1} rows of {ch} channels"
        )
    _out_length(op, out, _len(x), f"the {_len(x)} values of x")


def _check_delta(op: KernelOp, t: dict[str, TensorDef], p: dict) -> None:
    qkv, z, ab, state, out = (t[n] for n in ("qkv", "z", "ab", "state", "out"))
    if len(_dims(state)) != 3 or _dims(state)[1] != _dims(state)[2]:
        raise _shape_error(op, f"state '{state.tensor_name}' is {_dims(state)}, not [value heads, d, d]")
    hv, d, _ = _dims(state)
    hk = p["key_heads"]
    if hv % hk:
        raise _shape_error(op, f"key_heads {hk} do not divide the state's {hv} value heads")
    if _len(z) % (hv * d):
        raise _shape_error(op, f"z '{z.tensor_name}' of {_len(z)} values is not rows of {hv} heads of {d}")
    rows = _len(z) // (hv * d)
    wants = {
        "qkv": (qkv, rows * (2 * hk + hv) * d),
        "ab": (ab, rows * 2 * hv),
        "a_log": (t["a_log"], hv),
        "dt_bias": (t["dt_bias"], hv),
        "gain": (t["gain"], d),
        "out": (out, rows * hv * d),
    }
    for operand, (tensor, n) in wants.items():
        if _len(tensor) != n:
            raise _shape_error(
                op,
                f"{operand} '{tensor.tensor_name}' holds {_len(tensor)} values, but {rows} rows "
                f"of {hk} key and {hv} value heads of {d} make {n}",
            )
    if Form.QUANT.value in dict(op.writes()).get(out.result, ()) and d % QBLOCK:
        raise _shape_error(op, f"heads of {d} values cannot be quantized in {QBLOCK}-value blocks")


def _check_gather_norm(op: KernelOp, t: dict[str, TensorDef], p: dict) -> None:
    _check_gather(op, {"table": t["table"], "ids": t["ids"], "out": t["x"]}, p)
    _check_norm(op, {"x": t["x"], "gain": t["gain"], "out": t["out"]}, p)


def _check_gemv_rope(op: KernelOp, t: dict[str, TensorDef], p: dict) -> None:
    _check_gemv(op, t, p)
    n, _ = _dims(t["w"])
    rows = _len(t["out"]) // n
    turned = p["heads"] + p["kv_heads"]
    if rows != _len(t["pos"]) or n % (turned + p["kv_heads"]) or (n // (turned + p["kv_heads"])) % 2:
        raise _shape_error(
            op,
            f"out '{t['out'].tensor_name}' of {rows} rows of {n} values is not {_len(t['pos'])} "
            f"rows (positions) of q, k and v heads of an even size ({p['heads']}, {p['kv_heads']} "
            f"and {p['kv_heads']} heads)",
        )


def _check_gemv_norm(op: KernelOp, t: dict[str, TensorDef], p: dict) -> None:
    _check_gemv(op, t, p)
    _check_norm(op, {"x": t["out"], "gain": t["gain"], "out": t["normed"]}, p)


def _check_moe_add(op: KernelOp, t: dict[str, TensorDef], p: dict) -> None:
    _check_moe(op, t, p)
    x, residual = t["x"], t["residual"]
    if _len(residual) != _len(x):
        raise _shape_error(op, f"residual '{residual.tensor_name}' of {_len(residual)} values is not x's {_len(x)}")
    if "gain" in t:
        _check_norm(op, {"x": t["out"], "gain": t["gain"], "out": t["normed"]}, p)


_SHAPES: dict[str, Callable[[KernelOp, dict[str, TensorDef], dict], None]] = {
    "gather": _check_gather,
    "norm": _check_norm,
    "quantize": _check_quantize,
    "gemv": _check_gemv,
    "glu": _check_glu,
    "rope": _check_rope,
    "kv_store": _check_kv_store,
    "attention": _check_attention,
    "moe": _check_moe,
    "binary": _check_binary,
    "argmax": _check_argmax,
    "gemm_tc": _check_tiles,
    "glu_tc": _check_tiles,
    "attention_shared": _check_shared_attention,
    "attention_i8x2": _check_two_word_attention,
    "moe_shared": _check_moe_shared,
    "conv": _check_conv,
    "delta": _check_delta,
    "gather_norm": _check_gather_norm,
    "gemv_rope": _check_gemv_rope,
    "gemv_norm": _check_gemv_norm,
    "moe_add": _check_moe_add,
    "moe_add_norm": _check_moe_add,
}
"""Each kind's shape rules: what its kernels and its scratch (`kinds`) take its operands to be."""
