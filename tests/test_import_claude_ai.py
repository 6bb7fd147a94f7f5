"""Claude.ai exports: both schemas, Cyrillic, artifacts, projects and memory, malformed and wrong files."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from rag.errors import ImportFormatError
from rag.importers import import_export
from rag.importers.claude_ai import legacy_text

EXPORTS = Path(__file__).parent / "fixtures" / "exports"
LEGACY = EXPORTS / "claude_ai_2024" / "conversations.json"
BLOCKS = EXPORTS / "claude_ai_2025"


def _note(new_vault: Path, rel: str) -> str:
    return (new_vault / rel).read_text(encoding="utf-8")


def test_escaped_cyrillic_is_written_as_readable_utf8(new_vault):
    assert "\\u0420" in LEGACY.read_text(encoding="utf-8")  # the fixture escapes Cyrillic like real exports
    import_export("claude-ai", LEGACY, new_vault)
    text = _note(new_vault, "Conversations/claude-ai/General/2024-04-01 Рецепт борща.md")
    assert 'title: "Рецепт борща"' in text and "Как сварить борщ?" in text and "🍲" in text


def test_messages_are_put_in_time_order(new_vault):
    import_export("claude-ai", LEGACY, new_vault)
    text = _note(new_vault, "Conversations/claude-ai/General/2024-03-05 Sorting helper.md")
    assert text.index("sorts words by length") < text.index("Here it is") < text.index("make it descending")


def test_legacy_artifact_becomes_a_titled_fenced_block_that_survives_backticks():
    text = legacy_text(
        'Intro\n<antArtifact identifier="x" type="application/vnd.ant.code" language="python" title="Demo">\nprint("```")\n</antArtifact>\nOutro'
    )
    assert text == 'Intro\n\n**Artifact: Demo** · `application/vnd.ant.code`\n\n````python\nprint("```")\n````\n\nOutro'


def test_unclosed_artifact_keeps_the_rest_of_the_message_as_its_body():
    text = legacy_text('<antArtifact type="text/html" title="Cut">\n<p>half')
    assert text.endswith("```html\n<p>half\n```")


def test_empty_conversations_are_not_imported(new_vault):
    report = import_export("claude-ai", LEGACY, new_vault)
    assert not any("c0a3" in path for path in report.created)
    assert len(list((new_vault / "Conversations/claude-ai/General").glob("*.md"))) == 2


def test_new_schema_keeps_text_thinking_tools_voice_and_attachments(new_vault):
    import_export("claude-ai", BLOCKS, new_vault)
    text = _note(new_vault, "Conversations/claude-ai/General/2025-06-10 Trip budget plan v2.md")
    for expected in (
        "*Voice note:* Plan a two-day trip",
        "> [!thinking]- Thinking",
        "**Tool: web_search**",
        "print(80*2 + 60 + 15)",
        "**Artifact: Budget**",
        "hotel 80/night",
        "*Files:* map.png, ticket.pdf",
        "Fallback text when content is empty",
    ):
        assert expected in text


def test_unknown_block_types_are_reported_and_the_rest_is_imported(new_vault):
    report = import_export("claude-ai", BLOCKS, new_vault)
    assert any("hologram" in e for e in report.errors)
    assert "Total: **235 EUR**." in _note(new_vault, "Conversations/claude-ai/General/2025-06-10 Trip budget plan v2.md")


def test_projects_get_a_note_and_their_conversations_a_folder(new_vault):
    import_export("claude-ai", BLOCKS, new_vault)
    project = _note(new_vault, "Conversations/claude-ai/Research Reports/2025-01-20 Project Research Reports.md")
    assert "Answer in Russian, briefly." in project and "Use short sentences." in project
    assert "first Monday of the quarter" in project
    assert (new_vault / "Conversations/claude-ai/Research Reports/2025-06-11 Отчёт по проекту.md").exists()
    assert not list(new_vault.rglob("*How to use Claude*"))  # the starter project is left out


def test_account_memory_becomes_a_note(new_vault):
    import_export("claude-ai", BLOCKS, new_vault)
    assert "prefers trains" in _note(new_vault, "Conversations/claude-ai/General/Claude memory.md")


def test_truncated_json_imports_the_complete_conversations_and_reports_the_cut(new_vault, tmp_path):
    raw = LEGACY.read_bytes()
    cut = tmp_path / "conversations.json"
    cut.write_bytes(raw[: raw.index(b'"c0a2-cyrillic"') + 200])
    report = import_export("claude-ai", cut, new_vault)
    assert [p for p in report.created if "Sorting helper" in p]
    assert len(report.errors) == 1 and "cut off" in report.errors[0] and "Export the data again" in report.errors[0]


def test_conversation_with_missing_fields_is_skipped_with_a_message(new_vault, tmp_path):
    good = json.loads(LEGACY.read_text(encoding="utf-8"))[0]
    source = tmp_path / "conversations.json"
    source.write_text(json.dumps([{"name": "no uuid", "chat_messages": []}, good]), encoding="utf-8")
    report = import_export("claude-ai", source, new_vault)
    assert len(report.created) == 2  # the good conversation and INDEX.md
    assert any("#1" in e and "no uuid" in e for e in report.errors)


def test_chatgpt_export_given_as_claude_ai_names_the_right_command(new_vault):
    with pytest.raises(ImportFormatError, match="import chatgpt"):
        import_export("claude-ai", EXPORTS / "chatgpt" / "conversations.json", new_vault)
    assert not list(new_vault.iterdir())


def test_file_that_is_not_json_is_refused_with_a_hint(new_vault, tmp_path):
    bogus = tmp_path / "notes.txt"
    bogus.write_text("just some text", encoding="utf-8")
    with pytest.raises(ImportFormatError, match="not JSON.*export .zip"):
        import_export("claude-ai", bogus, new_vault)


def test_zip_without_conversations_json_is_refused(new_vault, tmp_path):
    archive = tmp_path / "other.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("photo.txt", "nothing here")
    with pytest.raises(ImportFormatError, match="No conversations.json"):
        import_export("claude-ai", archive, new_vault)
