"""An independent float64 interpreter of a whole step, the oracle the lowering's runs are compared with.

It runs a plain step (a `model.Step`, read by attribute: tensors, views, launches with their kind, operands by
position, parameters and touched forms) over its feeds, tensor by tensor by name. Nothing here comes from the
package: no arena, no offsets, no emitted module, no numpy twins, no quantization helpers. Each kind's math is
written from what it means (docs/kernels.md, docs/kinds.md), in float64; the only conventions taken
from the kernels are the ones that change a result beyond rounding, stated where they are used:

- Q8_0 as GGML defines it (the tests' own, `q8_0`): a block of QBLOCK = 32 consecutive values, d = max|x| / 127,
  q = round(x / d) clamped to [-127, 127], a block of zeros all 0; under two words (int8x2) also a low word
  l = round((x / d - q) * 127), and the block stands for d * (q + l / 127). docs/kernels.md fixes the rounding: round
  half to even, and d and x / d are computed in f32 (so a word is the kernels' word whenever the value quantized is
  the same f32).
- An i8 weight is fed as f32 values and held as their Q8_0 (one word, blocks along its last dimension).
- A bf16 weight is fed as f32 values and held as their bf16 (an f32's high 16 bits, rounded to nearest, ties to
  even): exact values in float64, and a value bf16 holds is its own rounding. Activations stay f32 under bf16.
- A quantized form is an array of its own (the values its blocks stand for), shared by a view that starts on a whole
  block and the tensor it views; a view that starts inside a block has a quantized array of its own.
- A mixture's hidden rows (and its shared expert's) are quantized in the step's numerics before the down projection
  where the numerics are int8 and the launch does not say `f32`; over more than one row its activation rows are
  gathered quantized then too (as read if read quantized). An attention in two words reads its cache quantized a row
  a kv head (one scale for the head's values).
- Top-k and arg-max rank NaN above every number, ties to the lower index.

`run(step, feeds)` returns the outputs and state as the lowered module does, and records every discrete choice's
margin (a router's k-th against the next logit, an arg-max's best against the second) so that a comparison can tell
a choice the two runs may legitimately make apart from a wrong one."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .q8_0 import LIMIT, QBLOCK, quantized, tie_distance


def view_root(step, name: str) -> tuple[str, int]:
    """The tensor at the bottom of `name`'s views in `step`, and where `name` starts in it."""
    t, at = step.tensors[name], 0
    while t.view_of is not None:
        at += t.view_offset
        t = step.tensors[t.view_of]
    return t.name, at


MIXTURE = ("x", "w_router", "w_gate", "w_up", "w_down")

OPERANDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "gather": (("table", "ids"), ("out",)),
    "norm": (("x", "gain"), ("out",)),
    "quantize": (("x",), ("out",)),
    "gemv": (("x", "w"), ("out",)),
    "glu": (("x", "w_gate", "w_up"), ("out",)),
    "gemv_bias": (("x", "w", "bias"), ("out",)),
    "glu_bias": (("x", "w_gate", "w_up", "b_gate", "b_up"), ("out",)),
    "gemm_tc": (("x", "w"), ("out",)),
    "glu_tc": (("x", "w_gate", "w_up"), ("out",)),
    "rope": (("pos",), ("x",)),
    "kv_store": (("k", "v", "pos"), ("k_cache", "v_cache")),
    "attention": (("q", "k_cache", "v_cache", "pos"), ("out",)),
    "attention_shared": (("q", "k_cache", "v_cache", "pos"), ("out",)),
    "attention_i8x2": (("q", "k_cache", "v_cache", "pos"), ("out",)),
    "rope_attention": (("q", "k", "v", "pos"), ("k_cache", "v_cache", "out")),
    "norm_rope_attention": (("q", "k", "v", "pos", "q_gain", "k_gain"), ("k_cache", "v_cache", "out")),
    "moe": (MIXTURE, ("out",)),
    "moe_shared": (
        (
            "x",
            "w_router",
            "w_gate",
            "w_up",
            "w_down",
            "w_shared_gate",
            "w_shared_up",
            "w_shared_down",
            "w_shared_router",
        ),
        ("out",),
    ),
    "moe_add": ((*MIXTURE, "residual"), ("out",)),
    "moe_shared_add": (
        (
            *MIXTURE,
            "w_shared_gate",
            "w_shared_up",
            "w_shared_down",
            "w_shared_router",
            "residual",
        ),
        ("out",),
    ),
    "moe_add_norm": ((*MIXTURE, "residual", "gain"), ("out", "normed")),
    "binary": (("a", "b"), ("out",)),
    "argmax": (("logits",), ("out",)),
    "conv": (("x", "w"), ("state", "out")),
    "delta": (("qkv", "z", "ab", "a_log", "dt_bias", "gain"), ("state", "out")),
    "gather_norm": (("table", "ids", "gain"), ("x", "out")),
    "gemv_rope": (("x", "w", "pos"), ("out",)),
    "gemv_norm": (("x", "w", "gain"), ("out", "normed")),
    "norm_gemv": (("x", "gain", "w"), ("out",)),
    "norm_gemv_bias": (("x", "gain", "w", "bias"), ("out",)),
    "norm_glu": (("x", "gain", "w_gate", "w_up"), ("out",)),
    "gemv_add": (("x", "w", "residual"), ("out",)),
    "gemv_add_norm": (("x", "w", "residual", "gain"), ("out", "normed")),
}
"""Each kind's operands, read and written, in the order a launch gives them (docs/kinds.md)."""

