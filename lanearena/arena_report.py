"""What a placed step's report shows: the rectangles of its arena picture (launches along x, arena bytes along y),
the bytes live at each launch and where they peak, the largest items, the buffers kept outside, as a text table
and, with matplotlib (the `plot` extra, imported only by `picture`), as an SVG or PNG."""

from __future__ import annotations

import io
from collections import Counter
from dataclasses import dataclass

from lanearena.analysis.plan import ArenaPlan
from lanearena.model import Step

HOLDS = ("plain", "quant", "scratch")
"""What a rectangle holds: a tensor's f32/i32 array, its quantized array, or a launch's scratch."""

FORMATS = ("svg", "png")
"""The picture formats `picture` writes."""

LARGEST = 10
"""Items the table lists."""

CROWDED = 150
"""Above this many rectangles, edges get thin and only the `FEW` largest that fit get a label."""

FEW = 8

STYLE = {
    "plain": ("#9dc3e6", "#2e75b6", "array (f32/i32)"),
    "quant": ("#f8cbad", "#c55a11", "quantized array (int8 + scales)"),
    "scratch": ("#c5e0b4", "#548235", "launch scratch"),
}
"""Each kind's fill, edge and legend entry."""

LIVE, BOUND, ARENA = "#595959", "#c00000", "black"
"""The colours of the bytes live, the lower bound and the arena's size."""


@dataclass(frozen=True)
class Rect:
    """One placed item as the picture draws it: launches `[start, stop)`, arena bytes `[offset, offset+bytes)`.
    `name` is the tensor's (or the scratch's tag); `launch` is a scratch's launch."""

    name: str
    kind: str
    start: int
    stop: int
    offset: int
    bytes: int
    launch: int | None = None

    @property
    def key(self) -> str:
        """A name unique in the step: `kind:tensor`, or `scratch:launch:tag`."""
        if self.launch is None:
            return f"{self.kind}:{self.name}"
        return f"scratch:{self.launch}:{self.name}"

    @property
    def area(self) -> int:
        return self.bytes * (self.stop - self.start)

    def label(self, step: Step) -> str:
        """The text drawn on it: the tensor's name (`name (quant)` for the quantized array), or the scratch's tag
        and launch."""
        if self.launch is None:
            return self.name if self.kind == "plain" else f"{self.name} ({self.kind})"
        return f"{self.name} (#{self.launch} {launch_kind(step, self.launch)})"

    def live(self) -> str:
        """Its launches, first to last inclusive."""
        last = self.stop - 1
        return str(last) if last == self.start else f"{self.start}-{last}"


@dataclass(frozen=True)
class Peak:
    """The launch where the most arena bytes are live: its index, kind, the bytes and the items live there."""

    launch: int
    kind: str
    bytes: int
    items: int


def launch_kind(step: Step, index: int) -> str:
    """Launch `index`'s kind, or `?` where the plan names a launch the step lacks."""
    return step.launches[index].kind if 0 <= index < len(step.launches) else "?"


def rects(plan: ArenaPlan) -> list[Rect]:
    """Every placed array and scratch of `plan` as a rectangle, arrays first, in the plan's order."""
    out = [Rect(a.tensor, a.form.value, a.first, a.last + 1, a.offset, a.bytes) for a in plan.arrays]
    out += [Rect(s.tag, "scratch", s.launch, s.launch + 1, s.offset, s.bytes, s.launch) for s in plan.scratch]
    return out


def launches(step: Step, plan: ArenaPlan) -> int:
    """The launches the picture spans: the step's, or more where the plan names later ones."""
    return max([len(step.launches)] + [r.stop for r in rects(plan)])


def live_bytes(step: Step, plan: ArenaPlan) -> list[int]:
    """The arena bytes live at each launch: every item whose life holds it."""
    change = [0] * (launches(step, plan) + 1)
    for r in rects(plan):
        change[r.start] += r.bytes
        change[r.stop] -= r.bytes
    out, live = [], 0
    for delta in change[:-1]:
        live += delta
        out.append(live)
    return out


def peak(step: Step, plan: ArenaPlan) -> Peak | None:
    """The launch with the most arena bytes live (the earliest among equals); None where nothing is placed."""
    live = live_bytes(step, plan)
    if not any(live):
        return None
    at = live.index(max(live))
    items = sum(1 for r in rects(plan) if r.start <= at < r.stop)
    return Peak(at, launch_kind(step, at), live[at], items)


