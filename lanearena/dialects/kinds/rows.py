"""Launch kinds that work a row or a value at a time: gather, norm, quantize, rope, binary, argmax, sample, and the
gather that norms what it gathers."""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import FloatAttr, IntegerAttr
from xdsl.irdl import irdl_op_definition, operand_def, prop_def

from lanearena import kernel_shapes
from lanearena.dialects.attrs import BinaryAttr, BinaryKind, ScalingAttr, ScalingKind, TensorType
from lanearena.dialects.kernel import (
    KernelOp,
    arg,
    arg_written,
    count,
    option,
    param,
    real,
    signature,
    written_forms,
)
from lanearena.dialects.kinds.common import buffer, counter
from lanearena.model import QBLOCK, Form, Numerics, Scratch


def check_gather(op: KernelOp, table: str, ids: str, out: str) -> None:
    """`out` holds the rows of `table` that `ids` name."""
    dims = op.dims(table)
    if len(dims) < 2:
        raise op.fail(f"table '{op.tensor(table).tensor_name}' is {dims}, not rows [vocab, d]")
    d = op.length(table) // dims[0]
    n = op.length(ids)
    check_length(op, out, n * d, f"{n} ids of table rows of {d} values")


def check_norm(op: KernelOp, x: str, gain: str, out: str) -> None:
    """`out` holds the rows of `x` normed, each as long as `gain`, quantized in whole blocks where written so."""
    d, n = op.length(gain), op.length(x)
    if n % d:
        raise op.fail(
            f"gain '{op.tensor(gain).tensor_name}' of {d} values does not divide x '{op.tensor(x).tensor_name}' of "
            f"{n} values into rows"
        )
    check_length(op, out, n, f"{n // d} rows of {d} values")
    if Form.QUANT in op.written_forms(out) and d % QBLOCK:
        raise op.fail(f"rows of {d} values cannot be quantized in {QBLOCK}-value blocks")


def check_length(op: KernelOp, name: str, want: int, why: str) -> None:
    """Operand `name` holds `want` values, as `why` makes them."""
    if op.length(name) != want:
        raise op.fail(f"{name} '{op.tensor(name).tensor_name}' holds {op.length(name)} values, but {why} make {want}")


def check_scaling(op: KernelOp, turned: int) -> None:
    """The rotation parameters a scaling reads (of a kind with a rope's `scaling`, `factor`, `low_freq`,
    `high_freq` and `original`): a factor of at least 1, the original length where it is measured against, the
    llama3 band's edges in order, and more than one pair turned (`turned` values) where the base grows."""
    scaling, factor = op.properties["scaling"], op.properties["factor"]
    assert isinstance(scaling, ScalingAttr) and isinstance(factor, FloatAttr)  # the kind's typed properties
    how, f = scaling.data, factor.value.data
    if how is ScalingKind.DEFAULT:
        return
    low, high, original = (op.properties[n] for n in ("low_freq", "high_freq", "original"))
    assert isinstance(low, FloatAttr) and isinstance(high, FloatAttr) and isinstance(original, IntegerAttr)
    if f < 1:
        raise op.fail(f"scaling {how.value} takes a factor of at least 1, not {f}")
    if how in (ScalingKind.DYNAMIC, ScalingKind.LLAMA3) and not original.value.data:
        raise op.fail(f"scaling {how.value} needs the original length the model was trained at (original)")
    if how is ScalingKind.LLAMA3 and not low.value.data < high.value.data:
        raise op.fail(f"llama3 scaling takes low_freq {low.value.data} under high_freq {high.value.data}")
    if how is ScalingKind.DYNAMIC and turned <= 2:
        raise op.fail(f"dynamic scaling grows the base by a power of d / (d - 2): {turned} values turned")


@irdl_op_definition
class GatherOp(KernelOp):
    """`lane.gather %table, %ids -> %out`: the rows of `table` that `ids` name."""

    name = "lane.gather"
    table = operand_def(TensorType)
    ids = operand_def(TensorType)
    out = operand_def(TensorType)
    WEIGHTS: ClassVar = ("table",)
    INTS: ClassVar = ("ids",)
    assembly_format = signature([arg("table"), arg("ids")], [arg("out")])

    def verify_(self) -> None:
        super().verify_()
        check_gather(self, "table", "ids", "out")


