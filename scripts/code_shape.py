"""The shape of the code: modules per folder, the longest function, the largest module, the import graph's depth.

    python scripts/code_shape.py [--json]

Counts the `rag` package (and app.py / app_pages). Depth = the longest chain of internal imports (a cycle counts once).
"""

from __future__ import annotations

import argparse
import ast
import json
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def modules() -> dict[str, Path]:
    found = {}
    for path in sorted([*ROOT.glob("rag/**/*.py"), ROOT / "app.py", *ROOT.glob("app_pages/*.py")]):
        rel = path.relative_to(ROOT).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def internal_imports(name: str, path: Path, known: set[str]) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = set()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(tree):
        targets = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            targets = [base] + [f"{base}.{a.name}" for a in node.names]
        for t in targets:
            while t and t not in known:
                t = t.rpartition(".")[0]
            if t and t != name:
                out.add(t)
    return out


def depth(graph: dict[str, set[str]]) -> int:
    memo: dict[str, int] = {}

    def walk(node: str, stack: frozenset) -> int:
        if node in memo:
            return memo[node]
        best = 0
        for nxt in graph.get(node, ()):
            if nxt not in stack:
                best = max(best, 1 + walk(nxt, stack | {nxt}))
        memo[node] = best
        return best

    return max((walk(n, frozenset({n})) for n in graph), default=0)


def shape() -> dict:
    mods = modules()
    known = set(mods)
    graph = {name: internal_imports(name, path, known) for name, path in mods.items()}
    folders = Counter(str(p.parent.relative_to(ROOT)) for p in mods.values())
    longest = ("", 0)
    largest = ("", 0)
    for path in mods.values():
        text = path.read_text(encoding="utf-8")
        largest = max(largest, (str(path.relative_to(ROOT)), text.count("\n")), key=lambda x: x[1])
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                size = node.end_lineno - node.lineno + 1
                if size > longest[1]:
                    longest = (f"{path.relative_to(ROOT)}:{node.name}", size)
    return {
        "modules": len(mods),
        "modules_per_folder": dict(sorted(folders.items())),
        "longest_function": {"where": longest[0], "lines": longest[1]},
        "largest_module": {"where": largest[0], "lines": largest[1]},
        "import_depth": depth(graph),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = shape()
    print(json.dumps(result, indent=None if args.json else 2))


if __name__ == "__main__":
    main()
