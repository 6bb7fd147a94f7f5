"""The vault: which files are notes, how they are read, their frontmatter, tier and project."""

from __future__ import annotations

import os

import pytest

from rag.config import load_settings
from rag.errors import NoteError, VaultError
from rag.notes.vault import parse_frontmatter, project_of, read_note, tier_of, walk


def paths(settings):
    return [f.path for f in walk(settings)]


def test_walk_skips_hidden_obsidian_trash_and_index_folders(settings, vault):
    (vault / ".rag").mkdir()
    (vault / ".rag" / "x.md").write_text("# no", encoding="utf-8")
    (vault / ".git").mkdir()
    (vault / ".git" / "y.md").write_text("# no", encoding="utf-8")
    (vault / "Notes" / "image.png").write_bytes(b"\x89PNG")
    found = paths(settings)
    assert "Notes/Sourdough.md" in found and "CONTEXT.md" in found
    assert not [p for p in found if p.startswith((".", "Notes/image"))]


def test_walk_honours_ignore_globs_from_config(vault, tmp_path):
    settings = load_settings(vault=vault, db_path=tmp_path / "i.db", ignore=["Conversations/*", "Notes/Broken.md"], env={})
    found = paths(settings)
    assert not [p for p in found if p.startswith("Conversations/")]
    assert "Notes/Broken.md" not in found and "Notes/SQLite.md" in found


def test_index_folder_configured_inside_the_vault_is_skipped(vault):
    settings = load_settings(vault=vault, db_path=vault / "Index" / "index.db", env={})
    (vault / "Index").mkdir()
    (vault / "Index" / "stray.md").write_text("# stray", encoding="utf-8")
    assert "Index/stray.md" not in paths(settings)


def test_symlink_loops_do_not_hang_the_walk(settings, vault):
    os.symlink(vault, vault / "Notes" / "loop")
    found = paths(settings)
    assert found.count("Notes/Sourdough.md") == 1


def test_missing_vault_is_a_clear_error(tmp_path):
    settings = load_settings(vault=tmp_path / "nope", db_path=tmp_path / "i.db", env={})
    with pytest.raises(VaultError, match="does not exist"):
        walk(settings)


def test_invalid_utf8_and_binary_notes_are_refused_with_the_fix(vault):
    (vault / "cp1251.md").write_bytes("Привет".encode("cp1251"))
    (vault / "binary.md").write_bytes(b"\x00\x01\x02 not text")
    with pytest.raises(NoteError, match="not valid UTF-8.*Re-save it as UTF-8"):
        read_note(vault, "cp1251.md")
    with pytest.raises(NoteError, match="binary"):
        read_note(vault, "binary.md")


def test_vanished_file_is_a_note_error(vault):
    with pytest.raises(NoteError, match="vanished"):
        read_note(vault, "Notes/gone.md")


def test_crlf_and_bom_are_normalised(vault):
    (vault / "bom.md").write_bytes(b"\xef\xbb\xbf# T\r\nline\r\n")
    assert read_note(vault, "bom.md").text == "# T\nline\n"


def test_frontmatter_title_aliases_tags_and_project():
    fm = parse_frontmatter("---\ntitle: T\naliases: [A, B]\ntags:\n  - x\n  - '#хлеб'\nproject: P\n---\nbody")
    assert (fm.title, fm.aliases, fm.tags, fm.project, fm.line_count) == ("T", ("A", "B"), ("x", "хлеб"), "P", 8)


def test_bad_yaml_frontmatter_is_reported_not_raised():
    fm = parse_frontmatter("---\ntitle: [unclosed\n---\n# Body")
    assert fm.error and "not valid YAML" in fm.error
    assert fm.line_count == 3 and fm.title is None


def test_tiers_and_projects_work_at_any_depth(settings):
    assert tier_of("CONTEXT.md", settings) == 1
    assert tier_of("Memory/Preferences.md", settings) == 1
    assert tier_of("Projects/Alpha/Notes/Sensors.md", settings) == 1
    assert tier_of("Projects/Alpha/Overview.md", settings) == 1
    assert tier_of("Conversations/claude-ai/General/x.md", settings) == 2
    assert tier_of("Daily/2026-05-02.md", settings) == 2
    assert project_of("Projects/Alpha/Notes/Sensors.md", settings) == "Alpha"
    assert project_of("Work/Projects/Beta/x.md", settings) == "Beta"
    assert project_of("Notes/x.md", settings) is None


def test_project_aliases_normalise_names(vault, tmp_path):
    settings = load_settings(vault=vault, db_path=tmp_path / "i.db", project_aliases={"alpha-old": "Alpha"}, env={})
    assert project_of("Projects/alpha-old/x.md", settings) == "Alpha"
