"""Mutation testing: break one rule of the placement or the lowering at a time, in a copy of the tree, and run the
README's test command against it; every mutant must be killed (some test of that command fails).

Each mutant is an exact (file, old text, new text) and the rule it breaks. A mutant whose old text is not in its
file exactly once is stale (the code moved): it is reported and fails the run. The tests most likely to kill a
mutant run first (a subset of the README command's: lit over FileCheck files, pytest -x over unit tests); where
they pass, the whole README command runs. Before the mutants, those tests run on the unmutated copy and must pass.
Hypothesis runs derandomized and does not shrink (LANEARENA_NO_SHRINK): a kill is reported as found.

    python bench/mutants.py [--only NAME ...] [--list]

Progress goes to stderr, the table (markdown) to stdout. Exit status 1 if a mutant survives or is stale."""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

README_COMMAND = (
    "ruff check lanearena test bench && ruff format --check lanearena test bench && mypy && "
    "lit -sv test/filecheck && python -m pytest -q -x -p no:cacheprovider"
)
"""The README's test command (its second block), stopping at the first failing test."""

PLACEMENT = ("test/unit/analysis/test_place_semantics.py", "test/unit/placement/test_fuzz_placement.py")
REFERENCE = ("test/unit/lowering/test_reference_step.py", "test/unit/lowering/test_end_to_end.py")
SCRATCH = ("test/unit/test_seed_scratch.py",)
KERNELS = ("test/unit/test_hostile.py", "test/unit/lowering/test_kernels.py")
PLACER = ("test/unit/placement/test_placement_paths.py", "test/unit/placement/test_placement_algorithms.py")


@dataclass(frozen=True)
class Mutant:
    name: str
    rule: str
    path: str
    old: str
    new: str
    first: tuple[str, ...]
    """The tests to run first: those most likely to kill it."""


