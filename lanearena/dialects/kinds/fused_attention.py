"""Attention with what feeds it in one launch (the `lane-fuse` pass makes them): the new rows' q and k turned (and,
for Qwen3's qk_norm, normed first), their k and v appended to the caches, and attention over the positions seen,
split in chunks sized at run time from `pos`."""

from __future__ import annotations

from typing import ClassVar

from xdsl.irdl import irdl_op_definition, operand_def, prop_def

from lanearena.dialects.attrs import ScalingAttr, ScalingKind, TensorType
from lanearena.dialects.base import step_numerics
from lanearena.dialects.kernel import KernelOp, arg, count, flag, option, param, real, signature
from lanearena.dialects.kinds.common import buffer, cdiv, counter, sequence_rows, slot_dims
from lanearena.dialects.kinds.rows import check_length, check_scaling
from lanearena.model import Numerics, Scratch

CHUNK_GRAIN = 16
"""A chunk of the positions seen is a whole number of these: the kernel's block of eight warps takes two positions
a warp at a time."""


def chunk_size(seen: int, splits: int) -> int:
    """The positions each of `splits` chunks takes of the `seen` positions a row sees (decided at run time from the
    row's position): an even share rounded up to `CHUNK_GRAIN`, so a few positions take one chunk and the chunks past
    them see none."""
    return cdiv(cdiv(seen, splits), CHUNK_GRAIN) * CHUNK_GRAIN


_ROPE = ("theta", "rotary", "scaling", "factor", "low_freq", "high_freq", "original")
"""The rotation's parameters, as `lane.rope` names them."""


