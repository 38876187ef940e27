"""Which placement and lowering rules a drawn step exercises, measured apart from the package: from the step's plain
data and the seed's port (`seed_reference`), never from `lanearena.analysis`. `test_reach.py` holds the generators
to floors on the share of drawn steps that exercise each rule."""

from __future__ import annotations

from collections.abc import Iterator

from . import seed_reference as seed
from .seed_reference import QBLOCK, value


def _touches(s) -> Iterator[tuple[int, str, bool, str, object]]:
    """(launch, tensor, quant, "read" or "write", the write) for every touch of the step."""
    for i, la in enumerate(s.launches):
        for r in la.reads:
            yield i, r.tensor, value(r.form) == "quant", "read", None
        for w in la.writes:
            yield i, w.tensor, value(w.form) == "quant", "write", w


def _views(s, name: str) -> list:
    """The views from `name` down to (not including) the tensor at the bottom."""
    out, t = [], s.tensors[name]
    while t.view_of is not None:
        out.append(t)
        t = s.tensors[t.view_of]
    return out


def _parts(s) -> dict:
    """{(tensor, quant, pitch): [(launch, start, end)]} for every part written of a tensor's own array."""
    out: dict = {}
    for i, tensor, quant, kind, w in _touches(s):
        if kind == "write" and seed.how(w)[0] == "part":
            _, pitch, start, width = seed.how(w)
            out.setdefault((tensor, quant, pitch), []).append((i, start, start + width))
    return out


def _gaps(spans: list[tuple[int, int, int]], pitch: int) -> list[int]:
    """The lengths of the holes the parts leave in a unit of `pitch`."""
    holes, reach = [], 0
    for _, start, end in sorted(spans, key=lambda p: p[1:]):
        if start > reach:
            holes.append(start - reach)
        reach = max(reach, end)
    return holes + ([pitch - reach] if reach < pitch else [])


def placement_rules(s) -> set[str]:
    """The placement rules a step (of generic or kernel launches) exercises."""
    rules = set()
    touches = list(_touches(s))
    for _, tensor, quant, _, _ in touches:
        views = _views(s, tensor)
        if views:
            rules.add("a view touched")
        if len(views) > 1:
            rules.add("a view of a view touched")
        if quant and views:
            at = seed.home(s, tensor, True)
            rules.add("a quantized view in place" if at != tensor else "a quantized view of its own array")
            if views[0].view_offset % QBLOCK == QBLOCK // 2:
                rules.add("a quantized view half a block off")
    placed = seed.placed_arrays(s)
    for (name, quant), (first, last) in placed.items():
        at_last = [(t, kind) for i, t, q, kind, _ in touches if i == last and q == quant and seed.home(s, t, q) == name]
        if first < last and all(t != name for t, _ in at_last) and any(k == "read" for _, k in at_last):
            rules.add("a read through a view ends a placed array's life")
    for (name, _), (*_, written) in seed.lives(s).items():
        t = s.tensors[name]
        if value(t.role) != "computed" or t.view_of is not None:
            continue
        if name in s.outputs:
            rules.add("an output touched")
        elif written == seed.UNSAFE:
            rules.add("an array kept for being unsafe")
    for (name, quant, pitch), spans in _parts(s).items():
        if len({i for i, *_ in spans}) < 2:
            continue
        gaps = _gaps(spans, pitch)
        if quant:
            if not gaps:
                rules.add("parts that cover a quantized array")
            continue
        if not gaps and (name, False) in placed:
            rules.add("parts that join placed")
        if gaps:
            rules.add("parts that leave a gap")
        if 1 in gaps:
            rules.add("parts that leave a one-element gap")
    if any(value(t.role) == "input" for t in s.tensors.values()):
        rules.add("an input")
    for la in s.launches:
        for sc in la.scratch:
            rules.add("a counter" if sc.counter else "scratch")
    rules.add(f"numerics {value(s.numerics)}")
    return rules


def lowering_rules(s) -> set[str]:
    """The rules a lowered step exercises: its kinds, its views as the emitted code must address them, its parts."""
    rules = placement_rules(s)
    rules |= {f"kind {la.kind}" for la in s.launches}
    for la in s.launches:  # the parameters that change what a kind computes
        if la.params.get("scaling", "default") != "default":
            rules |= {"a rope scaled", f"a rope scaled {la.params['scaling']}"}
        if la.params.get("window", 0):
            rules.add("an attention over a sliding window")
        if la.params.get("gates") == "all":
            rules.add("a mixture's gates over all experts")
    for _, tensor, quant, _, _ in _touches(s):
        views = _views(s, tensor)
        at = sum(v.view_offset for v in views)
        if quant and views and seed.home(s, tensor, True) != tensor and at > 0:
            rules.add("a quantized view in place at a block past the first")
        if len(views) > 1 and views[0].view_offset and views[1].view_offset:
            rules.add("a view of a view, both at an offset")
    return rules
