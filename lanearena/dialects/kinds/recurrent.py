"""Launch kinds of Qwen3-Next's linear-attention layers, which keep state across steps: the causal convolution and
the gated delta rule."""

from __future__ import annotations

from typing import ClassVar

from xdsl.irdl import irdl_op_definition, operand_def

from lanearena import kernel_shapes
from lanearena.dialects.attrs import TensorType
from lanearena.dialects.kernel import KernelOp, arg, arg_written, count, option, param, real, signature, written_forms
from lanearena.dialects.kinds.common import buffer, cdiv, counter, sequence_rows, slot_dims
from lanearena.dialects.kinds.rows import check_length
from lanearena.model import QBLOCK, Form, Numerics, Scratch


@irdl_op_definition
class ConvOp(KernelOp):
    """`lane.conv %x, %w -> %state, %out`: the causal convolution of `x`'s rows (channels) by `w` [channels, taps],
    after the window `state` keeps of the last rows, which it updates in place. With `seqs` sequences the state is
    [seqs, taps - 1, channels], a window a sequence, and each sequence's rows (rows / seqs of them, in order)
    convolve after its own window."""

    name = "lane.conv"
    x = operand_def(TensorType)
    w = operand_def(TensorType)
    state = operand_def(TensorType)
    out = operand_def(TensorType)
    seqs = count(1)
    WRITES: ClassVar = ("state", "out")
    UPDATES: ClassVar = ("state",)
    WEIGHTS: ClassVar = ("w",)
    F32_WEIGHTS: ClassVar = ("w",)
    assembly_format = signature([arg("x"), arg("w")], [arg("state"), arg("out")], option("seqs"))

    def verify_(self) -> None:
        super().verify_()
        w = self.dims("w")
        if len(w) != 2:
            raise self.fail(f"w '{self.tensor('w').tensor_name}' is {w}, not a matrix [n, k]")
        ch, width = w
        if self.length("x") % ch or width < 2:
            raise self.fail(
                f"x '{self.tensor('x').tensor_name}' of {self.length('x')} values is not rows of w's {ch} channels, "
                f"or the kernel's {width} taps are fewer than 2"
            )
        sequence_rows(self, self.length("x") // ch)
        if slot_dims(self, "state") != (width - 1, ch):
            raise self.fail(
                f"state '{self.tensor('state').tensor_name}' is {self.dims('state')}, not the last {width - 1} rows "
                f"of {ch} channels{' a sequence' if self.seqs.value.data > 1 else ''}"
            )
        check_length(self, "out", self.length("x"), f"the {self.length('x')} values of x")


@irdl_op_definition
class DeltaOp(KernelOp):
    """`lane.delta %qkv, %z, %ab, %a_log, %dt_bias, %gain -> %state, %out key_heads(16)`: the gated delta rule over
    `state` [value heads, d, d], updated in place, its outputs normed and gated by `z`. With `seqs` sequences the
    state is [seqs, value heads, d, d], a slot a sequence, and row r steps its sequence's (one row a sequence:
    several sequences' chunks do not run)."""

    name = "lane.delta"
    qkv = operand_def(TensorType)
    z = operand_def(TensorType)
    ab = operand_def(TensorType)
    a_log = operand_def(TensorType)
    dt_bias = operand_def(TensorType)
    gain = operand_def(TensorType)
    state = operand_def(TensorType)
    out = operand_def(TensorType)
    out_forms = written_forms()
    key_heads = count()
    eps = real(1e-6)
    seqs = count(1)
    WRITES: ClassVar = ("state", "out")
    UPDATES: ClassVar = ("state",)
    WEIGHTS: ClassVar = ("a_log", "dt_bias", "gain")
    F32_WEIGHTS: ClassVar = ("a_log", "dt_bias", "gain")
    assembly_format = signature(
        [arg("qkv"), arg("z"), arg("ab"), arg("a_log"), arg("dt_bias"), arg("gain")],
        [arg("state"), arg_written("out")],
        param("key_heads"),
        option("eps"),
        option("seqs"),
    )

    def shape(self) -> tuple[int, int, int]:
        """(rows, value heads, d): rows of z [rows, hv * d], a state [hv, d, d] (a sequence's)."""
        hv, d = slot_dims(self, "state")[0], self.dims("state")[-1]
        return self.length("z") // (hv * d), hv, d

    def verify_(self) -> None:
        super().verify_()
        state = slot_dims(self, "state")
        if len(state) != 3 or state[1] != state[2]:
            raise self.fail(f"state '{self.tensor('state').tensor_name}' is {state}, not [value heads, d, d]")
        hv, d, _ = state
        hk = self.key_heads.value.data
        if hv % hk:
            raise self.fail(f"key_heads {hk} do not divide the state's {hv} value heads")
        if self.length("z") % (hv * d):
            raise self.fail(
                f"z '{self.tensor('z').tensor_name}' of {self.length('z')} values is not rows of {hv} heads of {d}"
            )
        rows = self.length("z") // (hv * d)
        if sequence_rows(self, rows) > 1 and self.seqs.value.data > 1:
            raise self.fail(f"{rows} rows of {self.seqs.value.data} sequences: the delta rule steps one row a sequence")
        wants = {"qkv": rows * (2 * hk + hv) * d, "ab": rows * 2 * hv, "a_log": hv, "dt_bias": hv, "gain": d}
        wants["out"] = rows * hv * d
        for name, n in wants.items():
            check_length(self, name, n, f"{rows} rows of {hk} key and {hv} value heads of {d}")
        if Form.QUANT in self.written_forms("out") and d % QBLOCK:
            raise self.fail(f"heads of {d} values cannot be quantized in {QBLOCK}-value blocks")

    def scratch(self, numerics: Numerics) -> list[Scratch]:
        """In chunks: the unnormed outputs, and each chunk's decayed keys and queries, `T·diag(β)`, masked scores
        and decays. Stepped a row at a time: the unnormed outputs, and each head's count of blocks arrived, for the
        last to norm the head (a sequence's own)."""
        rows, hv, d = self.shape()
        seqs = self.seqs.value.data
        if kernel_shapes.delta_in_chunks(rows // seqs):
            kg, qg, tb, sc, dec = kernel_shapes.delta_chunk_scratch(cdiv(rows, kernel_shapes.DELTA_CHUNK), hv, d)
            return [
                buffer("o", "f32", rows * hv * d * 4),
                buffer("dk", "f32", kg * 4),
                buffer("dq", "f32", qg * 4),
                buffer("dt", "f32", tb * 4),
                buffer("dp", "f32", sc * 4),
                buffer("dg", "f32", dec * 4),
            ]
        return [buffer("o", "f32", rows // seqs * hv * d * seqs * 4), counter("dc", hv * seqs * 4)]


OPS: tuple[type[KernelOp], ...] = (ConvOp, DeltaOp)
