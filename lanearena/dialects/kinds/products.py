"""Launch kinds that multiply by a weight matrix: gemv and the gated pair glu, cut along k in `split` parts; the same
with biases added to what they sum (gemv_bias, glu_bias); their tensor-core forms gemm_tc and glu_tc; and the
products that turn or norm what they make (gemv_rope, gemv_norm)."""

from __future__ import annotations

from typing import ClassVar

from xdsl.irdl import irdl_op_definition, operand_def, opt_prop_def

from lanearena import kernel_shapes
from lanearena.dialects.attrs import PartAttr, TensorType
from lanearena.dialects.kernel import (
    KernelOp,
    arg,
    arg_read,
    arg_written,
    count,
    option,
    param,
    read_form,
    real,
    signature,
    written_forms,
)
from lanearena.dialects.kinds.common import buffer, cdiv, counter, works_in_blocks
from lanearena.dialects.kinds.rows import check_length, check_norm
from lanearena.model import QBLOCK, Numerics, Part, Scratch


def check_product(op: KernelOp, w: str, part: Part | None = None) -> tuple[int, int, int]:
    """(rows, n, k) of `x` times weight `w` [n, k] into `out`: x is rows of k (whole blocks where quantized), out
    rows of n (or, where it writes a `part` of width n of each, rows of its pitch)."""
    dims = op.dims(w)
    if len(dims) != 2:
        raise op.fail(f"{w} '{op.tensor(w).tensor_name}' is {dims}, not a matrix [n, k]")
    n, k = dims
    x = op.length("x")
    if x % k:
        raise op.fail(
            f"x '{op.tensor('x').tensor_name}' of {x} values is not rows of {w} '{op.tensor(w).tensor_name}''s {k} "
            "values (k)"
        )
    if works_in_blocks(op) and k % QBLOCK:
        raise op.fail(f"k of {k} values is not a whole number of {QBLOCK}-value blocks, as a quantized product needs")
    rows = x // k
    if part is None:
        check_length(op, "out", rows * n, f"{rows} rows of {n} values")
        return rows, n, k
    if part.width != n:
        raise op.fail(f"a part of width {part.width} of every {part.pitch}, but {w} makes {n} values a row")
    check_length(op, "out", rows * part.pitch, f"{rows} rows of a pitch of {part.pitch}")
    return rows, n, k


def check_pair(op: KernelOp) -> tuple[int, int, int]:
    """(rows, n, k) of a gated pair: `w_up` as `w_gate`."""
    if op.dims("w_up") != op.dims("w_gate"):
        raise op.fail(f"w_up '{op.tensor('w_up').tensor_name}' is {op.dims('w_up')}, but w_gate is {op.dims('w_gate')}")
    return check_product(op, "w_gate")


def split_scratch(op: KernelOp, w: str, split: int, numerics: Numerics, tags: tuple[str, str], copies: int = 1):
    """A product cut along k in `split` parts (lanearena's own under int8, where the seed's projections are not cut
    off the tensor cores): each part's sums (`copies` products at once: two for a gated pair's gate and up), and
    each tile's count of parts arrived. An f32 product (`gemv` under f32) is the seed's `GemvF32` cut along k: its
    parts' sums are whole 64 x 64 tiles, counted a tile."""
    if split <= 1:
        return []
    parts, counts = tags
    n, k = op.dims(w)[0], op.dims(w)[-1]
    rows = op.length("x") // k
    tiles = cdiv(n, kernel_shapes.F32_TILE) * cdiv(rows, kernel_shapes.F32_TILE)
    if copies == 1 and kernel_shapes.multiplies_in_tiles(numerics):
        return [buffer(parts, "f32", tiles * split * 256 * 16 * 4), counter(counts, tiles * 4)]
    if copies == 1:
        return [buffer(parts, "f32", split * rows * n * 4), counter(counts, tiles * 4)]
    return [buffer(parts, "f32", copies * split * rows * n * 4), counter(counts, rows * cdiv(n, 64) * 4)]


class _Product(KernelOp):
    """`x` (plain or quantized) times weight `w` transposed into `out`, cut along k in `split` parts."""

    x = operand_def(TensorType)
    w = operand_def(TensorType)
    out = operand_def(TensorType)
    x_form = read_form()
    split = count(1)
    WEIGHTS: ClassVar = ("w",)


class _GatedPair(KernelOp):
    """silu(x w_gate) * (x w_up) into `out`, `x` plain or quantized, cut along k in `split` parts."""

    x = operand_def(TensorType)
    w_gate = operand_def(TensorType)
    w_up = operand_def(TensorType)
    out = operand_def(TensorType)
    x_form = read_form()
    split = count(1)
    WEIGHTS: ClassVar = ("w_gate", "w_up")


