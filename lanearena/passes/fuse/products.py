"""The product fusions of `lane-fuse`: a launch merged into the product next to it where only that product reads
what it writes, so that the array between them leaves the step.

- `NormIntoProducts`: a norm read only by products (q/k/v, gate/up, the lm-head) goes into each one's prologue
  (norm_gemv, norm_gemv_bias, norm_glu), its quantized form with it (`quantize`).
- `NormIntoResidualProduct`: a norm that products alone do not read (a mixture's input) goes into the epilogue of
  the residual product before it (gemv_add_norm).
- `ResidualIntoProduct`: a residual add of a product's result goes into the product's epilogue (gemv_add; a
  mixture's into moe_add).
- `QuantizeIntoProduct`: the quantize of a residual product's input goes into its prologue (`quantize`).
- `QuantizeIntoGatedPair`: the quantize of a normed gated pair's result goes into its epilogue (norm_glu writing
  `out(quant)`), where silu(gate) * up already is."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from lanearena.dialects.attrs import BinaryKind
from lanearena.dialects.kernel import KernelOp
from lanearena.dialects.kinds.fused_products import (
    ROW_LIMIT,
    GemvAddNormOp,
    GemvAddOp,
    NormGemvBiasOp,
    NormGemvOp,
    NormGluOp,
)
from lanearena.dialects.kinds.mixtures import MoeAddOp, MoeOp, MoeSharedAddOp, MoeSharedOp
from lanearena.dialects.kinds.products import GemvBiasOp, GemvOp, GluOp
from lanearena.dialects.kinds.rows import BinaryOp, NormOp, QuantizeOp
from lanearena.dialects.lane import TensorOp
from lanearena.model import Form
from lanearena.passes.fuse.uses import (
    after,
    hoist,
    hoistable,
    retire,
    unplaced,
    unwritten_between,
    users,
    writes,
)

NORMED: dict[type[KernelOp], type[KernelOp]] = {GemvOp: NormGemvOp, GemvBiasOp: NormGemvBiasOp, GluOp: NormGluOp}
"""The products a norm goes into, and the kind each becomes."""

ADDED: dict[type[KernelOp], type[KernelOp]] = {GemvOp: GemvAddOp, MoeOp: MoeAddOp, MoeSharedOp: MoeSharedAddOp}
"""The products a residual add goes into, and the kind each becomes."""


def _ins(op: KernelOp, names: Sequence[str]) -> list[tuple[SSAValue, Form]]:
    return [(op.operand(n), op.read_form(n)) for n in names]


def _outs(op: KernelOp) -> list[tuple[SSAValue, tuple[Form, ...]]]:
    return [(op.operand(n), op.written_forms(n)) for n in op.WRITES]


def _params(op: KernelOp) -> dict[str, int | float | str]:
    """The product's parameters but a part write (which no fused kind has)."""
    return {k: v for k, v in op.params.items() if k not in ("pitch", "start", "width")}


def _sole_tensor(value: SSAValue) -> bool:
    """Whether `value` is a tensor of its own (no view, no input or state), which a fusion may remove."""
    return isinstance(value.owner, TensorOp)


class NormIntoProducts(RewritePattern):
    """`norm %x, %gain -> %h` then products reading only `%h` (each `gemv`, `gemv_bias` or `glu` reading it as x)
    become `norm_gemv %x, %gain, ...` (and the others), each norming the row in its prologue; `%h` leaves the step.
    Where anything else reads `%h` (a residual, a view, the step's output), the norm stays."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: NormOp, rewriter: PatternRewriter) -> None:
        h, x = op.operand("out"), op.operand("x")
        readers = users(h, but=op)
        if not _sole_tensor(h) or not readers or op.length("gain") > ROW_LIMIT or not unplaced(op, *readers):
            return
        for r in readers:
            if type(r) not in NORMED or not isinstance(r, KernelOp) or r.written_part is not None:
                return
            if r.operand("x") is not h or h in (r.operand(n) for n in r.operand_names() if n != "x"):
                return
            if not after(op, r) or not unwritten_between(op, r, x):
                return
        for r in readers:
            assert isinstance(r, KernelOp)  # checked above
            quantize = {"quantize": 1} if r.read_form("x") is Form.QUANT else {}
            fused = NORMED[type(r)].make(
                [(x, Form.PLAIN), (op.operand("gain"), Form.PLAIN), *_ins(r, r.ins()[1:])],
                _outs(r),
                {**_params(r), "eps": op.eps.value.data, **quantize},
            )
            rewriter.replace(r, fused)
        rewriter.erase(op)
        retire(rewriter, h)


class NormIntoResidualProduct(RewritePattern):
    """`gemv_add ... -> %xa` then `norm %xa, %gain -> %h` where the norm stays (something besides products reads
    `%h`: a mixture) becomes `gemv_add_norm ..., %gain -> %xa, %h`, its last block norming the sums."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: NormOp, rewriter: PatternRewriter) -> None:
        xa, h, gain = op.operand("x"), op.operand("out"), op.operand("gain")
        if not _sole_tensor(h) or not unplaced(op) or any(not after(op, u) for u in users(h, but=op)):
            return
        earlier = [u for u in users(xa, but=op) if not after(op, u) and writes(u, xa)]
        if not earlier or not isinstance(p := earlier[-1], GemvAddOp) or p.operand("out") is not xa:
            return
        if not unplaced(p) or not unwritten_between(p, op, xa) or not all(hoistable(v, p) for v in (h, gain)):
            return
        h, gain = hoist(rewriter, h, p), hoist(rewriter, gain, p)
        fused = GemvAddNormOp.make(
            [*_ins(p, p.ins()), (gain, Form.PLAIN)],
            [(xa, (Form.PLAIN,)), (h, op.written_forms("out"))],
            {**_params(p), "eps": op.eps.value.data},
        )
        rewriter.replace(p, fused)
        rewriter.erase(op)


