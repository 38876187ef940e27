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
