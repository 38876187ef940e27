"""Launch kinds of routed experts (the seed's `Moe`): moe, moe_shared (with a shared expert), and the mixtures that
add the residual (moe_add) and norm the sum (moe_add_norm)."""

from __future__ import annotations

from typing import ClassVar

from xdsl.irdl import irdl_op_definition, operand_def, prop_def

from lanearena import kernel_shapes
from lanearena.dialects.attrs import GatesAttr, GatesKind, TensorType
from lanearena.dialects.base import step_numerics
from lanearena.dialects.kernel import (
    KernelOp,
    arg,
    arg_read,
    arg_written,
    count,
    flag,
    option,
    param,
    read_form,
    real,
    signature,
    written_forms,
)
from lanearena.dialects.kinds.common import buffer, cdiv, counter, quantized, sequence_rows, works_in_blocks
from lanearena.dialects.kinds.rows import check_length, check_norm
from lanearena.model import QBLOCK, Form, Numerics, Scratch

_EXPERTS = ("w_router", "w_gate", "w_up", "w_down")
_FLAGS = (
    param("experts"),
    param("topk"),
    option("gates"),
    option("router_split"),
    "(`tc` $tc^)?",
    "(`paired` $paired^)?",
    "(`f32` $f32^)?",
    option("seqs"),
)


