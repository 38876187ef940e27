"""`lanearena profile CONFIG`: where a step's GPU time goes. Each launch of the step is timed on the GPU with CUDA
events (queued back to back behind replays of the step's CUDA graph, so the events time the kernels, not the host),
and the launches are summed by the launch op they lower (its kind, and its weight's shape where it has one:
`gemv 2048x8192`), with the bytes each moves (every operand's array once in the form it is touched: a weight's Q8_0
words and scales, an activation's f32 or int8 words, a gathered table's rows its ids pick, a cache whole, an upper
bound at decode), the GB/s that makes
and its share of the GPU's memory bandwidth. A table, and with --plot a bar chart (matplotlib, the `plot` extra).
Where no GPU is, it says so and exits 0."""

from __future__ import annotations

import json
import statistics
from collections import defaultdict
from dataclasses import asdict, dataclass

from lanearena import api
from lanearena.cli.config import add_settings, config_of
from lanearena.dialects import lane
from lanearena.dialects.base import tensor_def, tensor_type
from lanearena.dialects.kernel import KernelOp
from lanearena.errors import UserError
from lanearena.frontend import decoder_step
from lanearena.lowering import cuda, kernels
from lanearena.lowering.compile import placed
from lanearena.lowering.runtime import load as load_module
from lanearena.lowering.runtime import prepare, random_feeds
from lanearena.model import QBLOCK, Form
from lanearena.options import PlaceOptions


@dataclass(frozen=True)
class KindTime:
    """One kind of launch op (and weight shape) of a step: its kernel launches, their GPU time and bytes a step."""

    kind: str
    ops: int
    launches: int
    us: float
    bytes: int
    gb_s: float
    of_bandwidth: float


class _Anywhere:
    """Operands at made-up addresses: enough for a launch op's lowering to say which kernel calls it makes."""

    AT = 1 << 40

    def __init__(self, two_words: bool):
        self.two = two_words

    def plain(self, tensor) -> int:
        return self.AT

    def quant(self, tensor) -> tuple[int, int, int]:
        return self.AT, self.AT if self.two else 0, self.AT

    def weight(self, tensor) -> tuple[int, int]:
        return self.AT, self.AT if tensor_type(tensor).elem == "i8" else 0

    def scratch(self, tag: str) -> int:
        return self.AT

    counter = scratch


def label(op: KernelOp) -> str:
    """The kind of `op`, with the shape of its matrix weight where it has one (`gemv 151936x1024`)."""
    for name in op.operand_names():
        t = tensor_def(op.operand(name))
        if t.ROLE == "weight" and len(t.result.type.dims) == 2:
            return f"{op.kind} {'x'.join(map(str, t.result.type.dims))}"
    return op.kind