@irdl_op_definition
class GemvOp(_Product):
    """`lane.gemv %x(quant), %w -> %out split(4)`: `x` times `w` transposed, cut along k in `split` parts; with a
    `part<pitch, start, width>` it writes columns [start, start + width) of rows of `pitch`."""

    name = "lane.gemv"
    part = opt_prop_def(PartAttr)
    assembly_format = signature([arg_read("x"), arg("w")], [arg("out")], option("split"), "(`part` $part^)?")

    def verify_(self) -> None:
        super().verify_()
        check_product(self, "w", self.written_part)

    def scratch(self, numerics: Numerics) -> list[Scratch]:
        return split_scratch(self, "w", self.split.value.data, numerics, ("fp", "fq"))


@irdl_op_definition
class GluOp(_GatedPair):
    """`lane.glu %x, %w_gate, %w_up -> %out split(2)`: the gated pair silu(x w_gate) * (x w_up), cut along k."""

    name = "lane.glu"
    assembly_format = signature([arg_read("x"), arg("w_gate"), arg("w_up")], [arg("out")], option("split"))

    def verify_(self) -> None:
        super().verify_()
        check_pair(self)

    def scratch(self, numerics: Numerics) -> list[Scratch]:
        return split_scratch(self, "w_gate", self.split.value.data, numerics, ("gp", "gq"), copies=2)


def check_bias(op: KernelOp, bias: str, n: int) -> None:
    """`bias` holds one value for each of the product's `n` columns."""
    if op.dims(bias) != (n,):
        raise op.fail(f"{bias} '{op.tensor(bias).tensor_name}' is {op.dims(bias)}, not one value a column ({n},)")


@irdl_op_definition
class GemvBiasOp(KernelOp):
    """`lane.gemv_bias %x(quant), %w, %bias -> %out split(4)`: gemv's product with `bias` [n] added to every row, as
    a projection with a bias computes it (Qwen2's q, k and v; Llama's with attention_bias or mlp_bias)."""

    name = "lane.gemv_bias"
    x = operand_def(TensorType)
    w = operand_def(TensorType)
    bias = operand_def(TensorType)
    out = operand_def(TensorType)
    x_form = read_form()
    split = count(1)
    WEIGHTS: ClassVar = ("w", "bias")
    F32_WEIGHTS: ClassVar = ("bias",)
    assembly_format = signature([arg_read("x"), arg("w"), arg("bias")], [arg("out")], option("split"))

    def verify_(self) -> None:
        super().verify_()
        _, n, _ = check_product(self, "w")
        check_bias(self, "bias", n)

    def scratch(self, numerics: Numerics) -> list[Scratch]:
        return split_scratch(self, "w", self.split.value.data, numerics, ("fp", "fq"))


@irdl_op_definition
class GluBiasOp(KernelOp):
    """`lane.glu_bias %x, %w_gate, %w_up, %b_gate, %b_up -> %out split(2)`: the gated pair with a bias on each
    projection, silu(x w_gate + b_gate) * (x w_up + b_up) (Llama's MLP with mlp_bias)."""

    name = "lane.glu_bias"
    x = operand_def(TensorType)
    w_gate = operand_def(TensorType)
    w_up = operand_def(TensorType)
    b_gate = operand_def(TensorType)
    b_up = operand_def(TensorType)
    out = operand_def(TensorType)
    x_form = read_form()
    split = count(1)
    WEIGHTS: ClassVar = ("w_gate", "w_up", "b_gate", "b_up")
    F32_WEIGHTS: ClassVar = ("b_gate", "b_up")
    assembly_format = signature(
        [arg_read("x"), arg("w_gate"), arg("w_up"), arg("b_gate"), arg("b_up")], [arg("out")], option("split")
    )

    def verify_(self) -> None:
        super().verify_()
        _, n, _ = check_pair(self)
        check_bias(self, "b_gate", n)
        check_bias(self, "b_up", n)

    def scratch(self, numerics: Numerics) -> list[Scratch]:
        return split_scratch(self, "w_gate", self.split.value.data, numerics, ("gp", "gq"), copies=2)


def _check_tiles(op: KernelOp, w: str, gated: bool, split: int, whole: int) -> None:
    """A projection on the tensor cores: `whole` leaves some of its tiles to cut in `split` parts."""
    n, k = op.dims(w)
    m = op.length("x") // k
    tiles = kernel_shapes.gemm_tiles_wide(2 * n if gated else n) * cdiv(m, kernel_shapes.gemm_rows(m, Numerics.F32))
    if split > 1 and whole >= tiles:
        raise op.fail(f"whole {whole} leaves none of its {tiles} tiles to cut in {split} parts")


def tile_scratch(op: KernelOp, w: str, gated: bool, split: int, whole: int, numerics: Numerics) -> list[Scratch]:
    """A projection on the tensor cores: its last wave's tiles past the `whole` first ones cut along k in `split`
    parts, each part's sums and each cut tile's count of parts arrived (a gated pair's tile holds the gate and up
    sums of half as many outputs); a batch's gated pair uncut, its gate's and its up's sums, gated after."""
    n, k = op.dims(w)
    m = op.length("x") // k
    if split > 1:
        rows = kernel_shapes.gemm_rows(m, numerics)
        tiles = kernel_shapes.gemm_tiles_wide(2 * n if gated else n) * cdiv(m, rows)
        cut = max(tiles - whole, 0)
        return [buffer("tp", "f32", cut * split * rows * kernel_shapes.GEMM_TILE_N * 4), counter("tc", cut * 4)]
    if gated and m > 1:
        return [buffer("mg", "f32", m * n * 4), buffer("mu", "f32", m * n * 4)]
    return []


