"""Matrix products with the launches around them folded in (`lane-fuse` makes them): a prologue that norms the
activation row (norm_gemv, norm_gemv_bias, norm_glu) or quantizes it (`quantize`), and an epilogue that adds the
residual (gemv_add), then norms the sum (gemv_add_norm), or quantizes the gated pair's result (norm_glu's
`out(quant)`).

A prologue stages its block's activation row in shared memory, so the row it works on is at most `ROW_LIMIT`
values; each block norms (and quantizes) the whole row itself, as the norm or the quantize it replaces would, so
the row the product reads is the one the unfused step reads, to the bit."""

from __future__ import annotations

from typing import ClassVar

from xdsl.irdl import irdl_op_definition, operand_def

from lanearena.dialects.attrs import TensorType
from lanearena.dialects.base import step_numerics
from lanearena.dialects.kernel import (
    KernelOp,
    arg,
    arg_read,
    arg_written,
    count,
    flag,
    option,
    read_form,
    real,
    signature,
    written_forms,
)
from lanearena.dialects.kinds.common import counter
from lanearena.dialects.kinds.products import check_bias, check_pair, check_product, split_scratch
from lanearena.dialects.kinds.rows import check_length, check_norm
from lanearena.model import QBLOCK, Form, Numerics, Scratch

ROW_LIMIT = 8192
"""The longest activation row a prologue stages in a block's shared memory: 32 KB of f32 (fused_products.cu's
ROW_LIMIT)."""


class _Prologue(KernelOp):
    """A product whose prologue makes its activation row from `x`: normed by `gain` (where the kind has one) and,
    with `quantize`, quantized as the step's numerics quantize (one word, or two)."""

    split = count(1)
    quantize = flag()

    def prologue_row(self) -> int:
        """The values of a row the prologue makes (the product's k)."""
        raise NotImplementedError

    def verify_(self) -> None:
        super().verify_()
        if self.quantize is not None and step_numerics(self) is Numerics.F32:
            raise self.fail("quantize in the prologue of a step of f32 numerics, whose products read f32")
        k = self.prologue_row()
        if self.staged() and k > ROW_LIMIT:
            raise self.fail(f"a prologue stages rows of at most {ROW_LIMIT} values, not {k}")
        if self.quantize is not None and k % QBLOCK:
            raise self.fail(f"rows of {k} values cannot be quantized in {QBLOCK}-value blocks")

    def staged(self) -> bool:
        """Whether the prologue makes the row in shared memory (else the product reads `x` as it is)."""
        return self.quantize is not None


class _NormPrologue(_Prologue):
    """The row is `x` RMS-normed by `gain` (eps `eps`) before the product reads it (each kind names its operands
    itself, `x` and `gain` first: IRDL orders a subclass's operands before its bases')."""

    eps = real(1e-6)

    def prologue_row(self) -> int:
        return self.length("gain")

    def staged(self) -> bool:
        return True

    def verify_(self) -> None:
        super().verify_()
        d = self.length("gain")
        if self.length("x") % d:
            raise self.fail(
                f"gain '{self.tensor('gain').tensor_name}' of {d} values does not divide x "
                f"'{self.tensor('x').tensor_name}' of {self.length('x')} values into rows"
            )


@irdl_op_definition
class NormGemvOp(_NormPrologue):
    """`lane.norm_gemv %x, %gain, %w -> %out split(4) quantize`: a norm folded into the product that reads it: each
    row of `x` RMS-normed by `gain` (quantized first with `quantize`) times `w` transposed, cut along k in `split`
    parts."""

    name = "lane.norm_gemv"
    x = operand_def(TensorType)
    gain = operand_def(TensorType)
    w = operand_def(TensorType)
    out = operand_def(TensorType)
    WEIGHTS: ClassVar = ("gain", "w")
    F32_WEIGHTS: ClassVar = ("gain",)
    assembly_format = signature(
        [arg("x"), arg("gain"), arg("w")], [arg("out")], option("split"), option("eps"), "(`quantize` $quantize^)?"
    )

    def verify_(self) -> None:
        super().verify_()
        _, _, k = check_product(self, "w")
        _check_gain(self, k)

    def scratch(self, numerics: Numerics) -> list[Scratch]:
        return split_scratch(self, "w", self.split.value.data, numerics, ("fp", "fq"))


@irdl_op_definition
class NormGemvBiasOp(_NormPrologue):
    """`lane.norm_gemv_bias %x, %gain, %w, %bias -> %out`: norm_gemv's product with `bias` [n] added to every row
    (Qwen2's q, k and v projection with its norm folded in)."""

    name = "lane.norm_gemv_bias"
    x = operand_def(TensorType)
    gain = operand_def(TensorType)
    w = operand_def(TensorType)
    bias = operand_def(TensorType)
    out = operand_def(TensorType)
    WEIGHTS: ClassVar = ("gain", "w", "bias")
    F32_WEIGHTS: ClassVar = ("gain", "bias")
    assembly_format = signature(
        [arg("x"), arg("gain"), arg("w"), arg("bias")],
        [arg("out")],
        option("split"),
        option("eps"),
        "(`quantize` $quantize^)?",
    )

    def verify_(self) -> None:
        super().verify_()
        _, n, k = check_product(self, "w")
        _check_gain(self, k)
        check_bias(self, "bias", n)

    def scratch(self, numerics: Numerics) -> list[Scratch]:
        return split_scratch(self, "w", self.split.value.data, numerics, ("fp", "fq"))