@irdl_op_definition
class NormOp(KernelOp):
    """`lane.norm %x, %gain -> %out(plain, quant) eps(1.0e-06)`: RMS norm of each row, times `gain`."""

    name = "lane.norm"
    x = operand_def(TensorType)
    gain = operand_def(TensorType)
    out = operand_def(TensorType)
    out_forms = written_forms()
    eps = real(1e-6)
    WEIGHTS: ClassVar = ("gain",)
    F32_WEIGHTS: ClassVar = ("gain",)
    assembly_format = signature([arg("x"), arg("gain")], [arg_written("out")], option("eps"))

    def verify_(self) -> None:
        super().verify_()
        check_norm(self, "x", "gain", "out")


@irdl_op_definition
class QuantizeOp(KernelOp):
    """`lane.quantize %x -> %out(quant)`: the quantized form of `x`."""

    name = "lane.quantize"
    x = operand_def(TensorType)
    out = operand_def(TensorType)
    out_forms = written_forms(Form.QUANT.value)
    assembly_format = signature([arg("x")], [arg_written("out")])

    def verify_(self) -> None:
        super().verify_()
        forms = self.written_forms("out")
        if forms != (Form.QUANT,):
            raise self.error(
                f"lane.quantize writes the quant form of '{self.tensor('out').tensor_name}' alone, not "
                f"({', '.join(f.value for f in forms)})"
            )
        n = self.length("x")
        check_length(self, "out", n, f"the {n} values of x '{self.tensor('x').tensor_name}'")