MUTANTS = [
    # --- Lifetimes -------------------------------------------------------------------------------------------------
    Mutant(
        "view-read-ends-nothing",
        "lifetimes: a read through a view extends its base's life",
        "lanearena/analysis/arena_problem.py",
        "here.setdefault((home(step, r.tensor, r.form, qblock), r.form), _Here()).read = True",
        "here.setdefault((r.tensor, r.form), _Here()).read = True",
        PLACEMENT,
    ),
    Mutant(
        "life-ends-at-first",
        "lifetimes: an array lives to its last touch",
        "lanearena/analysis/arena_problem.py",
        "            e.last = i\n",
        "            e.last = e.first\n",
        PLACEMENT,
    ),
    Mutant(
        "half-open-life",
        "lifetimes: the last launch is inside the life (half-open end = last + 1)",
        "lanearena/analysis/arena.py",
        "placement.Buffer(it.label, it.first, it.last + 1, it.bytes)",
        "placement.Buffer(it.label, it.first, max(it.first + 1, it.last), it.bytes)",
        PLACEMENT,
    ),
    # --- Written before read ---------------------------------------------------------------------------------------
    Mutant(
        "read-first-is-safe",
        "written-before-read: a read before the array is written makes it unsafe",
        "lanearena/analysis/arena_problem.py",
        "if read or ((other or not parts) and not whole):",
        "if (other or not parts) and not whole:",
        PLACEMENT,
    ),
    Mutant(
        "other-write-is-whole",
        "written-before-read: a write of another kind (scattered rows) never makes an array whole",
        "lanearena/analysis/arena_problem.py",
        "                h.other = True\n",
        "                h.whole = True\n",
        PLACEMENT,
    ),
    Mutant(
        "write-through-view-is-own",
        "written-before-read: a write through a view does not write its base whole",
        "lanearena/analysis/arena_problem.py",
        "own = at == w.tensor",
        "own = True",
        PLACEMENT,
    ),
    # --- Parts -------------------------------------------------------------------------------------------------------
    Mutant(
        "one-element-gap-joins",
        "parts: a part leaving a one-element gap in every unit does not join",
        "lanearena/analysis/arena_problem.py",
        "if start > reach:",
        "if start > reach + 1:",
        PLACEMENT,
    ),
    Mutant(
        "smaller-pitch-joins",
        "parts: a change of pitch makes the array unsafe",
        "lanearena/analysis/arena_problem.py",
        "if p.pitch != self.pitch:",
        "if p.pitch > self.pitch:",
        PLACEMENT,
    ),
    Mutant(
        "quantized-parts",
        "parts: only a plain array is written in parts",
        "lanearena/analysis/arena_problem.py",
        "elif own and w.form is Form.PLAIN and isinstance(w.how, Part):",
        "elif own and isinstance(w.how, Part):",
        PLACEMENT,
    ),
    Mutant(
        "parts-short-by-one",
        "parts: the parts must cover the whole unit",
        "lanearena/analysis/arena_problem.py",
        "self.whole = reach >= self.pitch",
        "self.whole = reach >= self.pitch - 1",
        PLACEMENT,
    ),
    # --- Which arrays ------------------------------------------------------------------------------------------------
    Mutant(
        "outputs-placed",
        "which arrays: an output keeps its own buffer",
        "lanearena/analysis/arena_problem.py",
        "    if name in step.outputs:\n",
        "    if False:\n",
        PLACEMENT,
    ),
    Mutant(
        "unallocated-placed",
        "which arrays: an array of a form its tensor is not allocated in keeps a buffer of its own, as unallocated",
        "lanearena/analysis/arena_problem.py",
        "if form not in t.forms:",
        "if False:",
        ("test/filecheck/place", *PLACEMENT),
    ),
    # --- Views and quantized views -----------------------------------------------------------------------------------
    Mutant(
        "half-block-in-place",
        "views: a quantized view half a block in has blocks of its own",
        "lanearena/model.py",
        "return offset % qblock == 0",
        "return offset % (qblock // 2) == 0",
        PLACEMENT,
    ),
    Mutant(
        "home-one-hop",
        "views: a view of a view lands in the tensor at the bottom",
        "lanearena/model.py",
        "        at = t.view_of\n    return at",
        "        return t.view_of\n    return at",
        PLACEMENT,
    ),
    # --- Sizes and alignment -----------------------------------------------------------------------------------------
    Mutant(
        "plain-bytes-halved",
        "sizes: a plain array holds 4 bytes a value",
        "lanearena/model.py",
        "return aligned(length * 4, align)",
        "return aligned(length * 2, align)",
        (*PLACEMENT, *REFERENCE),
    ),
    Mutant(
        "two-words-one-size",
        "quantized sizes: two words take twice the words",
        "lanearena/model.py",
        "aligned(length, align) * (2 if two_words else 1) + aligned(length // QBLOCK * 4, align)",
        "aligned(length, align) + aligned(length // QBLOCK * 4, align)",
        (*PLACEMENT, *REFERENCE),
    ),
    Mutant(
        "scales-one-byte",
        "quantized sizes: a 4-byte scale a block",
        "lanearena/model.py",
        "aligned(length, align) * (2 if two_words else 1) + aligned(length // QBLOCK * 4, align)",
        "aligned(length, align) * (2 if two_words else 1) + aligned(length // QBLOCK, align)",
        (*PLACEMENT, *REFERENCE),
    ),
    Mutant(
        "scales-over-low-words",
        "quantized layout: the scales follow the low words",
        "lanearena/model.py",
        "return offset, low, offset + aligned(length, align) * words",
        "return offset, low, offset + aligned(length, align)",
        (*PLACEMENT, *REFERENCE),
    ),
    Mutant(
        "low-words-unaligned",
        "quantized layout: the low words start at the next aligned byte past the words",
        "lanearena/model.py",
        "low = offset + aligned(length, align) if two_words else None",
        "low = offset + length if two_words else None",
        (*PLACEMENT, *REFERENCE),
    ),
    Mutant(
        "scratch-unaligned",
        "alignment: scratch takes whole alignments",
        "lanearena/analysis/arena_problem.py",
        "items.append(Item(aligned(s.bytes, align), i, i, launch=i, tag=s.tag))",
        "items.append(Item(s.bytes, i, i, launch=i, tag=s.tag))",
        PLACEMENT,
    ),
    Mutant(
        "verify-same-launch-only",
        "alignment and overlap: the independent check sees overlaps of lives that only meet",
        "lanearena/analysis/check.py",
        "            if o.start < r.end and r.start < o.end:",
        "            if o.start < r.end and r.start < o.end and o.first == r.first:",
        PLACEMENT,
    ),
    # --- The placer ------------------------------------------------------------------------------------------------
    Mutant(
        "first-fit-no-touching",
        "greedy: the lowest offset clear of the live buffers (a buffer may end where the next begins)",
        "lanearena/placement/greedy.py",
        "                if o + u <= a:\n                    break",
        "                if o + u < a:\n                    break",
        PLACER,
    ),
    Mutant(
        "tree-gap-one-short",
        "greedy at scale: a gap exactly the size holds the buffer (the compiled loop's query)",
        "lanearena/placement/tree.py",
        "if pool[h + 2 * j] - pool[h + 2 * j - 1] >= size:",
        "if pool[h + 2 * j] - pool[h + 2 * j - 1] > size:",
        PLACER,
    ),
    Mutant(
        "check-looks-above-only",
        "validity: the placement's own check sees a live buffer just below a new one",
        "lanearena/placement/problem.py",
        "for o, end, j in live[max(at - 1, 0) : at + 1]:",
        "for o, end, j in live[at : at + 1]:",
        PLACER,
    ),
    # --- Scratch -----------------------------------------------------------------------------------------------------
    Mutant(
        "split-scratch-quarter",
        "scratch sizes: an int8 product cut along k keeps [split, rows, n] f32 sums",
        "lanearena/dialects/kinds/products.py",
        'buffer(parts, "f32", split * rows * n * 4)',
        'buffer(parts, "f32", split * rows * n)',
        (*SCRATCH, *REFERENCE),
    ),
    Mutant(
        "attention-partials-short",
        "scratch sizes: a split attention keeps (max, sum, hd values) a chunk",
        "lanearena/dialects/kinds/attention.py",
        "rows * heads * splits * (hd + 2) * acc",
        "rows * heads * splits * (hd + 1) * acc",
        (*SCRATCH, *REFERENCE),
    ),
    Mutant(
        "delta-scores-short",
        "scratch sizes: the delta rule's chunks keep DELTA_CHUNK x DELTA_CHUNK masked scores",
        "lanearena/kernel_shapes.py",
        "chunks * hv * c * d, chunks * hv * c * d, chunks * hv * c * c, chunks * hv * c * c, chunks * hv * c]",
        "chunks * hv * c * d, chunks * hv * c * d, chunks * hv * c * c, chunks * hv * c, chunks * hv * c]",
        (*SCRATCH, *REFERENCE),
    ),
    Mutant(
        "counters-in-the-arena",
        "counters: a counter keeps a zeroed buffer of its own",
        "lanearena/dialects/kinds/common.py",
        'return Scratch(tag, "i32", nbytes, counter=True)',
        'return Scratch(tag, "i32", nbytes, counter=False)',
        (*SCRATCH, *REFERENCE),
    ),
    # --- Emitted offsets and pointers --------------------------------------------------------------------------------
    Mutant(
        "quant-view-scales-at-zero",
        "emitted pointers: a quantized view's scales start at its offset's block",
        "lanearena/lowering/emit.py",
        "scales + elems // QBLOCK * 4",
        "scales",
        REFERENCE,
    ),
    Mutant(
        "nested-view-first-hop",
        "emitted offsets: a view of a view starts at both offsets",
        "lanearena/model.py",
        "        start += t.view_offset\n        at = t.view_of\n",
        "        start = t.view_offset if at == name else start\n        at = t.view_of\n",
        REFERENCE,
    ),
    Mutant(
        "plain-view-bytes",
        "emitted offsets: a view's elements are 4 bytes each",
        "lanearena/lowering/emit.py",
        "return base + 4 * elems",
        "return base + elems",
        REFERENCE,
    ),
    Mutant(
        "low-words-at-zero",
        "emitted pointers: a quantized view's low words start at its offset",
        "lanearena/lowering/emit.py",
        "(low + elems if low is not None else 0)",
        "(low if low is not None else 0)",
        REFERENCE,
    ),
    Mutant(
        "weight-scales-unaligned",
        "emitted pointers: a Q8_0 weight's scales start at the aligned byte past its words",
        "lanearena/lowering/emit.py",
        'base + aligned(t.length, self.align) if t.elem == "i8" else 0',
        'base + t.length if t.elem == "i8" else 0',
        REFERENCE,
    ),
    Mutant(
        "counters-not-zeroed",
        "emitted buffers: counters start zeroed",
        "lanearena/lowering/emit.py",
        'Allocation(f"#{c.launch}:{c.tag}", aligned(c.bytes, plan.align), zero=True)',
        'Allocation(f"#{c.launch}:{c.tag}", aligned(c.bytes, plan.align), zero=False)',
        REFERENCE,
    ),
    Mutant(
        "arena-not-poisoned",
        "NaN handling: the arena is poisoned (NaN) before each run",
        "lanearena/lowering/emit.py",
        'Allocation("arena", plan.bytes, poison=True)',
        'Allocation("arena", plan.bytes, poison=False)',
        REFERENCE,
    ),
    # --- NaN handling ------------------------------------------------------------------------------------------------
    Mutant(
        "arg-max-skips-nan",
        "NaN handling: arg-max ranks NaN above every number",
        "lanearena/lowering/kernels/argmax.py",
        "at = int(values.argmax())",
        "at = int(np.nanargmax(values)) if not np.isnan(values).all() else 0",
        KERNELS,
    ),
    Mutant(
        "router-skips-nan",
        "NaN handling: the router ranks NaN above every number",
        "lanearena/lowering/kernels/mixture_twins.py",
        "return int(np.argmax(values))",
        "return int(np.nanargmax(values)) if not np.isnan(values).all() else 0",
        ("test/unit/lowering/test_reference_step.py", *KERNELS),
    ),
    Mutant(
        "nan-differences-ignored",
        "NaN handling: a NaN in one run and not the other is a difference",
        "lanearena/lowering/runtime.py",
        '            return float("inf")\n',
        "            pass\n",
        (
            "test/unit/lowering/test_device.py",
            "test/unit/lowering/test_end_to_end.py",
            "test/unit/lowering/test_fuzz_runtime.py",
        ),
    ),
    Mutant(
        "poison-is-zero",
        "NaN handling: poison is the byte 0xFF (NaN in every f32)",
        "lanearena/lowering/runtime.py",
        "POISON = 0xFF",
        "POISON = 0x00",
        ("test/unit/lowering/test_end_to_end.py", "test/unit/lowering/test_device.py"),
    ),
]