DEFAULTS: dict[str, float | int | str] = {
    "eps": 1e-6,
    "split": 1,
    "theta": 1e6,
    "rotary": 0,
    "op": "add",
    "scaling": "default",
    "factor": 1.0,
    "low_freq": 1.0,
    "high_freq": 4.0,
    "original": 0,
    "window": 0,
    "gates": "chosen",
}
"""The parameters a launch may leave at their documented defaults (and that change a result)."""


# --- Q8_0 -------------------------------------------------------------------------------------------------------------


def two_word_rows(x: np.ndarray) -> np.ndarray:
    """Rows of `x` quantized in two words with one scale a row (an attention in two words' cache), in float64."""
    rows = np.asarray(x, np.float64).astype(np.float32)
    d = np.abs(rows).max(axis=-1, keepdims=True) / np.float32(LIMIT)
    with np.errstate(invalid="ignore", divide="ignore"):
        t = np.where(d == 0, np.float32(0), rows / d)
    q = np.clip(np.rint(t), -LIMIT, LIMIT)
    low = np.clip(np.rint((t - q) * np.float32(LIMIT)), -LIMIT, LIMIT)
    return (q.astype(np.float64) + low.astype(np.float64) / LIMIT) * d.astype(np.float64)


def bf16(x: np.ndarray) -> np.ndarray:
    """`x` rounded to bf16 (to nearest, ties to even: of its f32's 32 bits, the high 16 rounded by the low 16), in
    float64. NaN and infinities stay what they are."""
    f = np.asarray(x, np.float64).astype(np.float32)
    bits = f.view(np.uint32).astype(np.uint64)
    low, high = bits & 0xFFFF, bits >> 16
    up = (low > 0x8000) | ((low == 0x8000) & (high & 1 == 1))
    rounded = ((high + up) << 16).astype(np.uint32).view(np.float32).astype(np.float64)
    return np.where(np.isfinite(f), rounded, f.astype(np.float64))


def value(e) -> str:
    """An enumeration's value (a role, form or numerics), or the string given."""
    return getattr(e, "value", e)


# --- Math -------------------------------------------------------------------------------------------------------------


