"""Golden-file tests: each fixture export, imported into an empty vault, gives exactly the notes under
tests/golden/import/<case>/. Regenerate with RAG_REGEN_GOLDEN=1 (never edit the golden files by hand)."""

from __future__ import annotations

import os
import shutil
import zipfile
from pathlib import Path

import pytest

from rag.importers import import_export

EXPORTS = Path(__file__).parent / "fixtures" / "exports"
GOLDEN = Path(__file__).parent / "golden" / "import"


def _files(root: Path) -> dict[str, str]:
    """The notes under `root` (not the vault's own `.ask-your-vault/` lock)."""
    files = (p for p in sorted(root.rglob("*")) if p.is_file() and ".ask-your-vault" not in p.parts)
    return {p.relative_to(root).as_posix(): p.read_text(encoding="utf-8") for p in files}


def _zip_folder(folder: Path, target: Path) -> Path:
    with zipfile.ZipFile(target, "w") as zf:
        for path in sorted(folder.iterdir()):
            zf.write(path, path.name)
    return target


def _source(case: str, tmp_path: Path) -> tuple[str, Path]:
    if case == "claude_ai_2025_zip":
        return "claude-ai", _zip_folder(EXPORTS / "claude_ai_2025", tmp_path / "export.zip")
    if case == "claude_ai_2024":
        return "claude-ai", EXPORTS / "claude_ai_2024" / "conversations.json"
    return {"claude_code": "claude-code", "chatgpt": "chatgpt"}[case], EXPORTS / case


@pytest.mark.parametrize("case", ["claude_ai_2024", "claude_ai_2025_zip", "claude_code", "chatgpt"])
def test_import_matches_golden_notes(case, tmp_path):
    kind, source = _source(case, tmp_path)
    vault = tmp_path / "vault"
    vault.mkdir()
    import_export(kind, source, vault)
    got = _files(vault)
    golden = GOLDEN / case
    if os.environ.get("RAG_REGEN_GOLDEN"):
        shutil.rmtree(golden, ignore_errors=True)
        shutil.copytree(vault, golden)
    assert got == _files(golden)
