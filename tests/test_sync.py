"""Incremental sync: unchanged files cost a stat, only new text is embedded, the index stays consistent."""

from __future__ import annotations

import os

import pytest

from rag.devtools.index_checks import consistency  # also imported from here by the other tests
from rag.index import vocabulary
from rag.index.language_reference import reference_texts
from rag.text import stemming
from rag.workspace import Workspace

pytestmark = pytest.mark.both_backends  # the index's behaviour, in SQLite and in PostgreSQL


def test_first_sync_indexes_every_note_and_embeds_every_chunk(workspace, fake_embedder):
    report = workspace.sync()
    assert report.files_added == 11
    assert report.chunks_total > 15  # the fixture settings use small chunks, so several notes have several
    assert report.chunks_embedded == report.chunks_total
    reference = [text for texts in reference_texts().values() for text in texts]
    words = vocabulary.word_vectors(workspace.store, fake_embedder)[0]
    after_chunks = fake_embedder.embedded[report.chunks_total :]
    assert after_chunks[: len(reference)] == reference  # once, at the end, then the vault's words once each
    assert sorted(map(stemming.stem, after_chunks[len(reference) :])) == sorted(words) and "bread" in words  # a row per stem
    assert report.vectors_missing == 0
    state = consistency(workspace.settings.db_url or workspace.store.path)
    assert state["chunks"] == state["fts"] and state["no_file"] == 0 and state["orphan_vectors"] == 0


def test_unchanged_notes_are_not_re_read_or_re_embedded(workspace, fake_embedder):
    workspace.sync()
    fake_embedder.embedded.clear()
    report = workspace.sync()
    assert (report.files_unchanged, report.files_updated, report.chunks_embedded) == (11, 0, 0)
    assert fake_embedder.embedded == []


def test_changed_chunk_sizes_or_tier_rules_redo_every_note_and_reuse_unchanged_vectors(settings, fake_embedder):
    with Workspace.open(settings, create=True, embedder=fake_embedder) as ws:
        first = ws.sync()
        assert ws.store.file_info("Notes/Sourdough.md").tier == 1
    bigger = settings.replace(chunk_target_tokens=150, chunk_min_tokens=50, tier1_folders=("Memory",))
    with Workspace.open(bigger, embedder=fake_embedder) as ws:
        report = ws.sync()
        assert report.files_updated == 11 and report.chunks_total < first.chunks_total  # re-chunked with the new sizes
        assert report.chunks_reused > 0  # chunks whose text did not change keep their vectors
        assert ws.store.file_info("Notes/Sourdough.md").tier == 2 and ws.store.file_info("Memory/Preferences.md").tier == 1
        again = ws.sync()
    assert (again.files_unchanged, again.files_updated) == (11, 0)


def test_editing_one_paragraph_embeds_exactly_one_chunk(workspace, vault, fake_embedder):
    workspace.sync()
    note = vault / "Notes" / "Sourdough.md"
    note.write_text(note.read_text(encoding="utf-8").replace("Bake at 250 °C", "Bake at 260 °C"), encoding="utf-8")
    fake_embedder.embedded.clear()
    report = workspace.sync()
    assert report.files_updated == 1
    assert report.chunks_embedded == 1
    assert len(workspace.store.chunks_of("Notes/Sourdough.md")) >= 3
    assert report.chunks_reused == len(workspace.store.chunks_of("Notes/Sourdough.md")) - 1
    assert "260 °C" in fake_embedder.embedded[0]


def test_rename_and_move_reuse_every_vector(workspace, vault, fake_embedder):
    workspace.sync()
    (vault / "Archive").mkdir()
    os.rename(vault / "Notes" / "SQLite.md", vault / "Archive" / "SQLite databases.md")
    fake_embedder.embedded.clear()
    report = workspace.sync()
    assert (report.files_added, report.files_removed, report.chunks_embedded) == (1, 1, 0)
    assert workspace.store.chunks_of("Notes/SQLite.md") == []
    assert workspace.store.chunks_of("Archive/SQLite databases.md")


def test_deleted_notes_leave_the_index(workspace, vault):
    workspace.sync()
    (vault / "Notes" / "Байкал.md").unlink()
    report = workspace.sync()
    assert report.files_removed == 1
    assert workspace.retriever.keyword("Ольхон").hits == ()
    assert consistency(workspace.settings.db_url or workspace.store.path)["orphan_vectors"] == 0