def largest(plan: ArenaPlan, n: int = LARGEST, window: range | None = None) -> list[Rect]:
    """The `n` largest placed items by bytes (ties: earlier first launch, then name), of those live at some launch
    of `window` where it is given."""
    items = [r for r in rects(plan) if window is None or (r.start < window.stop and window.start < r.stop)]
    return sorted(items, key=lambda r: (-r.bytes, r.start, r.key))[:n]


def window_of(step: Step, start: int | None, stop: int | None) -> range:
    """Launches `start` to `stop - 1` of `step`, as a Python slice's bounds (either left out: from the first, to the
    last); a ValueError that says why where that is no launch of the step or runs past its last."""
    n = len(step.launches)
    first = 0 if start is None else start
    end = n if stop is None else stop
    if first >= end:
        raise ValueError(f"{first}:{end} holds no launch (the range is A:B, launches A to B-1)")
    if end > n:
        raise ValueError(f"{first}:{end} runs past the last launch: @{step.name} has {n} (0 to {n - 1})")
    return range(first, end)


def span(window: range) -> str:
    """A window of launches as the table writes lives: `first-last`, or one index."""
    return str(window.start) if len(window) == 1 else f"{window.start}-{window.stop - 1}"


def launch_rows(step: Step, plan: ArenaPlan, window: range) -> list[str]:
    """A line for each launch of `window`: its index and kind, the arena bytes live while it runs, how many items
    they are, and the items whose life starts at it."""
    live = live_bytes(step, plan)
    placed = rects(plan)
    kinds = [launch_kind(step, i) for i in window]
    width = max(4, *map(len, kinds))
    lines = [
        f"  launches {span(window)}",
        f"  {'launch':>6}  {'kind':<{width}}  {'live bytes':>12}  {'':>10}  {'items':>5}  starting here",
    ]
    for i, kind in zip(window, kinds, strict=True):
        items = sum(1 for r in placed if r.start <= i < r.stop)
        starting = ", ".join(r.label(step) for r in placed if r.start == i)
        lines.append(f"  {i:>6}  {kind:<{width}}  {live[i]:>12,}  {size(live[i]):>10}  {items:>5}  {starting}".rstrip())
    return lines


def no_reuse_bytes(plan: ArenaPlan) -> int:
    """The arena a placement without sharing would need: every placed item's bytes."""
    return sum(r.bytes for r in rects(plan))


def ratio(plan: ArenaPlan) -> float | None:
    """The arena's size over its lower bound; None without a bound."""
    return plan.bytes / plan.lower_bound if plan.lower_bound else None


def own_by_reason(plan: ArenaPlan) -> dict[str, tuple[int, int]]:
    """The arrays kept in buffers of their own, by reason: how many and their bytes, the most common first."""
    counts = Counter(o.reason for o in plan.own)
    nbytes: Counter[str] = Counter()
    for o in plan.own:
        nbytes[o.reason] += o.bytes
    return {reason: (count, nbytes[reason]) for reason, count in counts.most_common()}


def size(n: float) -> str:
    """`n` bytes in the largest binary unit that keeps it at least 1 (B, KiB, MiB, GiB)."""
    scale, unit = unit_of(n)
    return f"{int(n)} B" if scale == 1 else f"{n / scale:.2f} {unit}"


