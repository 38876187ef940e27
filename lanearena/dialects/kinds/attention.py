"""Launch kinds over the key/value cache: kv_store, and attention in its three forms (a head a block, every head of
a group in one block, and over the cache in two words)."""

from __future__ import annotations

from typing import ClassVar

from xdsl.irdl import irdl_op_definition, operand_def

from lanearena import kernel_shapes
from lanearena.dialects.attrs import TensorType
from lanearena.dialects.base import step_numerics
from lanearena.dialects.kernel import KernelOp, arg, count, option, param, signature
from lanearena.dialects.kinds.common import buffer, counter, sequence_rows, slot_dims
from lanearena.dialects.kinds.rows import check_length
from lanearena.model import Numerics, Other, Scratch, WriteHow


@irdl_op_definition
class KvStoreOp(KernelOp):
    """`lane.kv_store %k, %v, %pos -> %k_cache, %v_cache`: the new rows into the caches, at their positions (a few
    rows of each: never a whole write). With `seqs` sequences the caches are [seqs, length, ...], a slot a sequence,
    and row r writes into the slot of its sequence, r // (rows / seqs)."""

    name = "lane.kv_store"
    k = operand_def(TensorType)
    v = operand_def(TensorType)
    pos = operand_def(TensorType)
    k_cache = operand_def(TensorType)
    v_cache = operand_def(TensorType)
    seqs = count(1)
    WRITES: ClassVar = ("k_cache", "v_cache")
    INTS: ClassVar = ("pos",)
    assembly_format = signature([arg("k"), arg("v"), arg("pos")], [arg("k_cache"), arg("v_cache")], option("seqs"))

    def write_how(self, name: str) -> WriteHow:
        return Other()

    def verify_(self) -> None:
        super().verify_()
        kc, vc = slot_dims(self, "k_cache"), slot_dims(self, "v_cache")
        if vc != kc or len(kc) < 2:
            raise self.fail(
                f"caches '{self.tensor('k_cache').tensor_name}' {kc} and '{self.tensor('v_cache').tensor_name}' {vc} "
                "are not two caches [length, width] of one shape"
            )
        width, rows = self.length("k_cache") // (kc[0] * self.seqs.value.data), self.length("pos")
        sequence_rows(self, rows)
        for new in ("k", "v"):
            if self.length(new) != rows * width:
                raise self.fail(
                    f"'{self.tensor(new).tensor_name}' of {self.length(new)} values is not {rows} rows (positions) of "
                    f"the caches' {width}"
                )


class _Attention(KernelOp):
    """`q`'s rows (one a position) of `heads` heads attend over the caches' rows of `kv_heads` heads into `out`: a
    row at position p over positions [0, p], or, with a sliding `window`, over its last `window` positions
    (p - window, p] (the whole cache read through the window: no ring). With `seqs` sequences the caches are
    [seqs, length, ...] and row r attends over the slot of its sequence, r // (rows / seqs)."""

    q = operand_def(TensorType)
    k_cache = operand_def(TensorType)
    v_cache = operand_def(TensorType)
    pos = operand_def(TensorType)
    out = operand_def(TensorType)
    heads = count()
    kv_heads = count()
    window = count(0)
    seqs = count(1)
    INTS: ClassVar = ("pos",)
    NUMERICS: ClassVar[tuple[Numerics, ...] | None] = None
    """The only numerics the kind runs under, where it does not run under all."""

    def verify_(self) -> None:
        super().verify_()
        if self.NUMERICS is not None and step_numerics(self) not in (None, *self.NUMERICS):
            raise self.fail(f"{self.name} runs under {' or '.join(n.value for n in self.NUMERICS)} numerics only")
        heads, kv = self.heads.value.data, self.kv_heads.value.data
        width, rows = self.dims("q")[-1], self.length("pos")
        if width % heads or self.length("q") != rows * width:
            raise self.fail(
                f"q '{self.tensor('q').tensor_name}' {self.dims('q')} is not {rows} rows (positions) of {heads} heads"
            )
        if heads % kv:
            raise self.fail(f"kv_heads {kv} do not divide heads {heads}")
        sequence_rows(self, rows)
        hd, kc, vc = width // heads, slot_dims(self, "k_cache"), slot_dims(self, "v_cache")
        if vc != kc or self.length("k_cache") != self.seqs.value.data * kc[0] * kv * hd:
            raise self.fail(
                f"caches '{self.tensor('k_cache').tensor_name}' {kc} and '{self.tensor('v_cache').tensor_name}' {vc} "
                f"are not [length, {kv} kv heads of {hd}] both"
            )
        check_length(self, "out", self.length("q"), f"the {self.length('q')} values of q")

    def head_size(self) -> int:
        return self.dims("q")[-1] // self.heads.value.data

    def cache_length(self) -> int:
        """The positions a sequence's slot of the caches holds."""
        return slot_dims(self, "k_cache")[0]


