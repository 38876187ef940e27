"""The package's shape, as issue 31 measures it: its files over 400 lines and its functions over 60 lines (a
function's lines from its `def` to its last line, decorators and docstring included), each listed longest first,
with their counts.

    python bench/structure.py [--files 400] [--functions 60] [PACKAGE_DIR]
"""

from __future__ import annotations

import argparse
import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "lanearena"


def long_files(root: Path, most: int) -> list[tuple[int, str]]:
    """Each `.py` file under `root` of more than `most` lines: its lines and its path, longest first."""
    sizes = [(len(p.read_text().splitlines()), str(p.relative_to(root.parent))) for p in sorted(root.rglob("*.py"))]
    return sorted(((n, p) for n, p in sizes if n > most), reverse=True)


def long_functions(root: Path, most: int) -> list[tuple[int, str]]:
    """Each function (or method) under `root` of more than `most` lines: its lines and `path:qualified.name`."""
    out = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text())
        out += [(n, f"{path.relative_to(root.parent)}:{name}") for name, n in _functions(tree, "") if n > most]
    return sorted(out, reverse=True)


def _functions(node: ast.AST, prefix: str) -> list[tuple[str, int]]:
    out = []
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            name = prefix + child.name
            if not isinstance(child, ast.ClassDef):
                first = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                assert child.end_lineno is not None
                out.append((name, child.end_lineno - first + 1))
            out += _functions(child, name + ".")
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("package", nargs="?", type=Path, default=PACKAGE)
    p.add_argument("--files", type=int, default=400, help="list files of more lines than this")
    p.add_argument("--functions", type=int, default=60, help="list functions of more lines than this")
    args = p.parse_args()
    files, functions = long_files(args.package, args.files), long_functions(args.package, args.functions)
    print(f"files over {args.files} lines: {len(files)}")
    for n, where in files:
        print(f"  {n:5d}  {where}")
    print(f"functions over {args.functions} lines: {len(functions)}")
    for n, where in functions:
        print(f"  {n:5d}  {where}")


if __name__ == "__main__":
    main()
