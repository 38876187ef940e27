"""The attention group fused: a step's q/k-norms (where the model norms them), its two ropes and its `lane.kv_store`
merged into the attention that follows them, as one `lane.rope_attention` (or `lane.norm_rope_attention`), where only
those launches read what they write: a decode row's or a prefill chunk's."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint

from lanearena.dialects.base import LaunchOp, TensorDef
from lanearena.dialects.kernel import KernelOp
from lanearena.dialects.kinds.attention import ATTENTIONS, AttentionI8x2Op, KvStoreOp
from lanearena.dialects.kinds.common import cdiv
from lanearena.dialects.kinds.fused_attention import CHUNK_GRAIN, NormRopeAttentionOp, RopeAttentionOp
from lanearena.dialects.kinds.rows import NormOp, RopeOp
from lanearena.dialects.lane import TensorOp, ViewOp
from lanearena.model import Form

FILL_BLOCKS = 128
"""The blocks a fused attention is given (chunks times kv heads times rows) where the positions can fill them: about
a block a multiprocessor of a large GPU (an H100's 132, an H200's 132); a chunk with no position exits at once."""


@dataclass(frozen=True)
class _Group:
    """An attention group as the decoder writes it: the norms (or none), the ropes of q and k, the cache append and
    the attention."""

    norms: tuple[NormOp, NormOp] | None
    ropes: tuple[RopeOp, RopeOp]
    store: KvStoreOp
    attention: KernelOp

    def launches(self) -> list[Operation]:
        return [*(self.norms or ()), *self.ropes, self.store, self.attention]


class FuseAttentionGroup(RewritePattern):
    """`[lane.norm q, lane.norm k,] lane.rope q, lane.rope k, lane.kv_store, lane.attention*`, one after the other,
    into one `lane.(norm_)rope_attention` where the attention's: the q and k they norm and turn are read by nothing
    else, the ropes turn alike, and the norms (both or neither) write plain rows of one eps."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: KvStoreOp, rewriter: PatternRewriter) -> None:
        group = _group(op)
        if group is None:
            return
        fused = _fused(group)
        rewriter.insert(fused, InsertPoint.before(group.attention))
        written = [r.operand("x") for r in group.ropes]
        for launch in reversed(group.launches()):
            rewriter.erase(launch)
        for value in written:  # the norms' outputs, now read by no launch
            owner = value.owner
            if isinstance(owner, TensorOp) and not value.uses:
                rewriter.erase(owner)


def _group(store: KvStoreOp) -> _Group | None:
    """The attention group around `store`, where it is one that fuses."""
    pos = store.operand("pos")
    attention = _next_launch(store)
    if not isinstance(attention, ATTENTIONS) or (
        attention.operand("k_cache"),
        attention.operand("v_cache"),
        attention.operand("pos"),
    ) != (store.operand("k_cache"), store.operand("v_cache"), pos):
        return None
    if attention.params["seqs"] != store.params["seqs"]:
        return None  # (a step the decoder builds never has them differ; the verifier's refusal is the attention's)
    q, k = attention.operand("q"), store.operand("k")
    before = _launches_before(store)
    rope_q, rope_k = _rope_of(before, q), _rope_of(before, k)
    if rope_q is None or rope_k is None or not _turn_alike(rope_q, rope_k, attention):
        return None
    if rope_q.operand("pos") != pos or rope_k.operand("pos") != pos:
        return None
    norm_q, norm_k = _norm_of(before, q), _norm_of(before, k)
    norms = None
    if norm_q is not None and norm_k is not None:
        hd = _length(q) // (_length(pos) * int(attention.params["heads"]))
        if norm_q.eps != norm_k.eps or any(
            n.written_forms("out") != (Form.PLAIN,) or _length(n.operand("gain")) != hd for n in (norm_q, norm_k)
        ):
            return None
        norms = (norm_q, norm_k)
    elif norm_q is not None or norm_k is not None:  # both normed or neither
        return None
    group = _Group(norms, (rope_q, rope_k), store, attention)
    inside = set(group.launches())
    if not all(op in inside for op in before[: max(before.index(op) for op in inside if op in before) + 1]):
        return None  # another norm or rope among the group's: the fused launch would move past it
    if not _read_only_inside(group, [q, k]):
        return None
    return group


