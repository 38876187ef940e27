"""Memref functions as torch-mlir and IREE's compiler make them, and what `memref-arena-place` and `lanearena-run` do
with them: an MLP, a GPT-2 block, a whole GPT-2 and a Llama (random weights, given as arguments of the function),
each exported by torch (`torch.export`), lowered by torch-mlir to linalg on tensors, and bufferized by `iree-opt`
(one-shot bufferization of the whole module, ownership-based deallocation) twice: with the linalg ops kept, and
lowered to loops (`convert-linalg-to-loops`). For each function it prints the buffers placed and left out, the arena
against the lower bound and the bytes without reuse, checks that no two buffers live together share a byte (its own
check from the lives, not the package's), runs it with `lanearena-run`'s interpreter before and after the pass on
seeded random arguments, and compares both with torch's result.

torch, torch-mlir and iree-base-compiler live in a virtual environment of their own (`--venv`, made with
`python -m venv V && V/bin/pip install torch==2.13.0 numpy packaging sympy && V/bin/pip install --no-deps torch-mlir
iree-base-compiler`): this script runs there for the torch steps (`--stage export`, `--stage torch`) and in the
project's environment for the rest. Not part of CI: the interpreter takes minutes on the larger functions.

    python bench/mlirgen.py [--venv /work/venv-mlirgen] [--out /tmp/mlirgen] [--models mlp,gpt2_block,gpt2,llama]
                            [--seed 0] [--no-run] [--shapes bench|lit] [--layers N]
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import textwrap
import time
from pathlib import Path

BUFFERIZE = [
    "--linalg-generalize-named-ops",
    "--one-shot-bufferize=bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map",
    "--canonicalize",
    "--cse",
    "--ownership-based-buffer-deallocation",
    "--canonicalize",
    "--buffer-deallocation-simplification",
    "--bufferization-lower-deallocations",
    "--canonicalize",
    "--cse",
]
"""iree-opt's passes from linalg on tensors to memref functions with their deallocs."""

LOOPS = ["--convert-linalg-to-loops", "--canonicalize", "--cse"]
"""Then, for the second form, the linalg ops lowered to scf loops."""

MODELS = ("mlp", "gpt2_block", "gpt2", "llama")


# ---- the torch side (run with the venv's python) ----------------------------------------------------------------


SHAPES = {
    "bench": {"d": 16, "heads": 2, "seq": 4, "ffn": 32, "vocab": 24, "layers": 2},
    "lit": {"d": 8, "heads": 2, "seq": 2, "ffn": 8, "vocab": 16, "layers": 1},
}
"""The models' sizes: `bench` for the table, `lit` for the committed tests (seconds in the interpreter). A vocabulary
of at least 16: `lanearena-run --seed` draws token ids in [0, 16)."""