def unit_of(n: float) -> tuple[int, str]:
    """The largest binary unit (its bytes and name) that keeps `n` bytes at least 1."""
    for scale, unit in ((1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")):
        if n >= scale:
            return scale, unit
    return 1, "B"


def table(step: Step, plan: ArenaPlan, window: range | None = None) -> str:
    """The report of a placed step as text: the arena against its bounds, the peak launch, the largest items and
    the buffers kept outside; with a `window` of launches (`window_of`), the largest items live in it and a line
    for each of its launches."""
    r = ratio(plan)
    placed = rects(plan)
    top = peak(step, plan)
    lines = [
        f"@{step.name}: {len(step.launches)} launches, {len(plan.arrays)} arrays and {len(plan.scratch)} scratch "
        f"placed by {plan.algorithm}",
        _row("arena", plan.bytes, "" if r is None else f"ratio {r:.3f} to the lower bound"),
        _row("lower bound", plan.lower_bound),
        _row("no reuse", no_reuse_bytes(plan), f"sum of the {len(placed)} placed items"),
    ]
    if top is not None:
        lines.append(
            f"  {'peak':<12}launch {top.launch} ({top.kind}): {top.bytes:,} B ({size(top.bytes)}) live "
            f"in {top.items} items"
        )
    own = own_by_reason(plan)
    if own:
        lines.append(
            f"  {'own buffers':<12}{len(plan.own)}: "
            + ", ".join(f"{reason} {count} ({size(b)})" for reason, (count, b) in own.items())
        )
    if plan.counters:
        lines.append(
            f"  {'counters':<12}{len(plan.counters)} ({size(sum(c.bytes for c in plan.counters))}), each "
            f"outside the arena (the lowering packs them in one zeroed allocation)"
        )
    items = largest(plan, window=window)
    if items:
        names = [x.label(step) if x.kind == "scratch" else x.name for x in items]
        width = max(4, *map(len, names))
        title = "largest placed items" + ("" if window is None else f" live in launches {span(window)}")
        lines += ["", f"  {title}", f"  {'name':<{width}}  {'form':<7}  {'bytes':>12}  {'':>10}  live"]
        for name, x in zip(names, items, strict=True):
            lines.append(f"  {name:<{width}}  {x.kind:<7}  {x.bytes:>12,}  {size(x.bytes):>10}  {x.live()}")
    if window is not None:
        lines += ["", *launch_rows(step, plan, window)]
    return "\n".join(lines) + "\n"


def _row(title: str, nbytes: int, note: str = "") -> str:
    return f"  {title:<12}{nbytes:>12,} B  {size(nbytes):>10}" + (f"  {note}" if note else "")


def to_label(plan: ArenaPlan) -> tuple[list[Rect], int]:
    """The rectangles to try labels on, largest area first, and how many labels to draw at most: all of a small
    step's, the `FEW` largest that fit in a crowded one."""
    placed = sorted(rects(plan), key=lambda r: (-r.area, r.start, r.key))
    return placed, len(placed) if len(placed) <= CROWDED else FEW


def picture(step: Step, plan: ArenaPlan, fmt: str) -> bytes:
    """The arena picture of a placed step as an `fmt` (svg or png) file. Above: a rectangle per placed item,
    coloured by kind, from its first launch to past its last and over its bytes, labelled where the name fits, with
    lines at the lower bound and at the arena's size. Below: the bytes live at each launch and their peak. In SVG
    each rectangle is the group with id `item:` and its `key`. Needs matplotlib (the `plot` extra); raises
    ImportError without it."""
    import matplotlib
    from matplotlib.artist import Artist
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch, Rectangle
    from matplotlib.ticker import MaxNLocator

    if fmt not in FORMATS:
        raise ValueError(f"picture format must be one of {', '.join(FORMATS)}, not '{fmt}'")
    n = launches(step, plan)
    placed = rects(plan)
    crowded = len(placed) > CROWDED
    top = max(plan.bytes, plan.lower_bound, 1)
    scale, unit = unit_of(top)
    nice = {"steps": [1, 2, 2.5, 5, 10]}

    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "lanearena", "font.size": 9}):
        fig = Figure(figsize=(min(20.0, max(10.0, 6 + 0.025 * n)), 9.0), dpi=110, layout="constrained")
        canvas = FigureCanvasAgg(fig)
        ax, low = fig.subplots(2, 1, sharex=True, height_ratios=[4, 1])
        edge = 0.2 if crowded else 0.6
        for r in placed:
            fill, line, _ = STYLE[r.kind]
            ax.add_patch(
                Rectangle(
                    (r.start, r.offset / scale),
                    r.stop - r.start,
                    r.bytes / scale,
                    facecolor=fill,
                    edgecolor=line,
                    linewidth=edge,
                    gid=f"item:{r.key}",
                )
            )
        for axis in (ax, low):
            axis.axhline(plan.bytes / scale, color=ARENA, linewidth=1.2)
            axis.axhline(plan.lower_bound / scale, color=BOUND, linestyle=(0, (6, 3)), linewidth=1.2)
            axis.set_ylim(0, top / scale * 1.04)
            axis.grid(axis="y", color="#e0e0e0", linewidth=0.5)
            axis.set_axisbelow(True)
        ax.set_ylabel(f"arena offset ({unit})")
        ax.yaxis.set_major_locator(MaxNLocator(nbins=12, **nice))

        live = live_bytes(step, plan)
        low.stairs([b / scale for b in live], range(n + 1), color=LIVE, fill=True, alpha=0.35, linewidth=0)
        low.stairs([b / scale for b in live], range(n + 1), color=LIVE, linewidth=0.8, baseline=None)
        low.set_ylabel(f"live ({unit})")
        low.yaxis.set_major_locator(MaxNLocator(nbins=3, **nice))
        most = peak(step, plan)
        if most is not None:
            low.annotate(
                f"peak: launch {most.launch} ({most.kind}), {size(most.bytes)}",
                (most.launch + 0.5, most.bytes / scale),
                xytext=(6, -4),
                textcoords="offset points",
                ha="left" if most.launch < n / 2 else "right",
                va="top",
                fontsize=8,
                bbox={"boxstyle": "square,pad=0.2", "facecolor": "white", "edgecolor": "none", "alpha": 0.8},
                arrowprops={"arrowstyle": "-", "color": LIVE, "linewidth": 0.6},
            )
        low.set_xlim(0, max(n, 1))
        if n <= 64:
            low.set_xticks(
                [i + 0.5 for i in range(n)], [f"{i} {launch_kind(step, i)}" for i in range(n)], rotation=90, fontsize=7
            )
            low.set_xlabel("launch (index and kind)")
        else:
            low.xaxis.set_major_locator(MaxNLocator(nbins=24, integer=True))
            low.set_xlabel("launch (index in the step)")

        to_bound = ratio(plan)
        ax.set_title(
            f"@{step.name}: arena {size(plan.bytes)} ({plan.bytes:,} B), lower bound {size(plan.lower_bound)}"
            + (f", ratio {to_bound:.3f}" if to_bound is not None else "")
            + f", algorithm {plan.algorithm}\n"
            f"{len(plan.arrays)} arrays and {len(plan.scratch)} scratch over {n} launches; "
            f"{size(no_reuse_bytes(plan))} without reuse",
            fontsize=11,
        )
        kinds = [k for k in HOLDS if any(x.kind == k for x in placed)]
        handles: list[Artist] = [Patch(facecolor=STYLE[k][0], edgecolor=STYLE[k][1], label=STYLE[k][2]) for k in kinds]
        handles += [
            Line2D([], [], color=BOUND, linestyle=(0, (6, 3)), label=f"lower bound {size(plan.lower_bound)}"),
            Line2D([], [], color=ARENA, label=f"arena {size(plan.bytes)}"),
            Patch(facecolor=LIVE, alpha=0.35, label="bytes live"),
        ]
        fig.legend(handles=handles, loc="outside lower center", ncols=3, frameon=False)

        fig.draw_without_rendering()
        fig.set_layout_engine("none")
        _label(ax, canvas, step, plan, scale)
        out = io.BytesIO()
        fig.savefig(out, format=fmt, metadata={"Date": None} if fmt == "svg" else {"Software": None})
    return out.getvalue()


