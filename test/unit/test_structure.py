"""The package's structure: its modules import one another without a loop (and without imports hidden in functions
to break one), no import runs back up the layers (`LAYERS`), and loading the dialects, the xDSL entry point, the
passes and the API loads no numpy and no numba but through the placement."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "lanearena"

DEFERRED = {"universe", "cli", "placement"}
"""Where imports inside functions are the point: xDSL's entry point loads each dialect and pass when it is asked for,
the command line only what its command needs, the placement its numpy and numba side only for a problem large enough
to need it. (A deferred import still counts toward a loop.)"""


LAYERS = (
    ("errors", "model"),
    ("files", "plugins", "kernel_shapes"),
    ("placement", "decoding"),
    ("options",),
    ("analysis", "dialects"),
    ("arena_report", "limits", "memref"),
    ("passes", "tools"),
    ("frontend",),
    ("lowering",),
    ("api",),
    ("cli", "universe"),
)
"""The package's parts from the bottom up: a module may import its own part and the parts of the layers below, never one
of its own layer's other parts or one above. Plain data and errors; files and the entry points of outside kinds; the
algorithms over plain buffers (the placement's, and decoding's choice of the next token from logits); the options of
the passes; the placement's analysis (plain data) and the dialects; what is built on the IR (the checks of sizes, the
memref pass, the placement report); the passes and the drivers' diagnostics; the decoder builder and its loaders (its
step leaves it fused by lane-fuse); the lowering; the API; the command line and xDSL's entry point."""

UPWARD_TODO: set[tuple[str, str]] = set()
"""Imports that still run up, each with its owner: none now (the session places its steps through the pass)."""


def _part(module: str) -> str:
    """The part of the package (`LAYERS`) that `module` is in: its subpackage, or its module at the top."""
    return module.split(".")[1] if "." in module else module


def _modules() -> dict[str, ast.Module]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = ast.parse(path.read_text())
    return out


def _imported(name: str, node: ast.Import | ast.ImportFrom, modules: dict[str, ast.Module]) -> set[str]:
    """The package's modules an import statement of module `name` loads."""
    if isinstance(node, ast.Import):
        return {a.name for a in node.names if a.name in modules}
    base = node.module or ""
    if node.level:
        package = name.split(".")[: -node.level] if not name.endswith("__init__") else name.split(".")
        base = ".".join([*package, *([base] if base else [])])
    # `from package import module` loads the module (its package is loaded already); any other name, the package
    found = {f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in modules}
    if base in modules and any(f"{base}.{a.name}" not in modules for a in node.names):
        found.add(base)
    return found


def _typing_only(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and ast.unparse(node.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING")


def _graph(modules: dict[str, ast.Module]) -> dict[str, set[str]]:
    """Each module and the package's modules it imports, at its top level or deferred into a function (which loads
    them all the same when it runs), but not those only type checking reads."""
    graph: dict[str, set[str]] = {}
    for name, tree in modules.items():
        typing_only = {id(n) for block in ast.walk(tree) if _typing_only(block) for n in ast.walk(block)}
        edges: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)) and id(node) not in typing_only:
                edges |= _imported(name, node, modules)
        graph[name] = edges - {name}
    return graph


def test_no_module_imports_itself_through_others():
    graph = _graph(_modules())
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(name: str) -> None:
        state[name] = 1
        path.append(name)
        for nxt in sorted(graph[name]):
            if state.get(nxt) == 1:
                loop = [*path[path.index(nxt) :], nxt]
                raise AssertionError("import loop: " + " -> ".join(loop))
            if nxt not in state:
                visit(nxt)
        path.pop()
        state[name] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name)


def test_every_part_of_the_package_has_a_layer():
    named = [part for layer in LAYERS for part in layer]
    assert len(named) == len(set(named))
    assert {_part(m) for m in _modules() if m != "lanearena"} == set(named)


def test_no_import_runs_back_up_a_layer():
    """A module imports only its own part of the package and the parts of the layers below it (`LAYERS`)."""
    rank = {part: i for i, layer in enumerate(LAYERS) for part in layer}
    graph = _graph(_modules())
    assert all(target in graph[name] for name, target in UPWARD_TODO), "an import of UPWARD_TODO is gone: drop it"
    upward = [
        f"{name} -> {target}"
        for name, targets in sorted(graph.items())
        for target in sorted(targets)
        if name != "lanearena"
        and _part(name) != _part(target)
        and rank[_part(target)] >= rank[_part(name)]
        and (name, target) not in UPWARD_TODO
    ]
    assert upward == []


def test_no_import_hides_in_a_function():
    hidden = []
    for name, tree in _modules().items():
        if name.split(".")[1:2] and name.split(".")[1] in DEFERRED:
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for inner in ast.walk(node):
                    if isinstance(inner, ast.ImportFrom) and (inner.module or "").startswith("lanearena"):
                        hidden.append(f"{name}.{node.name}: from {inner.module}")
    assert hidden == []


def _loaded(code: str) -> str:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout


def test_the_dialects_and_the_entry_point_load_no_numpy_and_no_numba():
    code = (
        "import sys, lanearena.universe, lanearena.dialects.lane, lanearena.dialects.arena\n"
        "print(sorted(m for m in ('numpy', 'numba') if m in sys.modules))"
    )
    assert _loaded(code).strip() == "[]"


def test_the_api_and_the_passes_load_numpy_only_through_the_placement():
    """With `lanearena.placement` stood in for, importing the API and the passes loads neither (the placement's own
    imports are its business)."""
    code = (
        "import sys, types\n"
        "stub = types.ModuleType('lanearena.placement')\n"
        "stub.ALGORITHMS, stub.Buffer, stub.place, stub.PlacementError = ('best',), object, None, Exception\n"
        "sys.modules['lanearena.placement'] = stub\n"
        "import lanearena.api, lanearena.passes.arena_place, lanearena.passes.verify\n"
        "print(sorted(m for m in ('numpy', 'numba') if m in sys.modules))"
    )
    assert _loaded(code).strip() == "[]"
