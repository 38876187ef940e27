"""What the launch kinds' classes share: the records of the scratch they ask for, and counting in blocks."""

from __future__ import annotations

from lanearena.dialects.kernel import KernelOp
from lanearena.model import QBLOCK, Form, Numerics, Scratch


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


def buffer(tag: str, elem: str, nbytes: int) -> Scratch:
    """Scratch `tag` of `nbytes` bytes of `elem` values, in the arena while its launch runs."""
    return Scratch(tag, elem, nbytes)


def counter(tag: str, nbytes: int) -> Scratch:
    """Arrival counts `tag` (i32): zero before the launch and left zero, in a zeroed buffer of their own."""
    return Scratch(tag, "i32", nbytes, counter=True)


def quantized(tags: tuple[str, str, str], n: int, numerics: Numerics) -> list[Scratch]:
    """A quantized activation of `n` values: its words, its low words under two words, its scales."""
    q, lo, sc = tags
    v = [buffer(q, "i8", n)]
    if numerics.two_words:
        v.append(buffer(lo, "i8", n))
    v.append(buffer(sc, "f32", n // QBLOCK * 4))
    return v


def works_in_blocks(op: KernelOp) -> bool:
    """Whether a product reads a quantized activation or a Q8_0 weight, and so works in blocks of `QBLOCK`."""
    return any(f is Form.QUANT for _, f in op.reads()) or any(
        op.tensor(n).result.type.elem == "i8" for n in op.operand_names()
    )


def sequence_rows(op: KernelOp, rows: int) -> int:
    """The rows each of `op`'s `seqs` sequences has of its `rows` (row r is sequence r // (rows / seqs)'s): a
    refusal where `seqs` does not divide them."""
    seqs = op.params["seqs"]
    assert isinstance(seqs, int)  # a count
    if rows % seqs:
        raise op.fail(f"seqs {seqs} do not divide the {rows} rows (positions) into sequences' rows")
    return rows // seqs


def slot_dims(op: KernelOp, name: str) -> tuple[int, ...]:
    """The dims of one sequence's slot of state operand `name`: the whole of it for one sequence; for `seqs` of them
    its dims after the first, which counts them (slot-major: a sequence's state is one contiguous region, laid out as
    the one-sequence step's)."""
    dims, seqs = op.dims(name), op.params["seqs"]
    if seqs == 1:
        return dims
    if len(dims) < 2 or dims[0] != seqs:
        raise op.fail(
            f"state '{op.tensor(name).tensor_name}' {dims} is not [{seqs} sequences, ...]: a slot a sequence, "
            "slot-major"
        )
    return dims[1:]