class _RopeAttention(KernelOp):
    """What both fused kinds share (each names its operands, in its order): rows of q, k and v at positions `pos`
    (a decode step's one row, a prefill chunk's more); q's `heads` heads and k's `kv_heads` turned as `lane.rope`
    turns them, k and v written at `pos` into the caches (kept in two words, a scale a kv head, where `two_words`:
    the cache `lane.attention_i8x2` reads), and each q head attending over the positions its row sees
    (`lane.attention`'s, the new rows' included), in at most `splits` chunks. With `seqs` sequences the caches are
    [seqs, length, ...], a slot a sequence, and row r is its sequence's, r // (rows / seqs): written into and
    attending over that slot, a dynamic rotation grown by its sequence's last position."""

    heads = count()
    kv_heads = count()
    window = count(0)
    splits = count(1)
    two_words = flag()
    theta = real(1e6)
    rotary = count(0)
    scaling = prop_def(ScalingAttr, default_value=ScalingAttr(ScalingKind.DEFAULT))
    factor = real(1.0)
    low_freq = real(1.0)
    high_freq = real(4.0)
    original = count(0)
    seqs = count(1)
    WRITES: ClassVar = ("k_cache", "v_cache", "out")
    UPDATES: ClassVar = ("k_cache", "v_cache")
    INTS: ClassVar = ("pos",)

    PARAMS: ClassVar = (
        param("heads"),
        param("kv_heads"),
        option("window"),
        option("splits"),
        "(`two_words` $two_words^)?",
        *(option(n) for n in _ROPE),
        option("seqs"),
    )

    def verify_(self) -> None:
        super().verify_()
        if self.two_words is not None and step_numerics(self) not in (None, Numerics.INT8X2):
            raise self.fail("a cache in two words is int8x2 numerics' only")
        heads, kv = self.heads.value.data, self.kv_heads.value.data
        if heads % kv:
            raise self.fail(f"kv_heads {kv} do not divide heads {heads}")
        n, rows = self.length("q"), self.length("pos")
        if n % (rows * heads) or (n // (rows * heads)) % 2:
            raise self.fail(
                f"q '{self.tensor('q').tensor_name}' of {n} values is not {rows} rows (positions) of {heads} heads of "
                "an even size"
            )
        hd = n // (rows * heads)
        sequence_rows(self, rows)
        for new in ("k", "v"):
            check_length(self, new, rows * kv * hd, f"{rows} rows of {kv} kv heads of {hd}")
        kc, vc = slot_dims(self, "k_cache"), slot_dims(self, "v_cache")
        if vc != kc or self.length("k_cache") != self.seqs.value.data * kc[0] * kv * hd:
            raise self.fail(
                f"caches '{self.tensor('k_cache').tensor_name}' {kc} and '{self.tensor('v_cache').tensor_name}' {vc} "
                f"are not [length, {kv} kv heads of {hd}] both"
            )
        check_length(self, "out", n, f"the {n} values of q")
        rotary = self.rotary.value.data
        if rotary % 2 or rotary > hd:
            raise self.fail(f"rotary {rotary} is not an even count of at most a head's {hd} values")
        check_scaling(self, rotary or hd)

    def head_size(self) -> int:
        return self.length("q") // (self.length("pos") * self.heads.value.data)

    def scratch(self, numerics: Numerics) -> list[Scratch]:
        """More than one row a sequence: their q heads made (normed, turned) before they attend. Split: each row's
        chunks' maximum, sum and weighed values for each head, and each row's kv group's count of chunks arrived
        (its last block folds them)."""
        heads, splits, rows = self.heads.value.data, self.splits.value.data, self.length("pos")
        made = [buffer("aq", "f32", self.length("q") * 4)] if rows > self.seqs.value.data else []
        if splits <= 1:
            return made
        return [
            *made,
            buffer("ap", "f32", rows * heads * splits * (self.head_size() + 2) * 4),
            counter("ac", rows * self.kv_heads.value.data * 4),
        ]


_INS = [arg("q"), arg("k"), arg("v"), arg("pos")]
_OUTS = [arg("k_cache"), arg("v_cache"), arg("out")]


@irdl_op_definition
class RopeAttentionOp(_RopeAttention):
    """`lane.rope_attention %q, %k, %v, %pos -> %k_cache, %v_cache, %out heads(32) kv_heads(8) splits(16)`: q and
    k turned, k and v appended to the caches at `pos`, and attention over the positions seen, in one launch (a
    `lane.rope` of each, a `lane.kv_store` and an attention fused); its chunks sized from `pos` at run time."""

    name = "lane.rope_attention"
    q = operand_def(TensorType)
    k = operand_def(TensorType)
    v = operand_def(TensorType)
    pos = operand_def(TensorType)
    k_cache = operand_def(TensorType)
    v_cache = operand_def(TensorType)
    out = operand_def(TensorType)
    assembly_format = signature(_INS, _OUTS, *_RopeAttention.PARAMS)


@irdl_op_definition
class NormRopeAttentionOp(_RopeAttention):
    """`lane.norm_rope_attention %q, %k, %v, %pos, %q_gain, %k_gain -> %k_cache, %v_cache, %out heads(16)
    kv_heads(8)`: rope_attention with each q and k head RMS-normed first, times `q_gain` or `k_gain` (Qwen3's
    qk_norm: the two `lane.norm`s fused too)."""

    name = "lane.norm_rope_attention"
    q = operand_def(TensorType)
    k = operand_def(TensorType)
    v = operand_def(TensorType)
    pos = operand_def(TensorType)
    q_gain = operand_def(TensorType)
    k_gain = operand_def(TensorType)
    k_cache = operand_def(TensorType)
    v_cache = operand_def(TensorType)
    out = operand_def(TensorType)
    eps = real(1e-6)
    WEIGHTS: ClassVar = ("q_gain", "k_gain")
    F32_WEIGHTS: ClassVar = ("q_gain", "k_gain")
    assembly_format = signature([*_INS, arg("q_gain"), arg("k_gain")], _OUTS, *_RopeAttention.PARAMS, option("eps"))

    def verify_(self) -> None:
        super().verify_()
        hd = self.head_size()
        for gain in ("q_gain", "k_gain"):
            check_length(self, gain, hd, f"heads of {hd}")


OPS: tuple[type[KernelOp], ...] = (RopeAttentionOp, NormRopeAttentionOp)
