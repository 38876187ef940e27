"""The tests' own check of a function placed by `memref-arena-place`, apart from the package's analysis: each view of
the arena is a buffer, live from the first to the last op of the function's body that uses it (through any op that
takes it and gives a memref, so aliases count; the view itself and deallocs do not), its bytes those of the view's
type (an element of `iN` takes N bits rounded up to bytes, `index` 8). Two buffers whose op ranges meet must not
share a byte; every offset is a multiple of the alignment and every buffer lies inside the arena.

It holds for functions whose allocations all sit in the function's body (as bufferization leaves them): a buffer
inside a loop would be counted live over the whole loop."""

from __future__ import annotations

from math import prod

from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import IndexType, IntegerAttr, MemRefType
from xdsl.ir import Operation, SSAValue

ARENA = "lanearena.bytes"


def _bytes(kind: MemRefType) -> int:
    element = kind.get_element_type()
    width = 64 if isinstance(element, IndexType) else element.bitwidth  # type: ignore[attr-defined]
    return prod(kind.get_shape()) * -(-width // 8)


def _top(op: Operation, body: list[Operation]) -> Operation:
    while op not in body:
        parent = op.parent_op()
        assert parent is not None
        op = parent
    return op


def placed_buffers(function: func.FuncOp) -> tuple[int, list[tuple[int, int, int, int]]]:
    """The arena's bytes and, for each view of it, `(first, last, offset, bytes)`: the positions in the body of
    its first and last use, and its bytes in the arena."""
    body = list(function.body.block.ops)
    position = {op: i for i, op in enumerate(body)}
    arenas = [op for op in body if isinstance(op, memref.AllocOp) and ARENA in op.attributes]
    if not arenas:
        return 0, []
    (arena,) = arenas
    found = []
    for view in function.walk():
        if not (isinstance(view, memref.ViewOp) and view.source is arena.memref):
            continue
        shift = view.byte_shift.owner
        assert isinstance(shift, arith.ConstantOp) and isinstance(shift.value, IntegerAttr)
        kind = view.result.type
        assert isinstance(kind, MemRefType)
        used: list[int] = []
        values: list[SSAValue] = [view.result]
        while values:
            for use in values.pop().uses:
                user = use.operation
                if isinstance(user, memref.DeallocOp):
                    continue
                used.append(position[_top(user, body)])
                values += [r for r in user.results if isinstance(r.type, MemRefType)]
        if used:
            found.append((min(used), max(used), shift.value.value.data, _bytes(kind)))
    bytes_ = arena.attributes[ARENA]
    assert isinstance(bytes_, IntegerAttr)
    return bytes_.value.data, found


def faults(function: func.FuncOp, align: int) -> list[str]:
    """What is wrong with `function`'s placement: two buffers live together sharing a byte, an offset not a multiple
    of `align`, a buffer past the arena's end."""
    height, buffers = placed_buffers(function)
    found = []
    for i, (f1, l1, o1, n1) in enumerate(buffers):
        if o1 % align:
            found.append(f"offset {o1} is not a multiple of {align}")
        if o1 < 0 or o1 + n1 > height:
            found.append(f"bytes [{o1}, {o1 + n1}) lie outside the arena of {height}")
        for f2, l2, o2, n2 in buffers[i + 1 :]:
            if f1 <= l2 and f2 <= l1 and o1 < o2 + n2 and o2 < o1 + n1:
                found.append(f"ops {f1}-{l1} at [{o1}, {o1 + n1}) and ops {f2}-{l2} at [{o2}, {o2 + n2}) share bytes")
    return found