class _Mixture(KernelOp):
    """`x`'s rows routed (`w_router` [experts, d]) to `topk` of `experts` experts (`w_gate`, `w_up` [experts, ffn,
    d], `w_down` [experts, d, ffn]) into `out`, each weighed by its gate: the softmax over the chosen experts'
    logits (`gates(chosen)`, the default), or the chosen experts' shares of the softmax over all (`gates(all)`); a
    router cut along k in `router_split` parts; over a block of rows, on the tensor cores (`tc`), gate and up paired
    in one GEMM that quantizes the hidden rows (`paired`). Under int8 numerics its hidden rows (and a block's
    gathered rows) are quantized, as the seed's are, but with `f32`: a mixture whose widths 32 does not cut multiplies
    in f32 (its weights f32) in an int8 step. Over `seqs` sequences' decode rows (a row a sequence), a block's rows
    are gathered in the form x is read, as each row alone reads it (f32 where plain): every row's result is the one
    it has alone."""

    x_form = read_form()
    experts = count()
    topk = count()
    gates = prop_def(GatesAttr, default_value=GatesAttr(GatesKind.CHOSEN))
    router_split = count(1)
    tc = flag()
    paired = flag()
    f32 = flag()
    seqs = count(1)
    UNQUANTIZED: ClassVar[tuple[str, ...]] = ("w_router",)

    def shape(self) -> tuple[int, int, int, int, int]:
        """(rows, d, ffn, experts, topk)."""
        _, dff, d = self.dims("w_gate")
        return self.length("x") // d, d, dff, self.experts.value.data, self.topk.value.data

    def quantizes_rows(self, numerics: Numerics | None) -> bool:
        """Whether it quantizes its hidden rows (and a block's gathered rows): under int8 numerics, but with `f32`."""
        return numerics is not None and numerics.quantized and self.f32 is None

    def gathers_quantized(self, numerics: Numerics | None) -> bool:
        """Whether a block's gathered rows are quantized: where it quantizes rows, but over several sequences' rows
        that read x plain (gathered f32, as each row alone multiplies it)."""
        plain = self.seqs.value.data > 1 and self.read_form("x") is Form.PLAIN
        return self.quantizes_rows(numerics) and not plain

    def verify_(self) -> None:
        super().verify_()
        experts, topk = self.experts.value.data, self.topk.value.data
        if self.paired is not None and self.tc is None:
            raise self.fail("paired gate and up rows are a GEMM on the tensor cores: paired needs tc")
        if self.f32 is not None and (self.paired is not None or works_in_blocks(self)):
            raise self.fail("f32 multiplies in f32: no Q8_0 weight, no quantized x, no paired GEMM")
        wg = self.dims("w_gate")
        if len(wg) != 3 or wg[0] != experts:
            raise self.fail(f"w_gate '{self.tensor('w_gate').tensor_name}' is {wg}, not [{experts} experts, ffn, d]")
        _, f, d = wg
        for name, shape in (("w_router", (experts, d)), ("w_up", (experts, f, d)), ("w_down", (experts, d, f))):
            if self.dims(name) != shape:
                raise self.fail(f"{name} '{self.tensor(name).tensor_name}' is {self.dims(name)}, not {shape}")
        if topk > experts:
            raise self.fail(f"topk {topk} exceeds the {experts} experts")
        if self.length("x") % d:
            raise self.fail(
                f"x '{self.tensor('x').tensor_name}' of {self.length('x')} values is not rows of w_gate "
                f"'{self.tensor('w_gate').tensor_name}''s {d} values (k)"
            )
        sequence_rows(self, self.length("x") // d)
        quant = works_in_blocks(self)
        if quant and d % QBLOCK:
            raise self.fail(
                f"d of {d} values is not a whole number of {QBLOCK}-value blocks, as a quantized product needs"
            )
        if (quant or self.quantizes_rows(step_numerics(self))) and f % QBLOCK:
            raise self.fail(
                f"a hidden row of {f} values is not a whole number of {QBLOCK}-value blocks, as a quantized product "
                "needs"
            )
        check_length(self, "out", self.length("x"), f"the {self.length('x')} values of x")

    def mixture_scratch(self, numerics: Numerics, shared: int = 0) -> list[Scratch]:
        """An expert mixture (`shared` the shared expert's hidden width, 0 without one). One row: its router logits,
        choices and weights, its count of blocks arrived, each choice's hidden row and the shared expert's,
        quantized where it quantizes rows (`quantizes_rows`). A block's rows: the choices grouped by expert (counts,
        offsets, the grouped list, each choice's place), each choice's weighed result, hidden row (gate and up rows
        apart on the tensor cores, none when the paired GEMM quantizes it), gathered activation row (quantized where
        it quantizes rows), and a router cut along k's parts and counts."""
        rows, d, dff, experts, k = self.shape()
        quant = self.quantizes_rows(numerics)
        if rows == 1:
            hidden = k * dff + shared
            v = [
                buffer("i", "i32", k * 4),
                buffer("g", "f32", k * 4),
                buffer("h", "f32", hidden * 4),
                buffer("rl", "f32", experts * 4),
                counter("rc", 4),
            ]
            return v + (quantized(("hq", "hl", "hs"), hidden, numerics) if quant else [])
        choices = rows * k
        acc, elem = kernel_shapes.accumulator(numerics)
        tc, paired = self.tc is not None, self.paired is not None
        v = [
            buffer("i", "i32", choices * 4),
            buffer("g", "f32", choices * 4),
            buffer("rl", "f32", rows * experts * 4),
            counter("rc", rows * 4),
            buffer("ec", "i32", experts * 4),
            buffer("eo", "i32", (experts + 1) * 4),
            buffer("el", "i32", choices * 4),
            buffer("ep", "i32", choices * 4),
            buffer("pa", elem, choices * d * acc),
        ]
        if not paired:
            v.append(buffer("h", "f32", choices * dff * 4))
        if not self.gathers_quantized(numerics):
            v.append(buffer("gx", "f32", choices * d * 4))
        else:
            v += quantized(("gq", "gl", "gs"), choices * d, numerics)
        if quant:
            v += quantized(("hq", "hl", "hs"), choices * dff, numerics)
        if tc and not paired:
            v += [buffer("hg", "f32", choices * dff * 4), buffer("hu", "f32", choices * dff * 4)]
        router_split = self.router_split.value.data
        if router_split > 1:
            tiles = cdiv(experts, 64) * cdiv(rows, 64)
            v += [buffer("rp", "f32", tiles * router_split * 256 * 16 * 4), counter("rq", tiles * 4)]
        return v


@irdl_op_definition
class MoeOp(_Mixture):
    """`lane.moe %x, %w_router, %w_gate, %w_up, %w_down -> %out experts(8) topk(2)`: routed experts."""

    name = "lane.moe"
    x = operand_def(TensorType)
    w_router = operand_def(TensorType)
    w_gate = operand_def(TensorType)
    w_up = operand_def(TensorType)
    w_down = operand_def(TensorType)
    out = operand_def(TensorType)
    WEIGHTS: ClassVar = _EXPERTS
    assembly_format = signature([arg_read("x"), *map(arg, _EXPERTS)], [arg("out")], *_FLAGS)

    def scratch(self, numerics: Numerics) -> list[Scratch]:
        return self.mixture_scratch(numerics)


_SHARED = ("w_shared_gate", "w_shared_up", "w_shared_down", "w_shared_router")


class SharedMixture(_Mixture):
    """Routed experts and a shared one (`w_shared_gate` [ffn_s, d]), weighed by its own router row."""

    WEIGHTS: ClassVar = (*_EXPERTS, *_SHARED)
    UNQUANTIZED: ClassVar = ("w_router", "w_shared_router")

    def verify_(self) -> None:
        super().verify_()
        rows, d, f, _, topk = self.shape()
        sg = self.dims("w_shared_gate")
        fs = sg[0] if len(sg) == 2 else 0
        want = {"w_shared_gate": (fs, d), "w_shared_up": (fs, d), "w_shared_down": (d, fs), "w_shared_router": (1, d)}
        for name, shape in want.items():
            if self.dims(name) != shape or not fs:
                raise self.fail(f"{name} '{self.tensor(name).tensor_name}' is {self.dims(name)}, not {shape}")
        if rows > 1 and fs > topk * f:
            raise self.fail(
                f"a chunk's shared expert of {fs} values a row does not fit the {topk} x {f} of its choices' hidden "
                "rows, where it is made"
            )

    def scratch(self, numerics: Numerics) -> list[Scratch]:
        """A mixture's, its shared expert's hidden row after the choices'."""
        return self.mixture_scratch(numerics, self.dims("w_shared_gate")[0])


@irdl_op_definition
class MoeSharedOp(SharedMixture):
    """`lane.moe_shared %x, %w_router, %w_gate, %w_up, %w_down, %w_shared_gate, %w_shared_up, %w_shared_down,
    %w_shared_router -> %out experts(8) topk(2)`: routed experts and a shared one (`w_shared_gate` [ffn_s, d]),
    weighed by its own router row."""

    name = "lane.moe_shared"
    x = operand_def(TensorType)
    w_router = operand_def(TensorType)
    w_gate = operand_def(TensorType)
    w_up = operand_def(TensorType)
    w_down = operand_def(TensorType)
    w_shared_gate = operand_def(TensorType)
    w_shared_up = operand_def(TensorType)
    w_shared_down = operand_def(TensorType)
    w_shared_router = operand_def(TensorType)
    out = operand_def(TensorType)
    assembly_format = signature([arg_read("x"), *map(arg, _EXPERTS), *map(arg, _SHARED)], [arg("out")], *_FLAGS)


@irdl_op_definition
class MoeAddOp(_Mixture):
    """`lane.moe_add %x, %w_router, %w_gate, %w_up, %w_down, %residual -> %out experts(8) topk(2)`: a mixture added
    to the residual, where the mixture writes its result (the seed's `Fold` into a sum: the mixture's scratch)."""

    name = "lane.moe_add"
    x = operand_def(TensorType)
    w_router = operand_def(TensorType)
    w_gate = operand_def(TensorType)
    w_up = operand_def(TensorType)
    w_down = operand_def(TensorType)
    residual = operand_def(TensorType)
    out = operand_def(TensorType)
    WEIGHTS: ClassVar = _EXPERTS
    assembly_format = signature([arg_read("x"), *map(arg, _EXPERTS), arg("residual")], [arg("out")], *_FLAGS)

    def verify_(self) -> None:
        super().verify_()
        check_length(self, "residual", self.length("x"), f"x's {self.length('x')} values")

    def scratch(self, numerics: Numerics) -> list[Scratch]:
        return self.mixture_scratch(numerics)


@irdl_op_definition
class MoeAddNormOp(_Mixture):
    """`lane.moe_add_norm %x, %w_router, %w_gate, %w_up, %w_down, %residual, %gain -> %out, %normed experts(8)
    topk(2)`: a mixture added to the residual, then normed (the seed's `Fold` into a norm: the mixture's scratch,
    and the decode step's count of blocks arrived, where its last block norms; a chunk's norms each row in the block
    that combines it)."""

    name = "lane.moe_add_norm"
    x = operand_def(TensorType)
    w_router = operand_def(TensorType)
    w_gate = operand_def(TensorType)
    w_up = operand_def(TensorType)
    w_down = operand_def(TensorType)
    residual = operand_def(TensorType)
    gain = operand_def(TensorType)
    out = operand_def(TensorType)
    normed = operand_def(TensorType)
    normed_forms = written_forms()
    eps = real(1e-6)
    WRITES: ClassVar = ("out", "normed")
    WEIGHTS: ClassVar = (*_EXPERTS, "gain")
    F32_WEIGHTS: ClassVar = ("gain",)
    assembly_format = signature(
        [arg_read("x"), *map(arg, _EXPERTS), arg("residual"), arg("gain")],
        [arg("out"), arg_written("normed")],
        *_FLAGS,
        option("eps"),
    )

    def verify_(self) -> None:
        super().verify_()
        check_length(self, "residual", self.length("x"), f"x's {self.length('x')} values")
        check_norm(self, "out", "gain", "normed")

    def scratch(self, numerics: Numerics) -> list[Scratch]:
        counted = [counter("gc", 4)] if self.shape()[0] == 1 else []
        return self.mixture_scratch(numerics) + counted


@irdl_op_definition
class MoeSharedAddOp(SharedMixture):
    """`lane.moe_shared_add %x, %w_router, %w_gate, %w_up, %w_down, %w_shared_gate, %w_shared_up, %w_shared_down,
    %w_shared_router, %residual -> %out experts(8) topk(2)`: routed experts and a shared one added to the residual,
    where the mixture writes its result (moe_shared's kernels, as moe_add adds it; `lane-fuse` makes it)."""

    name = "lane.moe_shared_add"
    x = operand_def(TensorType)
    w_router = operand_def(TensorType)
    w_gate = operand_def(TensorType)
    w_up = operand_def(TensorType)
    w_down = operand_def(TensorType)
    w_shared_gate = operand_def(TensorType)
    w_shared_up = operand_def(TensorType)
    w_shared_down = operand_def(TensorType)
    w_shared_router = operand_def(TensorType)
    residual = operand_def(TensorType)
    out = operand_def(TensorType)
    assembly_format = signature(
        [arg_read("x"), *map(arg, _EXPERTS), *map(arg, _SHARED), arg("residual")], [arg("out")], *_FLAGS
    )

    def verify_(self) -> None:
        super().verify_()
        check_length(self, "residual", self.length("x"), f"x's {self.length('x')} values")


OPS: tuple[type[KernelOp], ...] = (MoeOp, MoeSharedOp, MoeAddOp, MoeAddNormOp, MoeSharedAddOp)
