"""A large Claude.ai export is streamed: memory grows with one conversation, not with the file.
(The 150 MB measurement lives in bench/import_memory.py.)"""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

from rag.importers import import_export

PARAGRAPH = "Привет! Это синтетический разговор о хлебе и закваске. " * 8


def _write_export(path: Path, conversations: int, turns: int) -> None:
    """A conversations.json written one conversation at a time, Cyrillic escaped as \\uXXXX."""
    with open(path, "w", encoding="utf-8") as out:
        out.write("[")
        for i in range(conversations):
            day = f"2024-05-{1 + i % 28:02d}"
            messages = [
                {
                    "uuid": f"m{i}-{j}",
                    "sender": "human" if j % 2 == 0 else "assistant",
                    "text": f"{PARAGRAPH}\n\n```python\nprint({j})\n```",
                    "created_at": f"{day}T10:{j:02d}:00Z",
                    "updated_at": f"{day}T10:{j:02d}:00Z",
                    "attachments": [],
                    "files": [],
                }
                for j in range(turns)
            ]
            conv = {
                "uuid": f"conv-{i:06d}",
                "name": f"Разговор номер {i}",
                "created_at": f"{day}T10:00:00Z",
                "updated_at": f"{day}T11:00:00Z",
                "account": {"uuid": "acc"},
                "chat_messages": messages,
            }
            out.write(("," if i else "") + json.dumps(conv, ensure_ascii=True))
        out.write("]")


def test_five_megabyte_export_is_imported_with_memory_far_below_its_size(tmp_path):
    source = tmp_path / "conversations.json"
    _write_export(source, conversations=100, turns=20)
    size = source.stat().st_size
    assert size > 4_500_000 and b"\\u041f" in source.read_bytes()[:5000]
    vault = tmp_path / "vault"
    vault.mkdir()
    seen: list[tuple[int, int | None]] = []
    tracemalloc.start()
    try:
        report = import_export("claude-ai", source, vault, progress=lambda done, total: seen.append((done, total)))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(report.created) == 101 and report.errors == ()
    assert peak < size / 4, f"peak {peak} bytes for a {size}-byte export"
    assert seen[-1] == (size, size) and len(seen) > 100
    assert "Привет!" in next(vault.rglob("*Разговор номер 7.md")).read_text(encoding="utf-8")