def test_touched_but_identical_file_costs_a_hash_and_nothing_else(workspace, vault, fake_embedder):
    workspace.sync()
    note = vault / "CONTEXT.md"
    os.utime(note, (1, 1))
    fake_embedder.embedded.clear()
    report = workspace.sync()
    assert report.files_updated == 0 and report.chunks_embedded == 0
    assert workspace.sync().files_unchanged == 11


def test_bad_notes_are_skipped_with_a_reason_and_the_rest_is_indexed(workspace, vault):
    (vault / "cp1251.md").write_bytes("Привет мир".encode("cp1251"))
    (vault / "binary.md").write_bytes(b"\x00\x00PK binary")
    (vault / "empty.md").write_text("", encoding="utf-8")
    report = workspace.sync()
    assert {p for p, _ in report.skipped} == {"cp1251.md", "binary.md"}
    assert report.files_added == 12  # the empty note is a note with no chunks
    assert workspace.retriever.keyword("zanzibar").hits  # body of the note with broken frontmatter


def test_a_note_that_turns_binary_is_removed_from_the_index(workspace, vault):
    workspace.sync()
    (vault / "Notes" / "Windows.md").write_bytes(b"\x00\x01")
    report = workspace.sync()
    assert report.skipped and workspace.retriever.keyword("quokka").hits == ()


def test_huge_note_is_indexed_within_the_token_window(workspace, vault):
    para = "The quick brown fox jumps over the lazy dog near the river bank. " * 20
    (vault / "huge.md").write_text("# Huge\n\n" + (para + "\n\n") * 4000, encoding="utf-8")  # ~5 MB
    assert (vault / "huge.md").stat().st_size > 5_000_000
    report = workspace.sync()
    assert report.files_added == 12
    tokens = [r[0] for r in workspace.store._read("SELECT tokens FROM chunks WHERE path = 'huge.md'")]
    assert len(tokens) > 100 and max(tokens) <= 500


def test_when_the_embedder_fails_text_is_searchable_and_vectors_come_next_run(workspace, fake_embedder):
    fake_embedder.fail = True
    report = workspace.sync()
    assert report.embed_error and "python -m rag index" in report.embed_error
    assert report.vectors_missing == report.chunks_total
    assert workspace.retriever.keyword("hydration").hits
    result = workspace.retriever.hybrid("hydration")
    assert result.channels == ("bm25",) and result.notice
    fake_embedder.fail = False
    report = workspace.sync()
    assert report.vectors_missing == 0 and report.chunks_embedded > 0


def test_an_interrupted_sync_is_completed_by_the_next_run(workspace, settings, fake_embedder):
    def crash_after_three_files(stage, done, total):
        if stage == "read" and done == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        workspace.sync(progress=crash_after_three_files)
    state = consistency(settings.db_url or settings.db_path)
    assert len(state["paths"]) == 3 and state["chunks"] == state["fts"]
    report = workspace.sync()
    assert report.files_added == 8 and report.vectors_missing == 0
    state = consistency(settings.db_url or settings.db_path)
    assert len(state["paths"]) == 11 and state["fts_orphans"] == 0 and state["no_file"] == 0


def test_file_rows_keep_title_tags_tier_and_project(workspace):
    workspace.sync()
    info = workspace.store.file_info("Notes/Sourdough.md")
    assert (info.title, info.tags, info.aliases, info.tier) == ("Sourdough bread", ("baking", "хлеб"), ("Levain bread",), 1)
    assert workspace.store.file_info("Projects/Alpha/Overview.md").project == "Alpha"
    conversation = workspace.store.file_info("Conversations/claude-ai/General/2026-04-10 Bread chat.md")
    assert (conversation.tier, conversation.project) == (2, "Alpha")
    assert workspace.store.file_info("Notes/Broken.md").frontmatter_error


def test_workspace_reopens_an_existing_index(settings, fake_embedder, workspace):
    workspace.sync()
    with Workspace.open(settings, embedder=fake_embedder) as again:
        assert again.status()["chunks"] == workspace.status()["chunks"]