_OPERANDS = ([arg("q"), arg("k_cache"), arg("v_cache"), arg("pos")], [arg("out")])


@irdl_op_definition
class AttentionOp(_Attention):
    """`lane.attention %q, %k_cache, %v_cache, %pos -> %out heads(16) kv_heads(8) splits(4)`: a head a block, split
    over `splits` chunks of the cache."""

    name = "lane.attention"
    splits = count(1)
    assembly_format = signature(
        *_OPERANDS, param("heads"), param("kv_heads"), option("splits"), option("window"), option("seqs")
    )

    def scratch(self, numerics: Numerics) -> list[Scratch]:
        """Split, a head a block: each chunk's maximum, sum and weighed values, and each head's count of chunks
        arrived (none in tiles)."""
        heads, splits = self.heads.value.data, self.splits.value.data
        if splits <= 1 or kernel_shapes.attends_in_tiles():
            return []
        hd = self.head_size()
        rows = self.length("q") // (heads * hd)
        acc, elem = kernel_shapes.accumulator(numerics)
        return [buffer("ap", elem, rows * heads * splits * (hd + 2) * acc), counter("ac", rows * heads * 4)]


@irdl_op_definition
class AttentionSharedOp(_Attention):
    """`lane.attention_shared %q, %k_cache, %v_cache, %pos -> %out heads(16) kv_heads(8) splits(4)`: every head of
    a group in one block."""

    name = "lane.attention_shared"
    splits = count(1)
    assembly_format = signature(
        *_OPERANDS, param("heads"), param("kv_heads"), option("splits"), option("window"), option("seqs")
    )

    def scratch(self, numerics: Numerics) -> list[Scratch]:
        """Split: each chunk's maximum, sum and weighed values, folded by a second kernel (no counter)."""
        heads, splits = self.heads.value.data, self.splits.value.data
        if splits <= 1:
            return []
        hd = self.head_size()
        rows = self.length("q") // (heads * hd)
        return [buffer("ap", "f32", rows * heads * splits * (hd + 2) * 4)]


@irdl_op_definition
class AttentionI8x2Op(_Attention):
    """`lane.attention_i8x2 %q, %k_cache, %v_cache, %pos -> %out heads(16) kv_heads(8)`: attention over the cache
    in two words (int8x2 numerics only)."""

    name = "lane.attention_i8x2"
    assembly_format = signature(*_OPERANDS, param("heads"), param("kv_heads"), option("window"), option("seqs"))
    NUMERICS: ClassVar[tuple[Numerics, ...] | None] = (Numerics.INT8X2,)

    def scratch(self, numerics: Numerics) -> list[Scratch]:
        """Every key and value row of the caches (of every sequence's slot), its high and low words, and each row's
        two scales."""
        hd, rows = self.head_size(), self.seqs.value.data * self.cache_length()
        k, v, sc = kernel_shapes.attn_i8_scratch(rows, self.kv_heads.value.data, hd, hd)
        return [buffer("ak", "i8", k), buffer("aw", "i8", v), buffer("as", "f32", sc)]


ATTENTIONS: tuple[type[_Attention], ...] = (AttentionOp, AttentionSharedOp, AttentionI8x2Op)
"""The kinds a decoder's attention layers can take."""

OPS: tuple[type[KernelOp], ...] = (KvStoreOp, *ATTENTIONS)