class ResidualIntoProduct(RewritePattern):
    """`binary %x, %o -> %y` (add) where `%o` is a product's result read by nothing else becomes the product adding
    `%x` as it writes (`gemv_add`, `moe_add`); `%o` leaves the step."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: BinaryOp, rewriter: PatternRewriter) -> None:
        if op.op.data is not BinaryKind.ADD or not unplaced(op):
            return
        for product_side, residual_side in (("b", "a"), ("a", "b")):
            o, residual = op.operand(product_side), op.operand(residual_side)
            if o is residual or not _sole_tensor(o):
                continue
            others = users(o, but=op)
            if len(others) != 1:
                continue
            (p,) = others
            if type(p) not in ADDED or not isinstance(p, KernelOp) or not unplaced(p) or p.written_part is not None:
                continue
            if p.WRITES != ("out",) or p.operand("out") is not o or not after(p, op):
                continue
            if o in (p.operand(n) for n in p.ins()):
                continue
            if not unwritten_between(p, op, *(p.operand(n) for n in p.ins())):
                continue
            fused = ADDED[type(p)].make(
                [*_ins(p, p.ins()), (residual, Form.PLAIN)], [(op.operand("out"), (Form.PLAIN,))], _params(p)
            )
            rewriter.replace(op, fused)
            rewriter.erase(p)
            retire(rewriter, o)
            return


def _quant_readers(value: SSAValue, but: Operation) -> list[Operation]:
    """The ops besides `but` that take `value` and touch its quantized form (or may: a view)."""
    out = []
    for u in users(value, but):
        if not isinstance(u, KernelOp) or any(
            v is value and f is Form.QUANT for v, f in [*u.reads(), *((w, f) for w, f, _ in u.writes())]
        ):
            out.append(u)
    return out


class QuantizeIntoProduct(RewritePattern):
    """`quantize %a -> %a(quant)` whose words only a `gemv_add` (or `gemv_add_norm`) reads becomes that product
    quantizing `%a` in its prologue (`quantize`): `%a`'s quantized form leaves the step."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: QuantizeOp, rewriter: PatternRewriter) -> None:
        a, q = op.operand("x"), op.operand("out")
        readers = _quant_readers(q, but=op)
        if not _sole_tensor(q) or len(readers) != 1 or not unplaced(op, *readers):
            return
        (p,) = readers
        if not isinstance(p, (GemvAddOp, GemvAddNormOp)) or p.quantize is not None or p.operand("x") is not q:
            return
        if q in (p.operand(n) for n in p.operand_names() if n != "x"):
            return
        if not after(op, p) or not unwritten_between(op, p, a) or p.dims("w")[-1] > ROW_LIMIT:
            return
        fused = type(p).make([(a, Form.PLAIN), *_ins(p, p.ins()[1:])], _outs(p), {**_params(p), "quantize": 1})
        rewriter.replace(p, fused)
        rewriter.erase(op)
        retire(rewriter, q)
        retire(rewriter, a)


class QuantizeIntoGatedPair(RewritePattern):
    """`norm_glu ... -> %m` then `quantize %m -> %m(quant)` becomes the gated pair writing `%m(quant)` as it
    finishes each block of columns; `%m`'s plain form leaves the step where nothing else reads it."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: QuantizeOp, rewriter: PatternRewriter) -> None:
        m = op.operand("x")
        if op.operand("out") is not m or not _sole_tensor(m) or not unplaced(op):
            return
        before = [u for u in users(m, but=op) if not after(op, u)]
        if len(before) != 1 or not isinstance(before[0], NormGluOp) or not unplaced(before[0]):
            return
        g = before[0]
        if g.operand("out") is not m or Form.QUANT in g.written_forms("out") or not unwritten_between(g, op, m):
            return
        plain_read = any(v is m and f is Form.PLAIN for u in users(m, but=op) for v, f in _read_by(u))
        forms = (Form.PLAIN, Form.QUANT) if plain_read else (Form.QUANT,)
        fused = NormGluOp.make(_ins(g, g.ins()), [(m, forms)], _params(g))
        rewriter.replace(g, fused)
        rewriter.erase(op)
        retire(rewriter, m)


def _read_by(op: Operation) -> list[tuple[SSAValue, Form]]:
    """What `op` reads (everything, in every form, where it is no kernel launch: a view, the step's output)."""
    if isinstance(op, KernelOp):
        return op.reads()
    return [(v, f) for v in op.operands for f in Form]


PRODUCT_PATTERNS: tuple[RewritePattern, ...] = (
    NormIntoProducts(),
    NormIntoResidualProduct(),
    ResidualIntoProduct(),
    QuantizeIntoGatedPair(),
    QuantizeIntoProduct(),
)
"""The product fusions, in the order the walker tries them on each launch (a gated pair's result quantized as it is
written, rather than again in each block of the product that reads it)."""