@irdl_op_definition
class GemmTcOp(_Product):
    """`lane.gemm_tc %x(quant), %w -> %out split(2) whole(3)`: a projection in the tensor-core tiles, its last wave
    (the tiles past the first `whole`) cut along k."""

    name = "lane.gemm_tc"
    whole = count(0)
    assembly_format = signature([arg_read("x"), arg("w")], [arg("out")], option("split"), option("whole"))

    def verify_(self) -> None:
        super().verify_()
        check_product(self, "w")
        _check_tiles(self, "w", False, self.split.value.data, self.whole.value.data)

    def scratch(self, numerics: Numerics) -> list[Scratch]:
        return tile_scratch(self, "w", False, self.split.value.data, self.whole.value.data, numerics)


@irdl_op_definition
class GluTcOp(_GatedPair):
    """`lane.glu_tc %x, %w_gate, %w_up -> %out split(2)`: the gated pair in the tensor-core tiles."""

    name = "lane.glu_tc"
    whole = count(0)
    assembly_format = signature(
        [arg_read("x"), arg("w_gate"), arg("w_up")], [arg("out")], option("split"), option("whole")
    )

    def verify_(self) -> None:
        super().verify_()
        check_pair(self)
        _check_tiles(self, "w_gate", True, self.split.value.data, self.whole.value.data)

    def scratch(self, numerics: Numerics) -> list[Scratch]:
        return tile_scratch(self, "w_gate", True, self.split.value.data, self.whole.value.data, numerics)


@irdl_op_definition
class GemvRopeOp(KernelOp):
    """`lane.gemv_rope %x, %w, %pos -> %out heads(16) kv_heads(8)`: a q, k and v projection whose q and k heads are
    turned as they finish (the seed's `Fold` into a rope: the product's scratch, and each turned head's count of
    rows written)."""

    name = "lane.gemv_rope"
    x = operand_def(TensorType)
    w = operand_def(TensorType)
    pos = operand_def(TensorType)
    out = operand_def(TensorType)
    x_form = read_form()
    split = count(1)
    heads = count()
    kv_heads = count()
    theta = real(1e6)
    WEIGHTS: ClassVar = ("w",)
    INTS: ClassVar = ("pos",)
    assembly_format = signature(
        [arg_read("x"), arg("w"), arg("pos")],
        [arg("out")],
        option("split"),
        param("heads"),
        param("kv_heads"),
        option("theta"),
    )

    def verify_(self) -> None:
        super().verify_()
        rows, n, _ = check_product(self, "w")
        heads, kv = self.heads.value.data, self.kv_heads.value.data
        groups = heads + 2 * kv
        if rows != self.length("pos") or n % groups or (n // groups) % 2:
            raise self.fail(
                f"out '{self.tensor('out').tensor_name}' of {rows} rows of {n} values is not {self.length('pos')} "
                f"rows (positions) of q, k and v heads of an even size ({heads}, {kv} and {kv} heads)"
            )

    def scratch(self, numerics: Numerics) -> list[Scratch]:
        turned = self.heads.value.data + self.kv_heads.value.data
        return [*split_scratch(self, "w", self.split.value.data, numerics, ("fp", "fq")), counter("gc", turned * 4)]


@irdl_op_definition
class GemvNormOp(KernelOp):
    """`lane.gemv_norm %x, %w, %gain -> %out, %normed(plain, quant)`: a projection whose last block norms the result
    (the seed's `Fold` into a norm: the product's scratch, and the count of its blocks arrived)."""

    name = "lane.gemv_norm"
    x = operand_def(TensorType)
    w = operand_def(TensorType)
    gain = operand_def(TensorType)
    out = operand_def(TensorType)
    normed = operand_def(TensorType)
    x_form = read_form()
    normed_forms = written_forms()
    split = count(1)
    eps = real(1e-6)
    WRITES: ClassVar = ("out", "normed")
    WEIGHTS: ClassVar = ("w", "gain")
    F32_WEIGHTS: ClassVar = ("gain",)
    assembly_format = signature(
        [arg_read("x"), arg("w"), arg("gain")], [arg("out"), arg_written("normed")], option("split"), option("eps")
    )

    def verify_(self) -> None:
        super().verify_()
        check_product(self, "w")
        check_norm(self, "out", "gain", "normed")

    def scratch(self, numerics: Numerics) -> list[Scratch]:
        return [*split_scratch(self, "w", self.split.value.data, numerics, ("fp", "fq")), counter("gc", 4)]


OPS: tuple[type[KernelOp], ...] = (GemvOp, GluOp, GemvBiasOp, GluBiasOp, GemmTcOp, GluTcOp, GemvRopeOp, GemvNormOp)