def silu(a: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        return a / (1 + np.exp(-a))


def sigmoid(a):
    with np.errstate(over="ignore"):
        return 1 / (1 + np.exp(-a))


def rms_normed(y: np.ndarray, gain: np.ndarray, eps: float) -> np.ndarray:
    """Each row of `y` (rows of gain's length) over its root mean square, times `gain`."""
    y = y.reshape(-1, gain.size)
    return (y / np.sqrt((y * y).mean(axis=1, keepdims=True) + eps) * gain).reshape(-1)


def ranked(values: np.ndarray) -> list[int]:
    """Indices of `values` best first: NaN above every number, larger first, ties to the lower index."""
    keys = [(0 if np.isnan(v) else 1, 0.0 if np.isnan(v) else -float(v), i) for i, v in enumerate(values)]
    return [i for *_, i in sorted(keys)]


def frequencies(rot: int, theta: float, scaling="default", factor=1.0, low=1.0, high=4.0, original=0, n=0):
    """The angle per position of each of `rot` / 2 pairs: theta^(-2i/rot), scaled as transformers'
    ROPE_INIT_FUNCTIONS scale inv_freq: linear, over factor; dynamic, theta grown to theta * (factor * n / original -
    (factor - 1))^(rot / (rot - 2)) where n (the largest position + 1) passes the original length; llama3, by each
    wavelength 2 pi / f: over factor past original / low, kept under original / high, between (1 - s) f / factor + s f
    with s = (original / wavelength - low) / (high - low)."""
    theta = float(theta)
    if scaling == "dynamic" and n > original:
        theta *= (factor * n / original - (factor - 1)) ** (rot / (rot - 2))
    f = theta ** (-2.0 * np.arange(rot // 2) / rot)
    if scaling == "linear":
        return f / factor
    if scaling != "llama3":
        return f
    wavelength = 2 * np.pi / f
    s = (original / wavelength - low) / (high - low)
    return np.where(
        wavelength > original / low, f / factor, np.where(wavelength < original / high, f, (1 - s) * f / factor + s * f)
    )


def turned(x: np.ndarray, pos: np.ndarray, rot: int, freq: np.ndarray) -> np.ndarray:
    """Rows of heads ([rows, heads, hd]) with the first `rot` of each head rotated by position (rotate-half, as
    NeoX, Qwen and Llama): pair i with i + rot/2 at angle pos * freq[i]."""
    half = rot // 2
    f = pos.astype(np.float64)[:, None, None] * freq
    a, b = x[..., :half].copy(), x[..., half:rot].copy()
    out = x.copy()
    out[..., :half] = a * np.cos(f) - b * np.sin(f)
    out[..., half:rot] = b * np.cos(f) + a * np.sin(f)
    return out


def attention(q, k_cache, v_cache, positions, heads: int, kv_heads: int, window: int = 0) -> np.ndarray:
    """Transformers' eager_attention_forward in float64, the one attention reference of the tests: for each row of
    queries (at `positions[r]`) and each head, softmax(q k^T / sqrt(head_dim)) v over the cache positions its mask
    allows: the causal mask (kv_idx <= q_idx) and, where `window` is not 0, the sliding window's (kv_idx > q_idx -
    window); kv heads shared by groups of heads (repeat_kv: head h reads kv head h // (heads / kv_heads)). `q` holds
    [rows, heads * head_dim] values, the caches [length, kv_heads * head_dim] (any shapes of those sizes); positions
    the mask leaves out are never read (they may hold NaN). Returns [rows, heads * head_dim]."""
    rows = len(positions)
    q = np.asarray(q, dtype=np.float64).reshape(rows, heads, -1)
    hd = q.shape[2]
    keys, values = (np.asarray(c, dtype=np.float64).reshape(-1, kv_heads, hd) for c in (k_cache, v_cache))
    kv_idx = np.arange(keys.shape[0])
    out = np.empty((rows, heads, hd))
    for r in range(rows):
        seen = (kv_idx <= positions[r]) & (kv_idx > positions[r] - window if window else True)
        for h in range(heads):
            g = h // (heads // kv_heads)
            s = keys[seen, g] @ q[r, h] / np.sqrt(hd)
            e = np.exp(s - s.max())
            out[r, h] = e @ values[seen, g] / e.sum()
    return out.reshape(rows, -1)


# --- The interpreter --------------------------------------------------------------------------------------------------


TOLERANCE = {"f32": 2e-4, "bf16": 2e-4, "int8": 1e-3, "int8x2": 2e-3}
"""The largest difference from the reference allowed in a result, relative to the result's largest value, by the
step's numerics. f32: the runtime rounds every operation to f32 (6e-8 each) and sums in another order; over the
launches of a step that stays within 1e-6 of a result's scale (measured: 9e-7 over a thousand drawn steps), but
docs/kernels.md holds the delta rule in chunks to the recurrence only within 2e-4 (measured on a 70-row chunk:
3e-5), so 2e-4. bf16: as f32, its weights exact both here and in the runtime (only the runtime's f32 sums differ).
int8: as f32, but a value quantized on the other side of a rounding tie than the reference's (the reference
quantizes its float64 values, which differ from the runtime's in the last f32 bits) moves by one step, 1/127 of its
block's largest value, which a projection then spreads at about 1/127/sqrt(k) of its result's scale: 1e-3
(measured, with no such word: 2e-6). int8x2: its low words are 127 times finer and so land across a tie 127
times as often, each moving a value by 1/127^2 of its block's largest (measured: 2e-4 on a decoder step): 2e-3."""

TIE = 2 * LIMIT * 1e-6
"""How near, in quanta, a value quantized in one word may come to a rounding tie before a drawn step is no test
(`Run.ties`): the runtime's f32 values drift from the reference's by up to 1e-6 of their scale (measured: 9.1e-7 over
a thousand drawn steps), which moves x / d by up to 127e-6 of a quantum through x and as much again through d. Across
a tie a word moves by a whole quantum, 1/127 of its block's largest value, and where a projection's weights meet
that one word large, it can move the result by more than the int8 tolerance: a mixture's hidden value with x / d at
30.5 in f32 (30.5000014 in float64; its f32 and float64 values 1.4e-7 of their scale apart) put a drawn step
2.4e-3 off, and nudged up by 1e-6 in the reference puts the runtime within 9.2e-8 of it. Only under int8:
under int8x2 the low word takes up the high word's tie, and the low word's own ties move a value by 1/127^2 of its
block's largest, which the tolerance holds."""


@dataclass
class Margin:
    """A router's choice: the gap between its k-th logit and the next one, and the size of what was summed."""

    what: str
    gap: float
    scale: float


@dataclass
class Run:
    """A step's outputs and state by name; its routers' margins; for each arg-max result, each logit's distance
    below its row's best, relative to the logits' largest value (an index within the tolerance is as good a pick);
    and the values it quantized within `TIE` of a rounding tie, which the runtime may legitimately round the other
    way, and how near (in quanta) the nearest of all came (1.0 where nothing was quantized in one word)."""

    results: dict[str, np.ndarray]
    margins: list[Margin] = field(default_factory=list)
    below_best: dict[str, list[np.ndarray]] = field(default_factory=dict)
    ties: list[str] = field(default_factory=list)
    nearest_tie: float = 1.0

    def ambiguous(self, numerics) -> list[str]:
        """The routers whose choice of experts the runtime may legitimately make apart from the reference: the k-th
        and the next logit closer than four tolerances of the logits' scale."""
        tol = TOLERANCE[value(numerics)]
        return [m.what for m in self.margins if m.gap <= 4 * tol * m.scale]

    def differences(self, got: dict[str, np.ndarray], numerics) -> list[str]:
        """How `got` (a run's outputs and state) differs from the reference's beyond the numerics' tolerance: a
        missing result, NaN where the other has none, a value too far off, or an arg-max picking an index whose
        logit is further below the best than the tolerance."""
        tol = TOLERANCE[value(numerics)]
        out = []
        for name, want in self.results.items():
            if name not in got:
                out.append(f"'{name}' missing")
                continue
            have = np.asarray(got[name], np.float64).reshape(want.shape)
            if name in self.below_best:
                picks = have.reshape(len(self.below_best[name]), -1)[:, 0].astype(np.int64)
                far = [
                    float(below[p]) if 0 <= p < below.size else np.inf
                    for below, p in zip(self.below_best[name], picks, strict=True)
                ]
                if max(far) > 2 * tol:
                    out.append(f"'{name}' picks {picks.tolist()}, {max(far):.3g} of the logits' scale below the best")
                continue
            if not np.array_equal(np.isnan(have), np.isnan(want)):
                out.append(f"'{name}' has NaN at {np.argwhere(np.isnan(have) != np.isnan(want))[:4].tolist()}...")
                continue
            scale = float(np.nanmax(np.abs(want), initial=0.0)) or 1.0
            err = float(np.nanmax(np.abs(have - want), initial=0.0)) / scale
            if err > tol:
                out.append(f"'{name}' off by {err:.3g} of its largest value {scale:.3g} (tolerance {tol:g})")
        return out


class Interpreter:
    """The step's tensors as float64 arrays by name: each tensor that views nothing has its values (NaN until
    written), each quantized array the values its blocks stand for."""

    def __init__(self, step, feeds):
        self.step = step
        self.below_best: dict[str, list[np.ndarray]] = {}
        self.numerics = value(step.numerics)
        self.two = self.numerics == "int8x2"
        self.plain: dict[str, np.ndarray] = {}
        self.quant: dict[str, np.ndarray] = {}
        self.margins: list[Margin] = []
        self.ties: list[str] = []
        self.nearest_tie = 1.0
        for t in step.tensors.values():
            if t.view_of is not None:
                continue
            if t.name in feeds:
                values = np.asarray(feeds[t.name], np.float64).reshape(-1)
                if values.size != int(np.prod(t.shape)):
                    raise ValueError(f"feed '{t.name}' has {values.size} values, not {int(np.prod(t.shape))}")
                held = {"i8": lambda v: quantized(v, False), "bf16": bf16}.get(t.elem, np.copy)
                self.plain[t.name] = held(values)
            else:
                self.plain[t.name] = np.full(int(np.prod(t.shape)), np.nan)

    # Tensors and views

    def length(self, name: str) -> int:
        return int(np.prod(self.step.tensors[name].shape))

    def quant_home(self, name: str) -> tuple[str, int]:
        """The tensor whose quantized array `name`'s is, and where `name` starts in it: views are followed while
        they start on a whole block."""
        t, at = self.step.tensors[name], 0
        while t.view_of is not None and t.view_offset % QBLOCK == 0:
            at += t.view_offset
            t = self.step.tensors[t.view_of]
        return t.name, at

    def read(self, name: str, form: str = "plain") -> np.ndarray:
        n = self.length(name)
        if form == "plain":
            home, at = view_root(self.step, name)
            return self.plain[home][at : at + n].copy()
        home, at = self.quant_home(name)
        values = self.quant.get(home)
        return np.full(n, np.nan) if values is None else values[at : at + n].copy()

    def write(self, name: str, form: str, values: np.ndarray) -> None:
        values = np.asarray(values, np.float64).reshape(-1)
        n = self.length(name)
        assert values.size == n, (name, values.size, n)
        if form == "plain":
            home, at = view_root(self.step, name)
            self.plain[home][at : at + n] = values
            return
        home, at = self.quant_home(name)
        store = self.quant.setdefault(home, np.full(self.length(home), np.nan))
        store[at : at + n] = self.quantized(values, f"'{name}' quantized")

    def quantized(self, values: np.ndarray, what: str) -> np.ndarray:
        """An activation's `values` once quantized in the step's numerics, noting `what` among the ties where a value
        comes within `TIE` of a rounding tie in one word."""
        if not self.two:
            near = tie_distance(values)
            self.nearest_tie = min(self.nearest_tie, near)
            if near <= TIE:
                self.ties.append(f"{what} at a rounding tie")
        return quantized(values, self.two)

    # A launch's operands

    def bind(self, launch) -> dict[str, str]:
        ins, outs = OPERANDS[launch.kind]
        return dict(zip(ins, launch.ins, strict=False)) | dict(zip(outs, launch.outs, strict=False))

    def form_read(self, launch, name: str) -> str:
        forms = {value(r.form) for r in launch.reads if r.tensor == name}
        assert len(forms) == 1, (launch.kind, name, forms)
        return forms.pop()

    def forms_written(self, launch, name: str) -> list[str]:
        return sorted({value(w.form) for w in launch.writes if w.tensor == name})

    def param(self, launch, name: str):
        return launch.params.get(name, DEFAULTS.get(name))

    # Running

    def run(self) -> Run:
        for launch in self.step.launches:
            if launch.kind not in OPERANDS:
                raise ValueError(f"no meaning for launch kind '{launch.kind}'")
            getattr(self, "_" + launch.kind)(launch, self.bind(launch))
        results = {}
        for t in self.step.tensors.values():
            if t.view_of is None and (value(t.role) == "state" or t.name in self.step.outputs):
                values = self.plain[t.name].reshape(t.shape)
                ints = t.elem == "i32" and not np.isnan(values).any()
                results[t.name] = values.astype(np.int64) if ints else values
        below_best = {k: v for k, v in self.below_best.items() if k in results}
        return Run(results, self.margins, below_best, self.ties, self.nearest_tie)

    def _act(self, launch, name: str) -> np.ndarray:
        """An activation as the launch reads it (plain, or the values its blocks stand for)."""
        return self.read(name, self.form_read(launch, name))

    def _weight(self, name: str) -> np.ndarray:
        t = self.step.tensors[name]
        return self.read(name).reshape(t.shape[0], -1)

    def _shaped(self, name: str) -> np.ndarray:
        return self.read(name).reshape(self.step.tensors[name].shape)

    def _out(self, launch, name: str, values: np.ndarray) -> None:
        for form in self.forms_written(launch, name):
            self.write(name, form, values)

    def _ints(self, name: str) -> np.ndarray:
        return self.read(name).astype(np.int64)

    # -- Row-wise kinds

    def _gather(self, launch, o) -> None:
        table, ids = self._weight(o["table"]), self._ints(o["ids"])
        self._out(launch, o["out"], table[ids].reshape(-1))

    def _norm(self, launch, o) -> None:
        y = rms_normed(self.read(o["x"]), self.read(o["gain"]), float(self.param(launch, "eps")))
        self._out(launch, o["out"], y)

    def _quantize(self, launch, o) -> None:
        self.write(o["out"], "quant", self.read(o["x"]))

    def _binary(self, launch, o) -> None:
        n = self.length(o["out"])
        a, b = self.read(o["a"])[:n], self.read(o["b"])[:n]
        op = self.param(launch, "op")
        self._out(launch, o["out"], a + b if op == "add" else a * b if op == "mul" else a * sigmoid(b))

    def _argmax(self, launch, o) -> None:
        logits = self.read(o["logits"])
        rows = logits.reshape(-1, self.step.tensors[o["logits"]].shape[-1])
        scale = float(np.nanmax(np.abs(logits), initial=0.0)) or 1.0
        best = [ranked(row)[0] for row in rows]
        root, _ = view_root(self.step, o["out"])
        below = []
        for row, b in zip(rows, best, strict=True):
            with np.errstate(invalid="ignore"):
                below.append(np.nan_to_num((row[b] - row) / scale, nan=np.inf))
            below[-1][b] = 0.0
        self.below_best[root] = below
        self._out(launch, o["out"], np.array(best, np.float64))

    # -- Products

    def _product(self, launch, o, *weights: str) -> tuple[np.ndarray, ...]:
        """Each weight's product with x's rows: [rows, n] a weight."""
        ws = [self._weight(o[w]) for w in weights]
        x = self._act(launch, o["x"]).reshape(-1, ws[0].shape[1])
        return tuple(x @ w.T for w in ws)

    def _gemv(self, launch, o) -> None:
        (y,) = self._product(launch, o, "w")
        if "pitch" not in launch.params:
            self._out(launch, o["out"], y.reshape(-1))
            return
        pitch, start = int(launch.params["pitch"]), int(launch.params["start"])
        out = self.read(o["out"]).reshape(-1, pitch)
        out[:, start : start + y.shape[1]] = y
        self._out(launch, o["out"], out.reshape(-1))

    _gemm_tc = _gemv

    def _glu(self, launch, o) -> None:
        g, u = self._product(launch, o, "w_gate", "w_up")
        self._out(launch, o["out"], (silu(g) * u).reshape(-1))

    _glu_tc = _glu

    def _gemv_bias(self, launch, o) -> None:
        """nn.Linear with a bias: x W^T + b."""
        (y,) = self._product(launch, o, "w")
        self._out(launch, o["out"], (y + self.read(o["bias"])).reshape(-1))

    def _glu_bias(self, launch, o) -> None:
        """LlamaMLP with mlp_bias: silu(x W_gate^T + b_gate) * (x W_up^T + b_up)."""
        g, u = self._product(launch, o, "w_gate", "w_up")
        g, u = g + self.read(o["b_gate"]), u + self.read(o["b_up"])
        self._out(launch, o["out"], (silu(g) * u).reshape(-1))

    def _gemv_norm(self, launch, o) -> None:
        (y,) = self._product(launch, o, "w")
        self._out(launch, o["out"], y.reshape(-1))
        self._out(launch, o["normed"], rms_normed(y, self.read(o["gain"]), float(self.param(launch, "eps"))))

    def _gemv_rope(self, launch, o) -> None:
        (y,) = self._product(launch, o, "w")
        heads, kv = int(launch.params["heads"]), int(launch.params["kv_heads"])
        hd = y.shape[1] // (heads + 2 * kv)
        y = y.reshape(y.shape[0], -1, hd)
        # q's and k's heads turn by position; v's do not.
        freq = frequencies(hd, self.param(launch, "theta"))
        y[:, : heads + kv] = turned(y[:, : heads + kv], self._ints(o["pos"]), hd, freq)
        self._out(launch, o["out"], y.reshape(-1))

    # -- Products with a prologue and an epilogue (docs/kernels.md, "Fused products")

    def _prologue(self, launch, o) -> np.ndarray:
        """The rows a fused product reads: x (as the launch reads it), RMS-normed by the gain where the kind has
        one, then Q8_0-quantized in the step's numerics where the launch says `quantize`."""
        x = self._act(launch, o["x"])
        if "gain" in o and "normed" not in o:  # (gemv_add_norm's gain norms what it sums)
            x = rms_normed(x, self.read(o["gain"]), float(self.param(launch, "eps")))
        return self.quantized(x, f"'{o['x']}' quantized in a prologue") if launch.params.get("quantize") else x

    def _fused_product(self, launch, o, *weights: str) -> tuple[np.ndarray, ...]:
        ws = [self._weight(o[w]) for w in weights]
        x = self._prologue(launch, o).reshape(-1, ws[0].shape[1])
        return tuple(x @ w.T for w in ws)

    def _norm_gemv(self, launch, o) -> None:
        """RMSNorm, then nn.Linear: rms(x) gain W^T (+ b)."""
        (y,) = self._fused_product(launch, o, "w")
        if "bias" in o:
            y = y + self.read(o["bias"])
        self._out(launch, o["out"], y.reshape(-1))

    _norm_gemv_bias = _norm_gemv

    def _norm_glu(self, launch, o) -> None:
        """RMSNorm, then the gated MLP's first half: silu(h W_gate^T) * (h W_up^T), h = rms(x) gain."""
        g, u = self._fused_product(launch, o, "w_gate", "w_up")
        self._out(launch, o["out"], (silu(g) * u).reshape(-1))

    def _gemv_add(self, launch, o) -> None:
        """A residual connection around nn.Linear: residual + x W^T."""
        (y,) = self._fused_product(launch, o, "w")
        self._out(launch, o["out"], (self.read(o["residual"]).reshape(y.shape) + y).reshape(-1))

    def _gemv_add_norm(self, launch, o) -> None:
        """gemv_add, then RMSNorm of its result: the next block's input."""
        self._gemv_add(launch, o)
        normed = rms_normed(self.read(o["out"]), self.read(o["gain"]), float(self.param(launch, "eps")))
        self._out(launch, o["normed"], normed)

    # -- Rotation, cache, attention

    def _rope(self, launch, o) -> None:
        pos = self._ints(o["pos"])
        heads = int(launch.params["heads"])
        x = self.read(o["x"]).reshape(pos.size, heads, -1)
        rot = int(self.param(launch, "rotary")) or x.shape[2]
        scaled = (self.param(launch, n) for n in ("scaling", "factor", "low_freq", "high_freq", "original"))
        freq = frequencies(rot, self.param(launch, "theta"), *scaled, n=int(pos.max()) + 1)
        self._out(launch, o["x"], turned(x, pos, rot, freq).reshape(-1))

    def _kv_store(self, launch, o) -> None:
        pos = self._ints(o["pos"])
        for new, cache in (("k", "k_cache"), ("v", "v_cache")):
            rows = self.read(o[cache]).reshape(self.step.tensors[o[cache]].shape[0], -1)
            rows[pos] = self.read(o[new]).reshape(pos.size, -1)
            self._out(launch, o[cache], rows.reshape(-1))

    def _attention(self, launch, o, cache=lambda rows: rows) -> None:
        pos = self._ints(o["pos"])
        heads, kv_heads = int(launch.params["heads"]), int(launch.params["kv_heads"])
        q = self.read(o["q"])
        hd = q.size // pos.size // heads
        keys, values = (
            cache(self.read(o[c]).reshape(-1, kv_heads, hd)) for c in ("k_cache", "v_cache")
        )  # [length, kv heads, hd]
        out = attention(q, keys, values, pos, heads, kv_heads, int(self.param(launch, "window")))
        self._out(launch, o["out"], out.reshape(-1))

    _attention_shared = _attention

    def _attention_i8x2(self, launch, o) -> None:
        self._attention(launch, o, two_word_rows)

    def _rope_attention(self, launch, o) -> None:
        """The decode row's q heads and k (each head RMS-normed by its gain first, where the kind has gains) turned
        as `_rope` turns them, k and v written at the row's position into the caches (where `two_words`, each kv
        head of the new rows in two words with one scale: the rows an attention in two words reads; the earlier rows
        as they are), then `attention` over the caches."""
        pos = self._ints(o["pos"])
        heads, kv_heads = int(launch.params["heads"]), int(launch.params["kv_heads"])
        q, k, v = (self.read(o[n]).reshape(pos.size, -1) for n in ("q", "k", "v"))
        hd = q.shape[1] // heads
        q, k = q.reshape(pos.size, heads, hd), k.reshape(pos.size, kv_heads, hd)
        if "q_gain" in o:
            eps = float(self.param(launch, "eps"))
            q = rms_normed(q, self.read(o["q_gain"]), eps).reshape(q.shape)
            k = rms_normed(k, self.read(o["k_gain"]), eps).reshape(k.shape)
        rot = int(self.param(launch, "rotary")) or hd
        scaled = (self.param(launch, n) for n in ("scaling", "factor", "low_freq", "high_freq", "original"))
        freq = frequencies(rot, self.param(launch, "theta"), *scaled, n=int(pos.max()) + 1)
        q, k = turned(q, pos, rot, freq), turned(k, pos, rot, freq)
        v = v.reshape(pos.size, kv_heads, hd)
        if int(launch.params.get("two_words", 0)):
            k, v = two_word_rows(k), two_word_rows(v)
        caches = {}
        for new, cache in ((k, "k_cache"), (v, "v_cache")):
            rows = self.read(o[cache]).reshape(self.step.tensors[o[cache]].shape[0], -1)
            rows[pos] = new.reshape(pos.size, -1)
            self.write(o[cache], "plain", rows)
            caches[cache] = rows
        window = int(self.param(launch, "window"))
        out = attention(q.reshape(pos.size, -1), caches["k_cache"], caches["v_cache"], pos, heads, kv_heads, window)
        self._out(launch, o["out"], out.reshape(-1))

    _norm_rope_attention = _rope_attention

    # -- Mixtures

    def _moe(self, launch, o) -> None:
        x = self._act(launch, o["x"])
        wr, wg, wu, wd = (self._shaped(o[w]) for w in ("w_router", "w_gate", "w_up", "w_down"))
        experts, _, d = wg.shape
        topk = int(launch.params["topk"])
        rows = x.reshape(-1, d)
        quant = self.numerics in ("int8", "int8x2") and not launch.params.get("f32")
        gathered = rows
        if rows.shape[0] > 1 and quant and self.form_read(launch, o["x"]) == "plain":
            gathered = self.quantized(rows, f"rows of '{o['x']}' gathered").reshape(rows.shape)
        out = np.zeros_like(rows)
        for r, row in enumerate(rows):
            logits = wr @ row
            order = ranked(logits)
            chosen = order[:topk]
            if topk < experts:
                gap = logits[order[topk - 1]] - logits[order[topk]]
                self.margins.append(Margin(f"experts of '{o['x']}'", gap, float((np.abs(wr) @ np.abs(row)).max())))
            # Mixtral's gates (and Qwen's with norm_topk_prob): softmax over all, top k, renormalised, which is
            # the softmax over the chosen; Qwen2-MoE's without: the chosen's shares of the softmax over all.
            shares = np.exp(logits - logits[chosen].max())
            gates = shares[chosen] / (shares.sum() if self.param(launch, "gates") == "all" else shares[chosen].sum())
            for gate, e in zip(gates, chosen, strict=True):
                h = silu(wg[e] @ gathered[r]) * (wu[e] @ gathered[r])
                out[r] += gate * (wd[e] @ (self.quantized(h, f"hidden row of '{o['x']}'") if quant else h))
        if "w_shared_gate" in o:
            sg, su, sd, sr = (
                self._shaped(o[w]) for w in ("w_shared_gate", "w_shared_up", "w_shared_down", "w_shared_router")
            )
            for r, row in enumerate(rows):
                h = silu(sg @ row) * (su @ row)
                shared = self.quantized(h, f"shared hidden row of '{o['x']}'") if quant else h
                out[r] += sigmoid(sr[0] @ row) * (sd @ shared)
        if "residual" in o:
            out += self.read(o["residual"]).reshape(out.shape)
        self._out(launch, o["out"], out.reshape(-1))
        if "normed" in o:
            normed = rms_normed(out, self.read(o["gain"]), float(self.param(launch, "eps")))
            self._out(launch, o["normed"], normed)

    _moe_shared = _moe
    _moe_add = _moe
    _moe_shared_add = _moe
    _moe_add_norm = _moe

    # -- Fused row-wise

    def _gather_norm(self, launch, o) -> None:
        table, ids = self._weight(o["table"]), self._ints(o["ids"])
        x = table[ids].reshape(-1)
        self._out(launch, o["x"], x)
        self._out(launch, o["out"], rms_normed(x, self.read(o["gain"]), float(self.param(launch, "eps"))))

    # -- Qwen3-Next's linear attention

    def _conv(self, launch, o) -> None:
        w = self._weight(o["w"])  # [channels, taps]
        channels, taps = w.shape
        state = self.read(o["state"]).reshape(taps - 1, channels)
        full = np.concatenate([state, self.read(o["x"]).reshape(-1, channels)])
        rows = full.shape[0] - (taps - 1)
        out = np.stack([silu((w.T * full[t : t + taps]).sum(axis=0)) for t in range(rows)])
        self._out(launch, o["state"], full[rows:].reshape(-1))
        self._out(launch, o["out"], out.reshape(-1))

    def _delta(self, launch, o) -> None:
        hv, d, _ = self.step.tensors[o["state"]].shape
        hk = int(launch.params["key_heads"])
        ins = [
            self.read(o[n]).reshape(-1, width)
            for n, width in (("qkv", (2 * hk + hv) * d), ("z", hv * d), ("ab", 2 * hv))
        ]
        gates = (self.read(o[n]) for n in ("a_log", "dt_bias", "gain"))
        out, s = delta_rule(*ins, *gates, self.read(o["state"]).reshape(hv, d, d), hk, float(self.param(launch, "eps")))
        self._out(launch, o["state"], s.reshape(-1))
        self._out(launch, o["out"], out.reshape(-1))


def delta_rule(qkv, z, ab, a_log, dt_bias, gain, state, hk: int, eps: float = 1e-6):
    """Qwen3-Next's gated delta rule in float64, a row at a time (the recurrent form; chunks compute the same):
    its outputs [rows, hv * d] and its final state [hv, d, d]. Value head h reads key head h // (hv / hk); q and k
    are L2-normed (1e-6 inside the root), q over sqrt(d); g = -exp(a_log) softplus(a + dt_bias), beta = sigmoid(b);
    S = S exp(g), S += k (beta (v - S^T k))^T, o = S^T q; out = rms(o) gain silu(z) a head."""
    hv, d, _ = state.shape
    s = np.asarray(state, np.float64).copy()
    out = np.zeros((qkv.shape[0], hv, d))
    for t in range(qkv.shape[0]):
        for h in range(hv):
            kh = h // (hv // hk)
            q = qkv[t, kh * d : (kh + 1) * d]
            k = qkv[t, (hk + kh) * d : (hk + kh + 1) * d]
            v = qkv[t, (2 * hk + h) * d : (2 * hk + h + 1) * d]
            q = q / np.sqrt((q * q).sum() + 1e-6) / np.sqrt(d)
            k = k / np.sqrt((k * k).sum() + 1e-6)
            g = -np.exp(a_log[h]) * np.logaddexp(0, ab[t, h] + dt_bias[h])  # softplus
            beta = sigmoid(ab[t, hv + h])
            s[h] *= np.exp(g)
            s[h] += np.outer(k, (v - s[h].T @ k) * beta)
            ov = s[h].T @ q
            out[t, h] = ov / np.sqrt((ov * ov).mean() + eps) * gain * silu(z[t, h * d : (h + 1) * d])
    return out.reshape(qkv.shape[0], -1), s


def run(step, feeds) -> Run:
    """`step`'s outputs and state after one run over `feeds` (inputs, weights and state by name)."""
    return Interpreter(step, feeds).run()
