"""Claude Code session logs: grouping by message id, tool summaries, skipped record types, subagents."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rag.errors import ImportFormatError
from rag.importers import import_export

PROJECT = Path(__file__).parent / "fixtures" / "exports" / "claude_code" / "-home-u-projects-bakery"
SESSION = "5e551011-0000-4000-8000-000000000001"
MAIN_NOTE = "Conversations/claude-code/bakery-wt-fix/2026-01-15 Почему тесты падают Run them please.md"


def _main(vault: Path) -> str:
    return (vault / MAIN_NOTE).read_text(encoding="utf-8")


def test_blocks_of_one_message_form_one_turn_even_with_tool_results_between(new_vault):
    import_export("claude-code", PROJECT, new_vault)
    text = _main(new_vault)
    # msg_A: thinking, text, Bash, (tool result line), Read — one block run, in order, under one heading.
    turn = text.split("## Claude · ")[1].split("## ")[0]
    assert turn.index("Run the suite first.") < turn.index("Let me run the tests.") < turn.index("**Bash**") < turn.index("**Read**")
    assert "- **Bash** `pytest -q` → `2 failed, 10 passed in 0.31s …`\n- **Read** " in turn
    assert "messages: 9" in text  # user prompts + distinct assistant message ids + the compaction summary


def test_tool_calls_are_summarised_by_their_key_input_and_result(new_vault):
    import_export("claude-code", PROJECT, new_vault)
    text = _main(new_vault)
    assert "- **Task** `Find fixture usage (Explore)` → `Used in tests/test_oven.py only.`" in text
    assert "- **Edit** `/home/u/projects/bakery/tests/conftest.py` → error: `The user doesn't want" in text
    assert "old_string" not in text and "iVBORw0KGgo" not in text  # no raw inputs, no image data


def test_progress_snapshots_queue_system_and_meta_records_are_left_out(new_vault):
    import_export("claude-code", PROJECT, new_vault)
    text = _main(new_vault)
    for noise in ("hook_progress", "SessionStart", "also check lint", "turn_duration", "system-reminder", "Compacted", "trackedFileBackups"):
        assert noise not in text
    assert "`/compact keep the test names`" in text
    assert "> [!summary]- Summary of the earlier conversation" in text


def test_session_with_no_messages_is_not_imported(new_vault):
    report = import_export("claude-code", PROJECT, new_vault)
    assert len(report.created) == 3  # main session, subagent, INDEX.md — not the empty session
    assert report.errors == ()


def test_subagent_session_links_to_its_parent(new_vault):
    import_export("claude-code", PROJECT, new_vault)
    sub = next(new_vault.rglob("*Subagent*.md")).read_text(encoding="utf-8")
    assert f'conversation_id: "{SESSION}/agent-a1b2c3d"' in sub
    assert f'parent: "{SESSION}"' in sub
    assert f"Subagent of [[{MAIN_NOTE.removesuffix('.md')}]]." in sub


def test_project_names_go_through_the_alias_table(new_vault):
    import_export("claude-code", PROJECT, new_vault, project_aliases={"Bakery-WT-Fix": "Bakery"})
    assert (new_vault / MAIN_NOTE.replace("bakery-wt-fix", "Bakery")).exists()
    assert 'project: "Bakery"' in (new_vault / MAIN_NOTE.replace("bakery-wt-fix", "Bakery")).read_text(encoding="utf-8")


def test_broken_lines_are_reported_and_the_rest_is_imported(new_vault, tmp_path):
    lines = (PROJECT / f"{SESSION}.jsonl").read_text(encoding="utf-8").splitlines()
    broken = tmp_path / "logs" / "s.jsonl"
    broken.parent.mkdir()
    broken.write_text("\n".join(lines[:5] + ["{not json", lines[5][:40]]) + "\n", encoding="utf-8")
    report = import_export("claude-code", broken.parent, new_vault)
    assert len(report.created) == 2
    assert len(report.errors) == 1 and "2 line(s) are not valid JSON (line 6, 7)" in report.errors[0]


def test_progress_is_reported_per_session_file(new_vault):
    calls = []
    import_export("claude-code", PROJECT, new_vault, progress=lambda done, total: calls.append((done, total)))
    assert calls == [(1, 3), (2, 3), (3, 3)]


def test_a_json_export_given_as_claude_code_is_refused(new_vault):
    with pytest.raises(ImportFormatError, match="not a .jsonl session log"):
        import_export("claude-code", PROJECT.parent.parent / "chatgpt" / "conversations.json", new_vault)


def test_a_folder_without_session_logs_is_refused(new_vault, tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(ImportFormatError, match="No .jsonl session logs"):
        import_export("claude-code", tmp_path / "empty", new_vault)


def test_a_jsonl_of_something_else_imports_nothing_and_says_so(new_vault, tmp_path):
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps({"event": "click"}) + "\n", encoding="utf-8")
    report = import_export("claude-code", other, new_vault)
    assert report.to_json() == {"created": 0, "updated": 0, "unchanged": 0, "skipped_edited": 0, "errors": []}


def test_a_lone_surrogate_in_a_prompt_does_not_break_the_file_name(new_vault, tmp_path):
    session = tmp_path / "s.jsonl"
    record = {
        "type": "user",
        "sessionId": "s-1",
        "timestamp": "2026-01-01T00:00:00Z",
        "message": {"role": "user", "content": "broken \\ud800 emoji \\ud83d\\ude00"},
    }
    session.write_text(json.dumps(record).replace("\\\\u", "\\u") + "\n", encoding="utf-8")
    report = import_export("claude-code", session, new_vault)
    assert report.created[0].endswith("2026-01-01 broken \ufffd emoji 😀.md")