def _label(ax, canvas, step: Step, plan: ArenaPlan, scale: int) -> None:
    """Writes the names of the rectangles worth a label on them, across or along, where the text fits inside:
    the full label, else the tensor's name alone."""
    renderer = canvas.get_renderer()
    to_pixels = ax.transData.transform
    candidates, wanted = to_label(plan)
    fontsize = 7
    for r in candidates:
        if wanted == 0:
            break
        (x0, y0), (x1, y1) = to_pixels([(r.start, r.offset / scale), (r.stop, (r.offset + r.bytes) / scale)])
        width, height = x1 - x0, y1 - y0
        if min(width, height) < fontsize * 1.5:
            continue
        text = ax.text(
            (r.start + r.stop) / 2,
            (r.offset + r.bytes / 2) / scale,
            "",
            ha="center",
            va="center",
            fontsize=fontsize,
            clip_on=True,
        )
        if _fit(text, renderer, width, height, dict.fromkeys([r.label(step), r.name])):
            wanted -= 1
        else:
            text.remove()


def _fit(text, renderer, width: float, height: float, labels) -> bool:
    """Sets `text` to the first of `labels`, across or along, that fits in `width` by `height` pixels."""
    for label in labels:
        text.set_text(label)
        for rotation in (0, 90):
            text.set_rotation(rotation)
            box = text.get_window_extent(renderer)
            if box.width + 4 <= width and box.height + 2 <= height:
                return True
    return False