def _fused(group: _Group) -> KernelOp:
    """The one launch that does what `group`'s do."""
    attention, (rope_q, rope_k), store = group.attention, group.ropes, group.store
    heads, kv_heads = attention.params["heads"], attention.params["kv_heads"]
    window, seqs = int(attention.params["window"]), int(store.params["seqs"])
    length = _positions(store.operand("k_cache"), seqs)
    seen = min(window, length) if window else length
    rows = _length(store.operand("pos"))
    splits = min(cdiv(seen, CHUNK_GRAIN), cdiv(FILL_BLOCKS, int(kv_heads) * rows))
    params: dict[str, int | float | str] = {
        "heads": heads,
        "kv_heads": kv_heads,
        "splits": splits,
        **{n: v for n, v in rope_q.params.items() if n != "heads"},
    }
    if window:
        params["window"] = window
    if seqs > 1:
        params["seqs"] = seqs
    if isinstance(attention, AttentionI8x2Op):
        params["two_words"] = 1
    plain = Form.PLAIN
    if group.norms is None:
        ins = [rope_q.operand("x"), rope_k.operand("x")]
        kind: type[KernelOp] = RopeAttentionOp
    else:
        norm_q, norm_k = group.norms
        ins = [norm_q.operand("x"), norm_k.operand("x")]
        kind = NormRopeAttentionOp
        params["eps"] = norm_q.params["eps"]
    ins += [store.operand("v"), store.operand("pos")]
    if group.norms is not None:
        ins += [n.operand("gain") for n in group.norms]
    caches = [(store.operand(c), (plain,)) for c in ("k_cache", "v_cache")]
    return kind.make([(v, plain) for v in ins], [*caches, (attention.operand("out"), (plain,))], params)


def _turn_alike(rope_q: RopeOp, rope_k: RopeOp, attention: KernelOp) -> bool:
    """Whether the ropes turn q's heads and k's kv heads, as the attention counts them, by one rotation."""
    q, k = dict(rope_q.params), dict(rope_k.params)
    return q.pop("heads") == attention.params["heads"] and k.pop("heads") == attention.params["kv_heads"] and q == k


def _read_only_inside(group: _Group, rewritten: Sequence[SSAValue]) -> bool:
    """Whether every launch that touches the tensors the group norms and turns (q and k, through any view of them,
    and the tensors they view) is one of the group's, or runs before it; and nothing else (an output) names them."""
    inside = set(group.launches())
    first = group.launches()[0]
    for value in _aliases(rewritten):
        for use in value.uses:
            user = use.operation
            if user in inside or isinstance(user, ViewOp):
                continue
            if isinstance(user, LaunchOp) and user.is_before_in_block(first):
                continue
            return False
    return True


def _aliases(values: Sequence[SSAValue]) -> set[SSAValue]:
    """`values`, the tensors they view, and every view of any of those."""
    roots = []
    for value in values:
        while isinstance(value.owner, ViewOp):
            value = value.owner.source
        roots.append(value)
    out: set[SSAValue] = set()
    todo = list(roots)
    while todo:
        value = todo.pop()
        if value in out:
            continue
        out.add(value)
        todo += [u.operation.result for u in value.uses if isinstance(u.operation, ViewOp)]
    return out


def _next_launch(op: Operation) -> Operation | None:
    """The first launch after `op` (tensor definitions between skipped)."""
    nxt = op.next_op
    while isinstance(nxt, TensorDef):
        nxt = nxt.next_op
    return nxt if isinstance(nxt, LaunchOp) else None


def _launches_before(op: Operation) -> list[Operation]:
    """The launches just before `op`, nearest first, back to the first that is no norm or rope."""
    out: list[Operation] = []
    prev = op.prev_op
    while isinstance(prev, (TensorDef, NormOp, RopeOp)):
        if not isinstance(prev, TensorDef):
            out.append(prev)
        prev = prev.prev_op
    return out


def _norm_of(launches: Sequence[Operation], value: SSAValue) -> NormOp | None:
    """The norm among `launches` that writes `value`."""
    return next((op for op in launches if isinstance(op, NormOp) and op.operand("out") == value), None)


def _rope_of(launches: Sequence[Operation], value: SSAValue) -> RopeOp | None:
    """The rope among `launches` that turns `value`."""
    return next((op for op in launches if isinstance(op, RopeOp) and op.operand("x") == value), None)


def _length(value: SSAValue) -> int:
    return value.type.length  # type: ignore[attr-defined]  # a lane tensor


def _positions(cache: SSAValue, seqs: int) -> int:
    """The positions a sequence's slot of `cache` holds: its rows, or with several sequences (slot-major) its second
    dim's."""
    return cache.type.dims[1 if seqs > 1 else 0]  # type: ignore[attr-defined]  # a lane tensor


ATTENTION_PATTERNS: list[RewritePattern] = [FuseAttentionGroup()]
"""The attention group's fusion, for `lane-fuse`."""
