"""Notes an agent reads and writes (rag.notes.files) and the project catalog (rag.projects), on real files and a real
SQLite index: paths confined to the vault, hash-guarded atomic writes, dated commits that never overwrite."""

from __future__ import annotations

import hashlib
import threading
from datetime import UTC, datetime

import pytest

from rag.errors import ConflictError, NoteError, VaultError
from rag.notes.files import MAX_READ_CHARS, append_note, confine, create_note, read_text, write_note
from rag.notes.vault import parse_frontmatter
from rag.projects import commit_decision, commit_session, list_notes, list_projects, project_context

NOON = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)


def sha(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# --- confinement ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["../x.md", "Notes/../../x.md", "/etc/passwd", "~/x.md", "C:\\x.md", "..\\x.md", "", "  "])
def test_paths_that_leave_the_vault_or_are_empty_are_refused(settings, path):
    with pytest.raises(VaultError):
        confine(settings, path)


@pytest.mark.parametrize("path", [".rag/index.db", ".obsidian/app.md", ".trash/old.md", "Notes/.hidden.md", "node_modules/x.md"])
def test_hidden_and_internal_folders_are_refused(settings, path):
    with pytest.raises(VaultError, match="off limits"):
        confine(settings, path)


def test_a_symlink_out_of_the_vault_is_refused(settings, vault, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("secret", encoding="utf-8")
    (vault / "Notes" / "escape").symlink_to(outside)
    (vault / "Notes" / "link.md").symlink_to(outside / "secret.md")
    for path in ("Notes/escape/secret.md", "Notes/link.md", "Notes/escape/new.md"):
        with pytest.raises(VaultError, match="outside the vault"):
            confine(settings, path)


def test_a_symlink_loop_is_refused_with_a_clear_error(settings, vault):
    (vault / "Notes" / "loop.md").symlink_to(vault / "Notes" / "loop.md")
    with pytest.raises(VaultError):
        read_text(settings, "Notes/loop.md")


def test_an_index_folder_inside_the_vault_is_refused_even_when_not_hidden(settings, vault):
    moved = settings.replace(db_path=vault / "index" / "index.db")
    (vault / "index").mkdir()
    with pytest.raises(VaultError, match="index folder"):
        confine(moved, "index/notes.md")


def test_an_index_beside_the_vault_does_not_lock_the_vault_out(settings, vault):
    beside = settings.replace(db_path=vault.parent / "index.db")  # the index folder holds the vault folder
    assert confine(beside, "Notes/SQLite.md")[0] == "Notes/SQLite.md"


def test_backslashes_and_dot_segments_are_normalised(settings, vault):
    rel, full = confine(settings, "Notes\\./SQLite.md")
    assert rel == "Notes/SQLite.md" and full == vault / "Notes" / "SQLite.md"


# --- reading --------------------------------------------------------------------------------------------------


def test_read_returns_the_text_and_the_hash_of_the_bytes_on_disk(settings, vault):
    note = read_text(settings, "Notes/Windows.md")  # saved with CRLF
    assert note.sha256 == sha(vault / "Notes" / "Windows.md")
    assert "\r" not in note.content and note.content.startswith("# Windows note\n")
    assert (note.start_line, note.end_line, note.total_lines, note.truncated) == (1, 4, 4, False)


def test_read_a_line_range_is_one_based_and_inclusive(settings):
    note = read_text(settings, "Notes/SQLite.md", start_line=3, end_line=3)
    assert note.content == "WAL mode lets readers continue while one writer commits.\n"
    assert (note.start_line, note.end_line) == (3, 3)


def test_a_range_past_the_end_says_how_many_lines_there_are(settings):
    with pytest.raises(VaultError, match="only 4 lines"):
        read_text(settings, "Notes/Windows.md", start_line=10)


def test_a_huge_note_is_read_in_bounded_pieces_of_whole_lines(settings, vault):
    line = "x" * 99 + "\n"
    (vault / "Notes" / "Huge.md").write_text(line * 50_000, encoding="utf-8")  # 5 MB
    first = read_text(settings, "Notes/Huge.md")
    assert first.truncated and len(first.content) <= MAX_READ_CHARS and first.content.endswith("\n")
    assert first.end_line == MAX_READ_CHARS // 100 and first.total_lines == 50_000
    second = read_text(settings, "Notes/Huge.md", start_line=first.end_line + 1)
    assert second.start_line == first.end_line + 1 and second.sha256 == first.sha256


def test_a_single_line_longer_than_the_limit_is_cut(settings, vault):
    (vault / "Notes" / "Wide.md").write_text("y" * 100_000, encoding="utf-8")
    note = read_text(settings, "Notes/Wide.md", max_chars=1000)
    assert note.content == "y" * 1000 and note.truncated and note.end_line == 1


def test_missing_binary_and_non_markdown_files_are_clear_errors(settings, vault):
    (vault / "Notes" / "bin.md").write_bytes(b"\x00\x01\x02")
    (vault / "Notes" / "data.txt").write_text("text", encoding="utf-8")
    with pytest.raises(VaultError, match="no note"):
        read_text(settings, "Notes/Nope.md")
    with pytest.raises(NoteError, match="binary"):
        read_text(settings, "Notes/bin.md")
    with pytest.raises(VaultError, match="not a Markdown note"):
        read_text(settings, "Notes/data.txt")


# --- writing --------------------------------------------------------------------------------------------------


def test_write_creates_a_note_and_its_folders(settings, vault):
    written = write_note(settings, "Inbox/Ideas/new.md", "# New\n\nНовая мысль.\n")
    assert written.created and written.path == "Inbox/Ideas/new.md"
    assert (vault / "Inbox" / "Ideas" / "new.md").read_text(encoding="utf-8") == "# New\n\nНовая мысль.\n"
    assert written.sha256 == sha(vault / "Inbox" / "Ideas" / "new.md")


def test_replacing_needs_the_hash_that_was_read(settings, vault):
    before = (vault / "Notes" / "SQLite.md").read_bytes()
    with pytest.raises(ConflictError, match="already exists"):
        write_note(settings, "Notes/SQLite.md", "gone")
    assert (vault / "Notes" / "SQLite.md").read_bytes() == before
    note = read_text(settings, "Notes/SQLite.md")
    written = write_note(settings, "Notes/SQLite.md", "# SQLite\n\nRewritten.\n", expected_sha256=note.sha256)
    assert not written.created and (vault / "Notes" / "SQLite.md").read_text(encoding="utf-8") == "# SQLite\n\nRewritten.\n"


def test_a_stale_hash_is_a_conflict_and_the_edit_made_since_survives(settings, vault):
    note = read_text(settings, "Notes/SQLite.md")
    (vault / "Notes" / "SQLite.md").write_text("# SQLite\n\nThe person's edit.\n", encoding="utf-8")
    with pytest.raises(ConflictError, match="changed since it was read.*Read it again"):
        write_note(settings, "Notes/SQLite.md", "the agent's version", expected_sha256=note.sha256)
    assert (vault / "Notes" / "SQLite.md").read_text(encoding="utf-8") == "# SQLite\n\nThe person's edit.\n"


def test_a_hash_for_a_note_that_vanished_is_a_conflict(settings, vault):
    note = read_text(settings, "Notes/SQLite.md")
    (vault / "Notes" / "SQLite.md").unlink()
    with pytest.raises(ConflictError, match="no longer exists"):
        write_note(settings, "Notes/SQLite.md", "x", expected_sha256=note.sha256)


def test_only_markdown_files_can_be_written(settings, vault):
    for path in ("Notes/script.py", "Notes/data.txt", "Notes/SQLite.md.bak", "Notes"):
        with pytest.raises(VaultError):
            write_note(settings, path, "print('hi')")
    assert not (vault / "Notes" / "script.py").exists()


def test_writing_through_a_symlink_inside_the_vault_is_refused(settings, vault):
    (vault / "Notes" / "alias.md").symlink_to(vault / "Notes" / "SQLite.md")
    with pytest.raises(VaultError, match="symbolic link"):
        write_note(settings, "Notes/alias.md", "x", expected_sha256=sha(vault / "Notes" / "SQLite.md"))


def test_a_replace_keeps_crlf_line_endings_and_leaves_no_temp_files(settings, vault):
    note = read_text(settings, "Notes/Windows.md")
    write_note(settings, "Notes/Windows.md", "# Windows note\nEdited.\n", expected_sha256=note.sha256)
    assert (vault / "Notes" / "Windows.md").read_bytes() == b"# Windows note\r\nEdited.\r\n"
    assert sorted(p.name for p in (vault / "Notes").iterdir() if p.name.startswith(".")) == []


def test_two_writers_with_the_same_hash_cannot_both_win(settings, vault):
    note = read_text(settings, "Notes/SQLite.md")
    outcomes: list[str] = []

    def writer(i: int) -> None:
        try:
            write_note(settings, "Notes/SQLite.md", f"version {i}\n", expected_sha256=note.sha256)
            outcomes.append("ok")
        except ConflictError:
            outcomes.append("conflict")

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["conflict"] * 7 + ["ok"]


def test_append_adds_text_on_a_new_line(settings, vault):
    path = vault / "Memory" / "Preferences.md"
    path.write_bytes(path.read_bytes().rstrip(b"\n"))  # no final newline
    written = append_note(settings, "Memory/Preferences.md", "- Tea: sencha.")
    assert path.read_text(encoding="utf-8").endswith("- Любимый чай: пуэр.\n- Tea: sencha.\n")
    assert written.sha256 == sha(path) and not written.created


def test_append_with_a_stale_hash_is_a_conflict_and_to_a_missing_note_an_error(settings, vault):
    note = read_text(settings, "Memory/Preferences.md")
    append_note(settings, "Memory/Preferences.md", "- one")
    with pytest.raises(ConflictError):
        append_note(settings, "Memory/Preferences.md", "- two", expected_sha256=note.sha256)
    assert "- two" not in (vault / "Memory" / "Preferences.md").read_text(encoding="utf-8")
    with pytest.raises(VaultError, match="no note"):
        append_note(settings, "Memory/Nope.md", "- x")


def test_create_never_replaces(settings):
    with pytest.raises(ConflictError):
        create_note(settings, "Notes/SQLite.md", "x")


# --- projects -------------------------------------------------------------------------------------------------


def test_commit_writes_a_dated_note_with_frontmatter_in_the_projects_decisions(settings, workspace, vault):
    workspace.sync()
    written = commit_decision(settings, workspace.store, "Use WAL mode", "Readers must not block.", project="alpha", now=NOON)
    assert written.path == "Projects/Alpha/Decisions/2026-05-01 Use WAL mode.md" and written.created
    text = (vault / written.path).read_text(encoding="utf-8")
    fm = parse_frontmatter(text)
    assert (fm.title, fm.project, fm.error) == ("Use WAL mode", "Alpha", None)
    assert "kind: decision" in text and "date: '2026-05-01'" in text and text.endswith("# Use WAL mode\n\nReaders must not block.\n")


def test_commit_never_overwrites_and_cleans_unsafe_titles(settings, workspace, vault):
    first = commit_session(settings, workspace.store, "Refactor: sync/walk?", "Done.", project="Beta", now=NOON)
    second = commit_session(settings, workspace.store, "Refactor: sync/walk?", "Again.", project="Beta", now=NOON)
    assert first.path == "Projects/Beta/Sessions/2026-05-01 Refactor sync walk.md"
    assert second.path == "Projects/Beta/Sessions/2026-05-01 Refactor sync walk (2).md"
    assert (vault / first.path).read_text(encoding="utf-8").endswith("Done.\n")
    root = commit_decision(settings, workspace.store, "../../escape", "x", project="../..", now=NOON)
    assert root.path.startswith("Projects/") and ".." not in root.path


def test_project_context_starts_with_the_overview_then_profile_then_recent_decisions(settings, workspace, vault):
    workspace.sync()
    commit_decision(settings, workspace.store, "Newer decision", "Chosen later.", project="Alpha", now=NOON)
    workspace.sync()
    context = project_context(settings, workspace.store, "Alpha")
    roles = [(n.role, n.path) for n in context.notes]
    assert roles[0] == ("overview", "Projects/Alpha/Overview.md")
    assert ("profile", "CONTEXT.md") in roles
    decisions = [p for r, p in roles if r == "decision"]
    assert decisions == ["Projects/Alpha/Decisions/2026-05-01 Newer decision.md", "Projects/Alpha/Decisions/2026-03-14 Use SQLite.md"]
    assert all(n.sha256 == sha(vault / n.path) for n in context.notes)


def test_project_context_stays_within_its_size_limit_and_lists_what_was_left_out(settings, workspace, vault):
    (vault / "Projects" / "Alpha" / "Decisions" / "2026-04-01 Long.md").write_text("# Long\n" + "word " * 3000 + "\n", encoding="utf-8")
    workspace.sync()
    context = project_context(settings, workspace.store, "Alpha", max_chars=1000)
    assert context.chars <= 1000 and context.omitted
    with pytest.raises(VaultError, match="Known projects: Alpha"):
        project_context(settings, workspace.store, "Gamma")


def test_list_notes_gives_size_date_tier_and_project_and_filters_by_folder(settings, workspace):
    workspace.sync()
    listing = list_notes(settings, workspace.store, "Projects/Alpha")
    assert [n.path for n in listing.notes] == [
        "Projects/Alpha/Decisions/2026-03-14 Use SQLite.md",
        "Projects/Alpha/Notes/Sensors.md",
        "Projects/Alpha/Overview.md",
    ]
    assert {n.project for n in listing.notes} == {"Alpha"} and listing.total == 3
    assert [n.tier for n in listing.notes] == [2, 1, 1] and listing.notes[0].size > 0 and "T" in listing.notes[0].modified
    everything = list_notes(settings, workspace.store, limit=2)
    assert len(everything.notes) == 2 and everything.total == 11
    with pytest.raises(VaultError, match="no folder"):
        list_notes(settings, workspace.store, "Nowhere")


def test_projects_are_listed_with_counts_and_overview(settings, workspace):
    workspace.sync()  # the Alpha folder's three notes and a conversation whose frontmatter names Alpha
    [alpha] = list_projects(settings, workspace.store)
    assert (alpha.name, alpha.notes, alpha.decisions, alpha.sessions, alpha.overview) == ("Alpha", 4, 1, 0, "Projects/Alpha/Overview.md")


def test_a_new_note_in_a_new_folder_is_inside_the_vault(settings, vault):
    rel, full = confine(settings, "Notes/New folder/new.md")
    assert rel == "Notes/New folder/new.md" and full == vault / "Notes" / "New folder" / "new.md"
