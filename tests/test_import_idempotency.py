"""Re-imports are additive and idempotent, and never overwrite what a person edited."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from rag.errors import ImportFormatError, VaultError
from rag.importers import ImportReport, import_export
from rag.importers.writer import is_untouched, safe_name, stamp

EXPORTS = Path(__file__).parent / "fixtures" / "exports"
LEGACY = EXPORTS / "claude_ai_2024" / "conversations.json"
HELPER = "Conversations/claude-ai/General/2024-03-05 Sorting helper.md"
INDEX = "Conversations/claude-ai/INDEX.md"


def _export(tmp_path: Path, change) -> Path:
    data = json.loads(LEGACY.read_text(encoding="utf-8"))
    change(data)
    path = tmp_path / "changed" / "conversations.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _add_turn(data: list) -> None:
    data[0]["chat_messages"].append(
        {"uuid": "m9", "text": "One more question.", "sender": "human", "created_at": "2024-03-06T10:00:00Z", "attachments": [], "files": []}
    )


def _snapshot(vault: Path) -> dict[str, bytes]:
    return {p.relative_to(vault).as_posix(): p.read_bytes() for p in vault.rglob("*") if p.is_file()}


def test_second_import_of_the_same_export_changes_nothing(new_vault):
    first = import_export("claude-ai", LEGACY, new_vault)
    before = _snapshot(new_vault)
    second = import_export("claude-ai", LEGACY, new_vault)
    assert second.to_json() == {"created": 0, "updated": 0, "unchanged": 3, "skipped_edited": 0, "errors": []}
    assert sorted(second.unchanged) == sorted(first.created)
    assert _snapshot(new_vault) == before


def test_new_turns_update_an_unedited_note(new_vault, tmp_path):
    import_export("claude-ai", LEGACY, new_vault)
    report = import_export("claude-ai", _export(tmp_path, _add_turn), new_vault)
    assert report.updated == (HELPER, INDEX)
    assert "One more question." in (new_vault / HELPER).read_text(encoding="utf-8")


def test_an_edited_note_is_never_overwritten(new_vault, tmp_path):
    import_export("claude-ai", LEGACY, new_vault)
    note = new_vault / HELPER
    edited = note.read_text(encoding="utf-8").replace("Here it is.", "Here it is. (My own remark.)")
    note.write_text(edited, encoding="utf-8")
    report = import_export("claude-ai", _export(tmp_path, _add_turn), new_vault)
    assert report.skipped_edited == (HELPER,)
    assert note.read_text(encoding="utf-8") == edited


def test_a_note_whose_frontmatter_was_edited_counts_as_edited(new_vault, tmp_path):
    import_export("claude-ai", LEGACY, new_vault)
    note = new_vault / HELPER
    note.write_text(note.read_text(encoding="utf-8").replace('project: "General"\n', 'project: "General"\ntags: [x]\n'), encoding="utf-8")
    assert import_export("claude-ai", _export(tmp_path, _add_turn), new_vault).skipped_edited == (HELPER,)


def test_a_conversation_note_without_a_stamp_is_left_alone(vault):
    # The shared fixture vault holds a hand-made claude-ai note (conversation abc-123) with no import stamp.
    path = vault / "Conversations/claude-ai/General/2026-04-10 Bread chat.md"
    export = vault.parent / "conversations.json"
    export.write_text(
        json.dumps(
            [
                {
                    "uuid": "abc-123",
                    "name": "Bread chat",
                    "created_at": "2026-04-10T09:12:00Z",
                    "chat_messages": [{"sender": "human", "text": "New text", "created_at": "2026-04-10T09:12:00Z"}],
                }
            ]
        ),
        encoding="utf-8",
    )
    before = path.read_bytes()
    report = import_export("claude-ai", export, vault)
    assert report.skipped_edited == ("Conversations/claude-ai/General/2026-04-10 Bread chat.md",)
    assert path.read_bytes() == before


def test_edited_index_is_not_overwritten_either(new_vault, tmp_path):
    import_export("claude-ai", LEGACY, new_vault)
    index = new_vault / INDEX
    index.write_text(index.read_text(encoding="utf-8") + "\nmy notes\n", encoding="utf-8")
    report = import_export("claude-ai", _export(tmp_path, _add_turn), new_vault)
    assert report.updated == (HELPER,) and report.skipped_edited == (INDEX,)


def test_a_renamed_conversation_keeps_its_file(new_vault, tmp_path):
    import_export("claude-ai", LEGACY, new_vault)
    report = import_export("claude-ai", _export(tmp_path, lambda d: d[0].update(name="Renamed")), new_vault)
    assert HELPER in report.updated
    assert 'title: "Renamed"' in (new_vault / HELPER).read_text(encoding="utf-8")
    assert not list(new_vault.rglob("*Renamed*.md"))


def test_a_note_moved_to_another_folder_is_found_and_updated_there(new_vault, tmp_path):
    import_export("claude-ai", LEGACY, new_vault)
    moved = new_vault / "Conversations/claude-ai/Archive/helper.md"
    moved.parent.mkdir()
    (new_vault / HELPER).rename(moved)
    report = import_export("claude-ai", _export(tmp_path, _add_turn), new_vault)
    assert "Conversations/claude-ai/Archive/helper.md" in report.updated
    assert not (new_vault / HELPER).exists()


def test_an_older_export_never_shrinks_a_note(new_vault, tmp_path):
    import_export("claude-ai", _export(tmp_path, _add_turn), new_vault)
    report = import_export("claude-ai", LEGACY, new_vault)
    assert HELPER in report.unchanged
    assert any("older export" in e for e in report.errors)
    assert "One more question." in (new_vault / HELPER).read_text(encoding="utf-8")


def test_same_title_on_the_same_day_gets_distinct_stable_names(new_vault, tmp_path):
    twin = lambda d: d.append({**d[0], "uuid": "c0a1-twin"})  # noqa: E731
    first = import_export("claude-ai", _export(tmp_path, twin), new_vault)
    names = {p for p in first.created if "Sorting helper" in p}
    assert HELPER in names and len(names) == 2
    assert (names - {HELPER}).pop().endswith(f"Sorting helper ({_sha8('c0a1-twin')}).md")
    again = import_export("claude-ai", _export(tmp_path, twin), new_vault)
    assert again.created == () and names <= set(again.unchanged)


def _sha8(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]


def test_a_person_s_own_note_at_the_same_path_is_not_touched(new_vault):
    own = new_vault / HELPER
    own.parent.mkdir(parents=True)
    own.write_text("# My note\n", encoding="utf-8")
    report = import_export("claude-ai", LEGACY, new_vault)
    assert own.read_text(encoding="utf-8") == "# My note\n"
    assert any(p.startswith(HELPER.removesuffix(".md") + " (") for p in report.created)


def test_dry_run_reports_but_writes_nothing(new_vault):
    report = import_export("claude-ai", LEGACY, new_vault, dry_run=True)
    assert len(report.created) == 3
    assert list(new_vault.iterdir()) == []


def test_report_json_has_counts_and_error_messages():
    report = ImportReport(created=("a.md", "b.md"), skipped_edited=("c.md",), errors=("boom",))
    assert report.to_json() == {"created": 2, "updated": 0, "unchanged": 0, "skipped_edited": 1, "errors": ["boom"]}


def test_failed_import_leaves_the_vault_untouched(vault, tmp_path):
    before = _snapshot(vault)
    bad = tmp_path / "conversations.json"
    bad.write_text("[{", encoding="utf-8")
    with pytest.raises(ImportFormatError, match="Nothing could be imported"):
        import_export("claude-ai", bad, vault)
    assert _snapshot(vault) == before


def test_missing_vault_and_unknown_kind_are_clear_errors(tmp_path):
    with pytest.raises(VaultError, match="--vault"):
        import_export("claude-ai", LEGACY, tmp_path / "nope")
    with pytest.raises(ImportFormatError, match="claude-ai, claude-code, chatgpt"):
        import_export("gemini", LEGACY, tmp_path)
    with pytest.raises(ImportFormatError, match="does not exist"):
        import_export("claude-ai", tmp_path / "missing.zip", tmp_path)


def test_stamp_detects_any_change_to_the_text():
    text = stamp("---\ntitle: x\n---\n\nbody\n")
    assert is_untouched(text)
    assert not is_untouched(text.replace("body", "bodY"))
    assert not is_untouched(text.replace("\n", "\r\n"))
    assert not is_untouched("---\ntitle: x\n---\n\nbody\n")


@pytest.mark.parametrize(
    "title, expected",
    [
        ('a/b\\c:d*e?f"g<h>i|j#k^l[m]n', "a b c d e f g h i j k l m n"),
        ("  ..dots..  ", "dots"),
        ("CON", "_CON"),
        ("", "Untitled"),
        ("Очень " * 30, ("Очень " * 13).strip()),
        ("Photo\u202egpj.exe", "Photogpj.exe"),  # a chat title's direction override would disguise the name
        ("a\u200bb\x85c", "ab c"),  # zero-width space dropped, a C1 control is a separator like C0 ones
    ],
)
def test_file_names_are_safe_everywhere(title, expected):
    assert safe_name(title) == expected