@irdl_op_definition
class NormGluOp(_NormPrologue):
    """`lane.norm_glu %x, %gain, %w_gate, %w_up -> %out(quant) quantize`: the MLP's norm, gated pair and quantize
    in one launch: each row of `x` RMS-normed by `gain` (quantized first with `quantize`), silu(h w_gate) * (h w_up)
    written in the forms of `out` (quantized as it is written, where the next product reads it so)."""

    name = "lane.norm_glu"
    x = operand_def(TensorType)
    gain = operand_def(TensorType)
    w_gate = operand_def(TensorType)
    w_up = operand_def(TensorType)
    out = operand_def(TensorType)
    out_forms = written_forms()
    WEIGHTS: ClassVar = ("gain", "w_gate", "w_up")
    F32_WEIGHTS: ClassVar = ("gain",)
    assembly_format = signature(
        [arg("x"), arg("gain"), arg("w_gate"), arg("w_up")],
        [arg_written("out")],
        option("split"),
        option("eps"),
        "(`quantize` $quantize^)?",
    )

    def verify_(self) -> None:
        super().verify_()
        _, n, k = check_pair(self)
        _check_gain(self, k)
        if Form.QUANT in self.written_forms("out") and n % QBLOCK:
            raise self.fail(f"rows of {n} values cannot be quantized in {QBLOCK}-value blocks")

    def scratch(self, numerics: Numerics) -> list[Scratch]:
        return split_scratch(self, "w_gate", self.split.value.data, numerics, ("gp", "gq"), copies=2)


@irdl_op_definition
class GemvAddOp(_Prologue):
    """`lane.gemv_add %x(quant), %w, %residual -> %out split(4)`: a residual add folded into the product it adds:
    `residual` + `x` times `w` transposed (`x` quantized in the prologue with `quantize`), cut along k in `split`
    parts (the output and down projections)."""

    name = "lane.gemv_add"
    x = operand_def(TensorType)
    w = operand_def(TensorType)
    residual = operand_def(TensorType)
    out = operand_def(TensorType)
    x_form = read_form()
    WEIGHTS: ClassVar = ("w",)
    assembly_format = signature(
        [arg_read("x"), arg("w"), arg("residual")], [arg("out")], option("split"), "(`quantize` $quantize^)?"
    )

    def prologue_row(self) -> int:
        return self.dims("w")[-1]

    def verify_(self) -> None:
        super().verify_()
        if self.quantize is not None and self.read_form("x") is Form.QUANT:
            raise self.fail("x is read quantized already: the prologue has nothing to quantize")
        rows, n, _ = check_product(self, "w")
        check_length(self, "residual", rows * n, f"{rows} rows of {n} values")

    def scratch(self, numerics: Numerics) -> list[Scratch]:
        return split_scratch(self, "w", self.split.value.data, numerics, ("fp", "fq"))


@irdl_op_definition
class GemvAddNormOp(_Prologue):
    """`lane.gemv_add_norm %x(quant), %w, %residual, %gain -> %out, %normed(plain) split(4)`: gemv_add, then the sum
    RMS-normed by `gain` into `normed` by the last block to finish (a norm that products alone do not read, as a
    mixture's input, folded into the product before it: gemv_add's scratch, and the count of its tiles finished)."""

    name = "lane.gemv_add_norm"
    x = operand_def(TensorType)
    w = operand_def(TensorType)
    residual = operand_def(TensorType)
    gain = operand_def(TensorType)
    out = operand_def(TensorType)
    normed = operand_def(TensorType)
    x_form = read_form()
    normed_forms = written_forms()
    eps = real(1e-6)
    WRITES: ClassVar = ("out", "normed")
    WEIGHTS: ClassVar = ("w", "gain")
    F32_WEIGHTS: ClassVar = ("gain",)
    assembly_format = signature(
        [arg_read("x"), arg("w"), arg("residual"), arg("gain")],
        [arg("out"), arg_written("normed")],
        option("split"),
        option("eps"),
        "(`quantize` $quantize^)?",
    )

    def prologue_row(self) -> int:
        return self.dims("w")[-1]

    def verify_(self) -> None:
        super().verify_()
        if self.quantize is not None and self.read_form("x") is Form.QUANT:
            raise self.fail("x is read quantized already: the prologue has nothing to quantize")
        rows, n, _ = check_product(self, "w")
        check_length(self, "residual", rows * n, f"{rows} rows of {n} values")
        check_norm(self, "out", "gain", "normed")

    def scratch(self, numerics: Numerics) -> list[Scratch]:
        return [*split_scratch(self, "w", self.split.value.data, numerics, ("fp", "fq")), counter("gc", 4)]


def _check_gain(op: KernelOp, k: int) -> None:
    """The gain norms the rows the product reads: one value each of k."""
    if op.length("gain") != k:
        raise op.fail(
            f"gain '{op.tensor('gain').tensor_name}' of {op.length('gain')} values is not one a value of k {k}"
        )


OPS: tuple[type[KernelOp], ...] = (NormGemvOp, NormGemvBiasOp, NormGluOp, GemvAddOp, GemvAddNormOp)