def moved(op: KernelOp, two_words: bool) -> int:
    """The bytes `op` reads and writes: each operand array once, in the form touched (f32 and i32 four bytes a
    value; int8 words a byte, and a second under two-word numerics, plus an f32 scale a block; a weight's Q8_0 a
    byte and a scale a block; a bf16 weight two bytes a value), but of a table gathered by `ids` only the rows they
    pick."""
    arrays = {(v, f) for v, f in op.reads()} | {(v, f) for v, f, _ in op.writes()}
    names = op.operand_names()
    gathered = op.operand("table") if "table" in names and "ids" in names else None
    total = 0.0
    for value, form in arrays:
        t = tensor_type(value)
        values = t.length
        if value == gathered:
            values = tensor_type(op.operand("ids")).length * (t.length // t.dims[0])
        if t.elem == "i8":
            total += values * (1 + 4 / QBLOCK)
        elif t.elem == "bf16":
            total += 2 * values
        elif form is Form.QUANT:
            total += values * (1 + two_words + 4 / QBLOCK)
        else:
            total += 4 * values
    return int(total)


def owners(step: lane.StepOp) -> list[tuple[str, int]]:
    """For each kernel launch of the lowered `step`, in order: the label of the op it lowers and that op's index."""
    two = step.step_numerics.two_words
    out = []
    for i, op in enumerate(o for o in step.body.block.ops if isinstance(o, KernelOp)):
        out += [(label(op), i)] * len(kernels.calls(op, _Anywhere(two)))
    return out


def profile(config, runs: int = 20) -> tuple[list[KindTime], float, str, str]:
    """Each kind's GPU time and bytes a step of decoder `config` on the GPU; the step's GPU time (us), the
    bandwidth's figure and the GPU."""
    module = decoder_step(config)
    api.place(module, PlaceOptions("greedy"))
    p = placed(module)
    emitted = load_module(p.source())
    dev = cuda.CudaDevice()
    b = prepare(dev, random_feeds(p.step, 0), emitted.BUFFERS, emitted.FEEDS, emitted.ALIGN)
    rows, total, bandwidth = profile_step(dev, p.op, emitted, b, runs)
    return rows, total, bandwidth, dev.found


def profile_step(dev, placed: lane.StepOp, emitted, b: list[int], runs: int) -> tuple[list[KindTime], float, str]:
    """Each kind's GPU time and bytes a step of `placed`, lowered to `emitted` and prepared in buffers `b` on `dev`
    (a `CudaDevice`); the step's GPU time (us) and the bandwidth's figure."""
    from lanearena.lowering.graph import CudaGraph
    from lanearena.lowering.plan import LaunchPlan

    timed, spacer = LaunchPlan(dev, emitted, b), CudaGraph(dev, LaunchPlan(dev, emitted, b))
    who = owners(placed)
    if len(who) != len(timed):
        raise RuntimeError(f"the ops lower to {len(who)} launches, the module makes {len(timed)}")
    events = [dev.driver.Event() for _ in range(len(timed) + 1)]
    each: list[list[float]] = [[] for _ in timed.calls]
    for _ in range(runs):
        for _ in range(5):  # the GPU busy while the timed launches are queued
            spacer.replay()
        events[0].record(dev.stream)
        for (launch, grid, block, params), event in zip(timed.calls, events[1:], strict=True):
            launch(grid, block, params, 0, dev.stream)
            event.record(dev.stream)
        events[-1].synchronize()
        for i in range(len(timed)):
            each[i].append(events[i + 1].time_since(events[i]) * 1e3)
    peak, source = dev.bandwidth()
    two = placed.step_numerics.two_words
    ops = [o for o in placed.body.block.ops if isinstance(o, KernelOp)]
    us: dict[str, float] = defaultdict(float)
    launches: dict[str, int] = defaultdict(int)
    seen: dict[str, set[int]] = defaultdict(set)
    for (name, op), times in zip(who, each, strict=True):
        us[name] += statistics.median(times)
        launches[name] += 1
        seen[name].add(op)
    rows = []
    for name in us:
        nbytes = sum(moved(ops[i], two) for i in seen[name])
        rate = nbytes / (us[name] * 1e-6)
        rows.append(KindTime(name, len(seen[name]), launches[name], us[name], nbytes, rate / 1e9, rate / peak))
    rows.sort(key=lambda r: -r.us)
    return rows, sum(us.values()), f"{peak / 1e12:.2f} TB/s ({source})"


def table(rows: list[KindTime], total_us: float, bandwidth: str, title: str) -> list[str]:
    lines = [
        f"{title}: bandwidth {bandwidth}; the step's launches take {total_us / 1e3:.3f} ms of GPU time",
        f"{'kind':<24} {'ops':>4} {'launches':>8} {'us/step':>9} {'share':>6} {'MB':>9} {'GB/s':>7} {'of bw':>6}",
    ]
    for r in rows:
        lines.append(
            f"{r.kind:<24} {r.ops:>4} {r.launches:>8} {r.us:9.1f} {r.us / total_us:6.1%} {r.bytes / 1e6:9.2f} "
            f"{r.gb_s:7.0f} {r.of_bandwidth:6.1%}"
        )
    total_bytes = sum(r.bytes for r in rows)
    lines.append(
        f"{'all':<24} {'':>4} {sum(r.launches for r in rows):>8} {total_us:9.1f} {1:6.1%} "
        f"{total_bytes / 1e6:9.2f} {total_bytes / total_us / 1e3:7.0f}"
    )
    return lines


def plot(rows: list[KindTime], title: str, path: str) -> None:
    """A bar chart of each kind's GPU time a step, each bar marked with its share of the bandwidth."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise UserError("--plot needs matplotlib (pip install '.[plot]')") from None
    fig, ax = plt.subplots(figsize=(9, 0.35 * len(rows) + 1.5))
    names = [r.kind for r in reversed(rows)]
    ax.barh(names, [r.us for r in reversed(rows)])
    for y, r in enumerate(reversed(rows)):
        ax.text(r.us, y, f" {r.of_bandwidth:.0%} of bw", va="center", fontsize=8)
    ax.set_xlabel("GPU time a step (us)")
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def register(sub) -> None:
    p = sub.add_parser(
        "profile",
        help="each launch kind's GPU time, bytes and share of the memory bandwidth",
        description="Times each launch of a decoder config's step on the GPU with CUDA events and sums the launches "
        "by kind (and weight shape), with the bytes each moves, the GB/s that makes and its share of the GPU's "
        "memory bandwidth. Where no GPU is, it says so and exits 0.",
    )
    p.add_argument("config", help="a shipped config or a JSON file (- for standard input)")
    add_settings(p, "layers=2")
    p.add_argument("--runs", type=int, default=20, help="timed runs of the step (median a launch)")
    p.add_argument("--plot", metavar="FILE", help="also draw the table as a bar chart (PNG or SVG by its suffix)")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    p.set_defaults(func=run)


def run(args) -> int:
    why = cuda.available()
    if why is not None:
        print(f"lanearena profile: no GPU to profile on: {why}")
        return 0
    config = config_of(args.config, args.settings)
    rows, total, bandwidth, found = profile(config, args.runs)
    if args.json:
        print(json.dumps({"gpu": found, "bandwidth": bandwidth, "step_us": total, "kinds": [asdict(r) for r in rows]}))
    else:
        print("\n".join(table(rows, total, bandwidth, found)))
    if args.plot:
        plot(rows, f"{config.name} ({config.numerics}) on {found}", args.plot)
    return 0