def torch_models(name: str, shapes: dict[str, int]):
    """The module `name` of `shapes` (random weights, seeded) and an example input."""
    import torch
    from torch import nn

    torch.manual_seed(0)
    d, heads, seq, ffn, vocab, layers = (shapes[k] for k in ("d", "heads", "seq", "ffn", "vocab", "layers"))

    class Mlp(nn.Module):
        def __init__(self):
            super().__init__()
            self.up = nn.Linear(d, ffn)
            self.down = nn.Linear(ffn, d)

        def forward(self, x):
            return self.down(nn.functional.gelu(self.up(x)))

    class Gpt2Block(nn.Module):
        """GPT-2's block as transformers writes it: pre-norm attention with a causal mask, the tanh GELU."""

        def __init__(self):
            super().__init__()
            self.ln_1, self.ln_2 = nn.LayerNorm(d), nn.LayerNorm(d)
            self.c_attn, self.c_proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
            self.c_fc, self.mlp_proj = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

        def forward(self, x):
            b, t, _ = x.shape
            q, k, v = self.c_attn(self.ln_1(x)).split(d, dim=2)
            q, k, v = (z.view(b, t, heads, d // heads).transpose(1, 2) for z in (q, k, v))
            scores = q @ k.transpose(-1, -2) / (d // heads) ** 0.5
            mask = torch.ones(t, t, dtype=torch.bool).tril()  # transformers' `bias` buffer, made here: torch-mlir
            # would hold it as a dense_resource, which xDSL does not parse
            scores = torch.where(mask, scores, torch.finfo(scores.dtype).min)
            att = torch.softmax(scores, dim=-1) @ v
            x = x + self.c_proj(att.transpose(1, 2).reshape(b, t, d))
            h = nn.functional.gelu(self.c_fc(self.ln_2(x)), approximate="tanh")
            return x + self.mlp_proj(h)

    class Gpt2(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte, self.wpe = nn.Embedding(vocab, d), nn.Embedding(seq, d)
            self.h = nn.ModuleList(Gpt2Block() for _ in range(layers))
            self.ln_f = nn.LayerNorm(d)

        def forward(self, ids):
            x = self.wte(ids) + self.wpe(torch.arange(ids.shape[1]))
            for block in self.h:
                x = block(x)
            return self.ln_f(x) @ self.wte.weight.T

    class RmsNorm(nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = nn.Parameter(torch.rand(d) + 0.5)

        def forward(self, x):
            return self.weight * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6))

    def rotate(x):
        a, b = x.chunk(2, dim=-1)
        return torch.cat((-b, a), dim=-1)

    class LlamaLayer(nn.Module):
        """Llama's decoder layer as transformers writes it: RMS norms, rotary positions, a causal mask, SwiGLU."""

        def __init__(self):
            super().__init__()
            self.input_layernorm, self.post_attention_layernorm = RmsNorm(), RmsNorm()
            self.q, self.k, self.v, self.o = (nn.Linear(d, d, bias=False) for _ in range(4))
            self.gate, self.up = nn.Linear(d, ffn, bias=False), nn.Linear(d, ffn, bias=False)
            self.down = nn.Linear(ffn, d, bias=False)

        def forward(self, x, cos, sin, mask):
            b, t, _ = x.shape
            h = self.input_layernorm(x)
            q, k, v = (p(h).view(b, t, heads, d // heads).transpose(1, 2) for p in (self.q, self.k, self.v))
            q, k = q * cos + rotate(q) * sin, k * cos + rotate(k) * sin
            scores = (q @ k.transpose(-1, -2)) / (d // heads) ** 0.5
            scores = scores.masked_fill(~mask, float("-inf"))
            att = torch.softmax(scores, dim=-1) @ v
            x = x + self.o(att.transpose(1, 2).reshape(b, t, d))
            h = self.post_attention_layernorm(x)
            return x + self.down(nn.functional.silu(self.gate(h)) * self.up(h))

    class Llama(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(vocab, d)
            self.layers = nn.ModuleList(LlamaLayer() for _ in range(layers))
            self.norm, self.lm_head = RmsNorm(), nn.Linear(d, vocab, bias=False)

        def forward(self, ids):
            t = ids.shape[1]
            half = d // heads // 2
            inv = 1.0 / (10000 ** (torch.arange(half, dtype=torch.float32) / half))
            angles = torch.arange(t, dtype=torch.float32)[:, None] * inv[None, :]
            angles = torch.cat((angles, angles), dim=-1)
            cos, sin = angles.cos(), angles.sin()
            mask = torch.ones(t, t, dtype=torch.bool).tril()
            x = self.embed(ids)
            for layer in self.layers:
                x = layer(x, cos, sin, mask)
            return self.lm_head(self.norm(x))

    ids = torch.randint(0, vocab, (1, seq))
    made = {
        "mlp": (Mlp, torch.randn(seq, d)),
        "gpt2_block": (Gpt2Block, torch.randn(1, seq, d)),
        "gpt2": (Gpt2, ids),
        "llama": (Llama, ids),
    }
    kind, example = made[name]
    return kind().eval(), example


class WeightsAsArguments:
    """`module` as a function of its input and then its parameters (in `named_parameters` order), so that the
    exported function takes its weights as arguments instead of holding them as constants."""

    def __init__(self, module):
        import torch

        self.names = [n for n, _ in module.named_parameters()]
        self.module = module

        class Wrapped(torch.nn.Module):
            def forward(inner, x, *weights):
                return torch.func.functional_call(module, dict(zip(self.names, weights, strict=True)), (x,))

        self.wrapped = Wrapped()


def export(out: Path, models: list[str], shapes: dict[str, int]) -> None:
    """Writes `NAME.linalg.mlir` (torch-mlir's linalg on tensors) for each model, and `NAME.args.json`: the
    argument order (input, then parameters)."""
    from torch_mlir import fx

    for name in models:
        module, example = torch_models(name, shapes)
        wrapped = WeightsAsArguments(module)
        weights = [p.detach() for p in module.parameters()]
        imported = fx.export_and_import(
            wrapped.wrapped, example, *weights, output_type="linalg-on-tensors", func_name="main"
        )
        (out / f"{name}.linalg.mlir").write_text(str(imported))
        (out / f"{name}.args.json").write_text(json.dumps(["input", *wrapped.names]))


def torch_results(out: Path, models: list[str], shapes: dict[str, int]) -> None:
    """For each `NAME.inputs.npz` (the arguments lanearena-run drew), torch's result as `NAME.torch.npy`."""
    import numpy
    import torch

    for name in models:
        inputs = numpy.load(out / f"{name}.inputs.npz")
        args = [torch.from_numpy(inputs[f"arg{i}"]) for i in range(len(inputs.files))]
        module, _ = torch_models(name, shapes)
        wrapped = WeightsAsArguments(module)
        with torch.no_grad():
            result = wrapped.wrapped(*args)
        numpy.save(out / f"{name}.torch.npy", result.numpy())


# ---- the lanearena side (run in the project's environment) -------------------------------------------------------


def bufferize(out: Path, venv: Path, name: str) -> dict[str, Path]:
    """`NAME.linalg.memref.mlir` (linalg ops kept) and `NAME.loops.memref.mlir` from torch-mlir's output."""
    source = out / f"{name}.linalg.mlir"
    made = {"linalg": out / f"{name}.linalg.memref.mlir", "loops": out / f"{name}.loops.memref.mlir"}
    opt = str(venv / "bin" / "iree-opt")
    generic = "--mlir-print-op-generic"  # xDSL does not parse the custom forms of memref.global, memref.copy, an
    # aligned memref.alloc (docs/upstream.md)
    subprocess.run([opt, str(source), *BUFFERIZE, generic, "-o", str(made["linalg"])], check=True)
    subprocess.run([opt, str(made["linalg"]), *LOOPS, generic, "-o", str(made["loops"])], check=True)
    return made


def shared_bytes_checker():
    """The tests' own check of a placed function (`test/unit/memref/shared_bytes.py`), apart from the package's."""
    import importlib.util

    path = Path(__file__).resolve().parents[1] / "test" / "unit" / "memref" / "shared_bytes.py"
    spec = importlib.util.spec_from_file_location("shared_bytes", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def study(path: Path, seed: int, run: bool) -> dict:
    """Placement and runs of one memref function: numbers for the table."""
    import numpy
    from xdsl.dialects import func

    from lanearena import placement
    from lanearena.memref import lifetimes
    from lanearena.memref.place import MemrefArenaPlace, buffers
    from lanearena.tools.diagnose import parse_located
    from lanearena.tools.run import LanearenaRunMain, run_function

    text = path.read_text()
    ctx = LanearenaRunMain([]).ctx
    start = time.perf_counter()
    module = parse_located(ctx, text, str(path))
    parsed = time.perf_counter() - start
    (function,) = [f for f in module.walk() if isinstance(f, func.FuncOp) and f.sym_name.data == "main"]
    lives = lifetimes.function_lives(function, 256)
    problem = buffers(lives, 256)
    bound = placement.lower_bound(problem)
    no_reuse = sum(b.size for b in problem)
    start = time.perf_counter()
    MemrefArenaPlace().apply(ctx, module)
    placing = time.perf_counter() - start
    placed_text = str(module)
    arena = next((a for a in module.walk() if lifetimes.ARENA_ATTR in a.attributes), None)
    kept = [a.attributes["lanearena.own"].data for a in module.walk() if "lanearena.own" in a.attributes]
    row = {
        "buffers": len(lives.lives),
        "kept": kept,
        "arena": arena.attributes[lifetimes.ARENA_ATTR].value.data if arena is not None else 0,
        "lower_bound": bound,
        "no_reuse": no_reuse,
        "shared_bytes": shared_bytes_checker().faults(function, 256),
        "parse_s": round(parsed, 3),
        "place_s": round(placing, 3),
    }
    if run:
        start = time.perf_counter()
        before, inputs = run_function(text, seed=seed)
        after, _ = run_function(placed_text, seed=seed)
        row["run_s"] = round(time.perf_counter() - start, 1)
        row["placed_equals_unplaced"] = all(
            numpy.array_equal(a, b, equal_nan=True) for a, b in zip(before, after, strict=True)
        )
        row["result"] = before[0]
        row["inputs"] = inputs
    return row


LIT_RUN = """// RUN: lanearena-run %s --seed 0 --verbose > %t.before
// RUN: lanearena-opt %s -p memref-arena-place | tee %t.placed | lanearena-run - --seed 0 --verbose > %t.after
// RUN: diff %t.before %t.after
// RUN: filecheck %s --input-file=%t.placed
"""


def write_lit(args: argparse.Namespace, name: str, form: str, shapes: dict[str, int], row: dict, expected) -> None:
    """`torch_NAME_FORM.mlir` in `args.lit`: the function with its provenance, what the pass gives on it, and
    torch's result on the arguments `lanearena-run --seed 0` draws (`// TORCH:`, read by
    test/unit/memref/test_torch_outputs.py)."""
    python = str(args.venv / "bin" / "python")
    versions = subprocess.run(
        [
            python,
            "-c",
            "import importlib.metadata as m; print(*(m.version(p) for p in "
            "('torch', 'torch-mlir', 'iree-base-compiler')))",
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    lowered = "its linalg ops kept" if form == "linalg" else "its linalg ops lowered to loops (" + " ".join(LOOPS) + ")"
    arguments = json.loads((args.out / f"{name}.args.json").read_text())
    lines = [
        f"// {name} ({', '.join(f'{k} {v}' for k, v in shapes.items())}), random weights, exported by torch"
        f" {versions[0]} (torch.export), lowered to linalg on tensors by torch-mlir {versions[1]}, bufferized by"
        f" iree-opt (iree-base-compiler {versions[2]}): {shlex.join(BUFFERIZE)} --mlir-print-op-generic; with"
        f" {lowered}. Made by `python bench/mlirgen.py --shapes {args.shapes} --models {name} --lit DIR`.",
        f"// Arguments: {', '.join(arguments)}.",
        f"// {row['buffers']} buffers placed ({', '.join(row['kept'])}: the result), the arena at the lower bound,"
        f" {row['arena']} bytes ({row['no_reuse']} without reuse); placed, it runs the same; torch's result on the"
        " arguments lanearena-run --seed 0 draws:",
        "// TORCH: " + json.dumps([float(f"{v:.7g}") for v in expected.ravel().tolist()]),
        f"// CHECK: lanearena.bytes = {row['arena']} : i64, lanearena.lower_bound = {row['arena']} : i64",
        '// CHECK: lanearena.own = "escapes through func.return"',
    ]
    text = (args.out / f"{name}.{form}.memref.mlir").read_text()
    wrapped = [
        textwrap.fill(line, 118, subsequent_indent="// ", break_on_hyphens=False)
        if not line.startswith("// TORCH")
        else line
        for line in lines
    ]
    (args.lit / f"torch_{name}_{form}.mlir").write_text(LIT_RUN + "\n" + "\n".join(wrapped) + "\n\n" + text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--venv", type=Path, default=Path("/work/venv-mlirgen"))
    parser.add_argument("--out", type=Path, default=Path("/tmp/mlirgen"))
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-run", action="store_true")
    parser.add_argument("--stage", choices=("all", "export", "torch"), default="all")
    parser.add_argument("--shapes", choices=tuple(SHAPES), default="bench")
    parser.add_argument("--layers", type=int, default=None, help="layers of gpt2 and llama (default: the shapes')")
    parser.add_argument("--lit", type=Path, default=None, help="write each function as a lit test into this folder")
    args = parser.parse_args()
    models = args.models.split(",")
    shapes = SHAPES[args.shapes] | ({"layers": args.layers} if args.layers else {})
    args.out.mkdir(parents=True, exist_ok=True)
    if args.stage == "export":
        export(args.out, models, shapes)
        return
    if args.stage == "torch":
        torch_results(args.out, models, shapes)
        return
    import numpy

    python = str(args.venv / "bin" / "python")
    me = [python, __file__, "--out", str(args.out), "--models", args.models, "--shapes", args.shapes]
    me += ["--layers", str(shapes["layers"])]
    subprocess.run([*me, "--stage", "export"], check=True)
    table = {}
    for name in models:
        for form, path in bufferize(args.out, args.venv, name).items():
            row = study(path, args.seed, not args.no_run)
            table[f"{name}/{form}"] = row
            if "inputs" in row:
                numpy.savez(args.out / f"{name}.inputs.npz", **{f"arg{i}": a for i, a in enumerate(row["inputs"])})
            print(f"{name}/{form}: { ({k: v for k, v in row.items() if k not in ('inputs', 'result')}) }", flush=True)
    if not args.no_run:
        subprocess.run([*me, "--stage", "torch"], check=True)
        for name in models:
            expected = numpy.load(args.out / f"{name}.torch.npy")
            for form in ("linalg", "loops"):
                got = table[f"{name}/{form}"]["result"]
                err = float(numpy.max(numpy.abs(numpy.asarray(got, dtype=numpy.float64) - expected)))
                print(f"{name}/{form}: max |lanearena-run - torch| = {err:.3g}")
                if args.lit is not None:
                    write_lit(args, name, form, shapes, table[f"{name}/{form}"], expected)


if __name__ == "__main__":
    main()