@irdl_op_definition
class RopeOp(KernelOp):
    """`lane.rope %pos -> %x heads(16)`: rotates `x` in place by the positions `pos` (`rotary` values of each head,
    all of them where 0), each pair i of a head's turned values at the angle pos * theta^(-2i/rotary), its frequency
    scaled by `scaling` (Hugging Face's `rope_type`): `linear` over `factor`; `dynamic`, the base grown to theta *
    (factor * n / original - (factor - 1))^(rotary / (rotary - 2)) where the step's last position n - 1 passes the
    `original` length; `llama3`, a frequency whose wavelength passes original / low_freq over `factor`, one under
    original / high_freq kept, one between blended."""

    name = "lane.rope"
    pos = operand_def(TensorType)
    x = operand_def(TensorType)
    heads = count()
    theta = real(1e6)
    rotary = count(0)
    scaling = prop_def(ScalingAttr, default_value=ScalingAttr(ScalingKind.DEFAULT))
    factor = real(1.0)
    low_freq = real(1.0)
    high_freq = real(4.0)
    original = count(0)
    WRITES: ClassVar = ("x",)
    INTS: ClassVar = ("pos",)
    assembly_format = signature(
        [arg("pos")],
        [arg("x")],
        param("heads"),
        option("theta"),
        option("rotary"),
        option("scaling"),
        option("factor"),
        option("low_freq"),
        option("high_freq"),
        option("original"),
    )

    def reads(self) -> list[tuple]:
        return [*super().reads(), (self.x, Form.PLAIN)]

    def verify_(self) -> None:
        super().verify_()
        heads, rows, n = self.heads.value.data, self.length("pos"), self.length("x")
        if n % (rows * heads) or (n // (rows * heads)) % 2:
            raise self.fail(
                f"x '{self.tensor('x').tensor_name}' of {n} values is not {rows} rows (positions) of {heads} heads "
                "of an even size"
            )
        rotary, hd = self.rotary.value.data, n // (rows * heads)
        if rotary % 2 or rotary > hd:
            raise self.fail(f"rotary {rotary} is not an even count of at most a head's {hd} values")
        check_scaling(self, rotary or hd)


@irdl_op_definition
class BinaryOp(KernelOp):
    """`lane.binary %a, %b -> %out op(gate)`: an element-wise op (`add` by default)."""

    name = "lane.binary"
    a = operand_def(TensorType)
    b = operand_def(TensorType)
    out = operand_def(TensorType)
    op = prop_def(BinaryAttr, default_value=BinaryAttr(BinaryKind.ADD))
    assembly_format = signature([arg("a"), arg("b")], [arg("out")], option("op"))

    def verify_(self) -> None:
        super().verify_()
        a, b, out = self.length("a"), self.length("b"), self.length("out")
        if not a == b == out:
            raise self.fail(
                f"a '{self.tensor('a').tensor_name}', b '{self.tensor('b').tensor_name}' and out "
                f"'{self.tensor('out').tensor_name}' hold {a}, {b} and {out} values, not one length"
            )


@irdl_op_definition
class ArgmaxOp(KernelOp):
    """`lane.argmax %logits -> %out`: each row's index of its largest value (the first of equals), -1 where the row
    holds a NaN or +Inf."""

    name = "lane.argmax"
    logits = operand_def(TensorType)
    out = operand_def(TensorType)
    INTS: ClassVar = ("out",)
    assembly_format = signature([arg("logits")], [arg("out")])

    def verify_(self) -> None:
        super().verify_()
        vocab, n = self.dims("logits")[-1], self.length("logits")
        check_length(self, "out", n // vocab, f"{n // vocab} rows of {vocab} logits")

    def scratch(self, numerics: Numerics) -> list[Scratch]:
        """In blocks: each block's maximum and its index, and each row's count of blocks arrived."""
        vocab = self.dims("logits")[-1]
        rows, blocks = self.length("logits") // vocab, kernel_shapes.argmax_blocks(vocab)
        return [
            buffer("av", "f32", rows * blocks * 4),
            buffer("ai", "i32", rows * blocks * 4),
            counter("ac", rows * 4),
        ]


@irdl_op_definition
class SampleOp(KernelOp):
    """`lane.sample %logits, %draw -> %out temperature top_k top_p`: each row's token drawn from its logits by
    `decoding`'s procedure (at `temperature`, from the `top_k` most likely (0: all), of those the fewest whose
    probability reaches `top_p`), with the row's uniform number in `draw`; -1 where the row holds NaN or +Inf (no
    distribution to draw from)."""

    name = "lane.sample"
    logits = operand_def(TensorType)
    draw = operand_def(TensorType)
    out = operand_def(TensorType)
    temperature = real(1.0)
    top_k = count(0)
    top_p = real(1.0)
    INTS: ClassVar = ("out",)
    assembly_format = signature(
        [arg("logits"), arg("draw")], [arg("out")], option("temperature"), option("top_k"), option("top_p")
    )

    def verify_(self) -> None:
        super().verify_()
        vocab, n = self.dims("logits")[-1], self.length("logits")
        check_length(self, "out", n // vocab, f"{n // vocab} rows of {vocab} logits")
        check_length(self, "draw", n // vocab, f"{n // vocab} rows of {vocab} logits, a uniform number each,")
        t, p = self.temperature.value.data, self.top_p.value.data
        if not t < float("inf"):
            raise self.fail(f"temperature must be finite, not {t}")
        if not p <= 1:
            raise self.fail(f"top_p must be at most 1, not {p}")


@irdl_op_definition
class GatherNormOp(KernelOp):
    """`lane.gather_norm %table, %ids, %gain -> %x, %out(plain, quant)`: rows gathered and normed in one launch (the
    seed's `Fold` of a gather: it norms each row in the block that gathers it, and counts nothing)."""

    name = "lane.gather_norm"
    table = operand_def(TensorType)
    ids = operand_def(TensorType)
    gain = operand_def(TensorType)
    x = operand_def(TensorType)
    out = operand_def(TensorType)
    out_forms = written_forms()
    eps = real(1e-6)
    WRITES: ClassVar = ("x", "out")
    WEIGHTS: ClassVar = ("table", "gain")
    F32_WEIGHTS: ClassVar = ("gain",)
    INTS: ClassVar = ("ids",)
    assembly_format = signature([arg("table"), arg("ids"), arg("gain")], [arg("x"), arg_written("out")], option("eps"))

    def verify_(self) -> None:
        super().verify_()
        check_gather(self, "table", "ids", "x")
        check_norm(self, "x", "gain", "out")


OPS: tuple[type[KernelOp], ...] = (
    GatherOp,
    NormOp,
    QuantizeOp,
    RopeOp,
    BinaryOp,
    ArgmaxOp,
    SampleOp,
    GatherNormOp,
)