def stale(m: Mutant, root: Path) -> str | None:
    """Why `m` no longer applies to the tree at `root`, or None."""
    path = root / m.path
    if not path.exists():
        return f"{m.path} is gone"
    count = path.read_text().count(m.old)
    return None if count == 1 else f"its text occurs {count} times in {m.path}"


def _copy(dest: Path) -> None:
    """The tree's files (tracked, and untracked ones git does not ignore) copied under `dest`."""
    names = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.split(b"\0")
    for name in filter(None, names):
        src = ROOT / name.decode()
        if src.is_file():
            (dest / name.decode()).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name.decode())


def _run(command: str, cwd: Path) -> tuple[bool, str]:
    """Whether `command` passed in `cwd` (the copy's package first on the path), and its output."""
    env = {
        **os.environ,
        "PYTHONPATH": str(cwd),
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "LANEARENA_NO_SHRINK": "1",  # a kill is a kill: no time spent shrinking its example
    }
    shutil.rmtree(cwd / ".hypothesis", ignore_errors=True)  # no example found for one mutant replayed for the next
    done = subprocess.run(command, shell=True, cwd=cwd, env=env, capture_output=True, text=True)
    return done.returncode == 0, done.stdout + done.stderr


def _killer(output: str) -> str:
    """What failed: the first failing test (pytest's or lit's), or the last line the command wrote."""
    m = re.search(r"^(?:FAILED|ERROR) (\S+)", output, re.M)
    if m:
        return m.group(1)
    m = re.search(r"^FAIL: \w+ :: (\S+)", output, re.M)
    if m:
        return f"test/filecheck/{m.group(1)}"
    lines = [line for line in output.splitlines() if line.strip()]
    return lines[-1][:80] if lines else "the test command"