def test_a_skipped_note_is_reported_once_remembered_in_status_and_indexed_when_fixed(workspace, caplog):
    import logging

    binary = workspace.settings.vault / "Notes" / "Blob.md"
    binary.write_bytes(b"\x00\x01 not text")
    with caplog.at_level(logging.WARNING):
        first = workspace.sync()
        second = workspace.sync()
    assert caplog.text.count("Notes/Blob.md looks like a binary file") == 1  # not once a sync
    assert dict(first.skipped)["Notes/Blob.md"] == dict(second.skipped)["Notes/Blob.md"]
    assert second.files_unchanged == first.files_unchanged + first.files_added  # the skipped note is not "unchanged"
    assert [s["path"] for s in workspace.status()["skipped"]] == ["Notes/Blob.md"]
    binary.write_text("# Blob\n\nNow a real note about blobs.\n", encoding="utf-8")
    third = workspace.sync()
    assert third.files_added == 1 and third.skipped == () and workspace.status()["skipped"] == []


def test_embedding_progress_counts_characters_so_long_chunks_weigh_more_than_short_sentences(settings, fake_embedder):
    from rag.index.backfill import TEXT_COST_CHARS, backfill
    from rag.workspace import Workspace

    with Workspace.open(settings.replace(sentence_vectors=True), create=True, embedder=fake_embedder) as ws:
        ws.sync(embed=False)
        keys = ws.store.missing_vector_keys(fake_embedder.name) + ws.store.missing_sentence_keys(fake_embedder.name)
        sizes = ws.store.text_sizes(keys)
        calls: list[tuple[int, int]] = []
        backfill(ws.store, fake_embedder, batch_size=4, progress=lambda stage, done, total: calls.append((done, total)))
    total = calls[0][1]
    assert total >= sum(sizes[k] + TEXT_COST_CHARS for k in keys) and calls[-1] == (total, total)
    assert [d for d, _ in calls] == sorted(d for d, _ in calls)  # never goes back
    first_batch = sum(sizes[k] + TEXT_COST_CHARS for k in keys[:4])
    assert calls[1][0] == first_batch  # the first step is the first batch's characters, not "4 texts"


# --- two indexers on one index (several app instances, an agent and the app) --------------------------------------


def test_an_undo_read_while_another_indexer_stored_the_edit_is_indexed(settings, vault, monkeypatch, fake_embedder):
    """Indexer J's list says the note is V. Meanwhile I indexes the edit V1 and the user undoes it (V again). J reads V,
    finds it equal to its list and only records the new stat — that stat must not land on I's V1 row, or every later
    sync would take V1 for the file on disk."""
    from rag.index import sync as sync_module

    note, original = vault / "Notes" / "Sourdough.md", (vault / "Notes" / "Sourdough.md").read_text(encoding="utf-8")
    with Workspace.open(settings, create=True, embedder=fake_embedder) as i, Workspace.open(settings, embedder=fake_embedder) as j:
        i.sync()
        note.write_text(original + "\nAn edit the user will undo: rye starter.\n", encoding="utf-8")
        read = sync_module.read_note

        def meanwhile(vault_, rel, **kw):
            if rel == "Notes/Sourdough.md" and not meanwhile.done:
                meanwhile.done = True
                i.sync()  # stores the edit
                os.utime(note, ns=(note.stat().st_atime_ns, note.stat().st_mtime_ns + 10**9))
                note.write_text(original, encoding="utf-8")  # the undo, a second later
            return read(vault_, rel, **kw)

        meanwhile.done = False
        monkeypatch.setattr(sync_module, "read_note", meanwhile)
        j.sync()
        monkeypatch.setattr(sync_module, "read_note", read)
        i.sync()
        assert not any("rye starter" in c.text for c in i.store.chunks_of("Notes/Sourdough.md"))


def test_a_note_another_indexer_adds_during_a_sync_is_not_removed_by_it(settings, vault, monkeypatch, fake_embedder):
    from rag.index import sync as sync_module

    with Workspace.open(settings, create=True, embedder=fake_embedder) as i, Workspace.open(settings, embedder=fake_embedder) as j:
        i.sync()
        walk = sync_module.walk

        def meanwhile(settings_):
            found = walk(settings_)
            monkeypatch.setattr(sync_module, "walk", walk)
            (vault / "New.md").write_text("# New\n\nA note an agent just wrote.\n", encoding="utf-8")
            i.sync()  # indexed by the other instance right after this sync listed the folder
            return found

        monkeypatch.setattr(sync_module, "walk", meanwhile)
        assert j.sync().files_removed == 0
        assert "New.md" in j.store.file_states()
