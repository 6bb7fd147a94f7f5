"""The adapters' one door (rag/__init__.py, rag/surface.py): the CLI, the MCP server and the app call `Knowledge`
or `LiveIndex` for what the library does and take the values and helpers they show from `rag.surface`; they import
nothing else below them, so a room can be rearranged without editing an adapter."""

from __future__ import annotations

import ast
from pathlib import Path

import rag.surface

ROOT = Path(__file__).resolve().parent.parent
ADAPTERS = ("rag/cli", "rag/agents", "rag/web", "app_pages", "app.py")
THEIR_OWN = ("rag.cli", "rag.agents", "rag.web", "rag.eval", "app_pages")  # rag.eval: its CLI's subcommands
DOOR = {"rag", "rag.knowledge", "rag.live", "rag.surface", "rag.config", "rag.errors"}


def adapter_files() -> list[Path]:
    out = []
    for place in ADAPTERS:
        path = ROOT / place
        out += [path] if path.suffix == ".py" else sorted(path.rglob("*.py"))
    return out


def imported(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every `rag` module the file imports, at its top or inside a function."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "rag":
            out += [(node.lineno, f"rag.{a.name}") for a in node.names] if node.module == "rag" else [(node.lineno, node.module)]
        elif isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names if a.name.split(".")[0] == "rag"]
    return out


def test_adapters_import_only_the_door_and_their_own_rooms():
    files = adapter_files()
    assert len(files) > 30  # the rule is checked on the adapters, not on an empty list
    below = [
        f"{path.relative_to(ROOT)}:{line} imports {module}"
        for path in files
        for line, module in imported(path)
        if module not in DOOR and not module.startswith(THEIR_OWN)
    ]
    assert below == [], "an adapter reaches below the door; import it from rag.surface (or call Knowledge):\n" + "\n".join(below)


def test_the_surface_hands_on_only_what_an_adapter_uses():
    used = " ".join(path.read_text(encoding="utf-8") for path in adapter_files())
    unused = [name for name in rag.surface.__all__ if name not in used]
    assert unused == []
    assert all(hasattr(rag.surface, name) for name in rag.surface.__all__)