def _first(tests: tuple[str, ...]) -> str:
    """The command that runs a mutant's first tests: lit over the FileCheck ones, then pytest over the rest."""
    lit = [t for t in tests if t.startswith("test/filecheck")]
    unit = [t for t in tests if t not in lit]
    steps = [f"lit -s {' '.join(lit)}"] if lit else []
    steps += ["python -m pytest -q -x -p no:cacheprovider " + " ".join(unit)] if unit else []
    return " && ".join(steps)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", help="run only these mutants")
    parser.add_argument("--list", action="store_true", help="list the mutants and exit")
    args = parser.parse_args()
    mutants = [m for m in MUTANTS if not args.only or m.name in args.only]
    if args.list:
        for m in mutants:
            print(f"{m.name}: {m.rule} ({m.path})")
        return 0
    rows, failed = [], False
    with tempfile.TemporaryDirectory(prefix="mutants-") as tmp:
        copy = Path(tmp)
        _copy(copy)
        first = tuple(dict.fromkeys(t for m in mutants for t in m.first))
        print(f"unmutated: {' '.join(first)}", file=sys.stderr, flush=True)
        ok, out = _run(_first(first), copy)
        if not ok:
            print(out[-3000:], file=sys.stderr)
            print("the tests fail on the unmutated tree: no mutant can be judged", file=sys.stderr)
            return 1
        for i, m in enumerate(mutants, 1):
            why = stale(m, copy)
            if why:
                rows.append((m, "STALE", why, 0.0))
                failed = True
                print(f"[{i}/{len(mutants)}] {m.name}: stale ({why})", file=sys.stderr, flush=True)
                continue
            path = copy / m.path
            original = path.read_text()
            path.write_text(original.replace(m.old, m.new))
            start = time.monotonic()
            try:
                ok, out = _run(_first(m.first), copy)
                if ok:
                    print(
                        f"[{i}/{len(mutants)}] {m.name}: survived its first tests, the whole command", file=sys.stderr
                    )
                    ok, out = _run(README_COMMAND, copy)
            finally:
                path.write_text(original)
            took = time.monotonic() - start
            verdict = "survived" if ok else "killed"
            failed |= ok
            killer = "" if ok else _killer(out)
            rows.append((m, verdict, killer, took))
            print(f"[{i}/{len(mutants)}] {m.name}: {verdict} {killer} ({took:.0f} s)", file=sys.stderr, flush=True)
    print("| mutant | rule broken | file | result | killed by | time |")
    print("|---|---|---|---|---|---|")
    for m, verdict, killer, took in rows:
        print(f"| `{m.name}` | {m.rule} | `{m.path}` | {verdict} | `{killer}` | {took:.0f} s |")
    killed = sum(1 for _, v, _, _ in rows if v == "killed")
    print(f"\n{killed} of {len(rows)} killed", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
