"""ChatGPT exports: the current branch of the mapping tree, hidden messages, code, multimodal parts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rag.errors import ImportFormatError
from rag.importers import import_export
from rag.importers.chatgpt import branch

EXPORT = Path(__file__).parent / "fixtures" / "exports" / "chatgpt" / "conversations.json"
NOTE = "Conversations/chatgpt/General/2025-01-15 Arithmetic and bread.md"


def _note(vault: Path) -> str:
    return (vault / NOTE).read_text(encoding="utf-8")


def test_only_the_current_branch_is_imported(new_vault):
    import_export("chatgpt", EXPORT, new_vault)
    text = _note(new_vault)
    assert "Five (this branch was regenerated away)" not in text
    assert "print(2 + 2)" in text and "It is **4**." in text


def test_branch_walk_survives_cycles_and_dangling_parents():
    mapping = {"a": {"parent": "b"}, "b": {"parent": "a"}, "c": {"parent": "gone"}}
    assert branch(mapping, "a") == ["b", "a"]
    assert branch(mapping, "c") == ["c"]


def test_hidden_system_and_custom_instruction_messages_are_skipped(new_vault):
    import_export("chatgpt", EXPORT, new_vault)
    text = _note(new_vault)
    assert "I am a baker" not in text and "Be brief" not in text
    assert "## System" not in text


def test_code_tool_output_and_multimodal_parts_are_kept(new_vault):
    import_export("chatgpt", EXPORT, new_vault)
    text = _note(new_vault)
    assert "**Tool call → python**\n\n```python\nprint(2 + 2)\n```" in text
    assert "*Tool result (python):* `4`" in text
    assert "[image]\n\nWhat is in this picture?" in text
    assert "\ue200" not in text and "turn0search1" not in text  # citation markers are stripped


def test_project_conversations_use_the_alias_table(new_vault):
    import_export("chatgpt", EXPORT, new_vault, project_aliases={"g-p-67a1b2c3d4e5": "Sprints"})
    note = new_vault / "Conversations/chatgpt/Sprints/2025-01-16 Sprint plan.md"
    assert 'project: "Sprints"' in note.read_text(encoding="utf-8")


def test_missing_current_node_falls_back_to_the_newest_branch(new_vault, tmp_path):
    data = json.loads(EXPORT.read_text(encoding="utf-8"))
    data[0]["current_node"] = "no-such-node"
    source = tmp_path / "conversations.json"
    source.write_text(json.dumps(data), encoding="utf-8")
    report = import_export("chatgpt", source, new_vault)
    assert any("current_node is missing" in e for e in report.errors)
    assert "A loaf of bread" in _note(new_vault)


def test_unknown_content_types_are_reported_and_the_rest_is_imported(new_vault, tmp_path):
    data = json.loads(EXPORT.read_text(encoding="utf-8"))
    data[0]["mapping"]["a2"]["message"]["content"] = {"content_type": "hologram", "data": 1}
    source = tmp_path / "conversations.json"
    source.write_text(json.dumps(data), encoding="utf-8")
    report = import_export("chatgpt", source, new_vault)
    assert any("hologram ×1" in e for e in report.errors)
    assert "A loaf of bread" in _note(new_vault)


def test_claude_export_given_as_chatgpt_names_the_right_command(new_vault):
    legacy = EXPORT.parent.parent / "claude_ai_2024" / "conversations.json"
    with pytest.raises(ImportFormatError, match="import claude-ai"):
        import_export("chatgpt", legacy, new_vault)


def test_json_object_instead_of_a_list_is_refused(new_vault, tmp_path):
    source = tmp_path / "conversations.json"
    source.write_text('{"mapping": {}}', encoding="utf-8")
    with pytest.raises(ImportFormatError, match="is a JSON object, not a list of ChatGPT conversations"):
        import_export("chatgpt", source, new_vault)
