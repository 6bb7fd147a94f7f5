"""Note vectors, similar notes and near-duplicates on a real SQLite index of the fixture vault (fake embedder at the
model seam; one test runs the real default embedder through the CLI)."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
from click.testing import CliRunner

from rag.cli import cli
from rag.errors import NoteError
from rag.index.store import Store
from rag.search.similar import DuplicatePair, Neighbour, duplicate_pairs, note_vectors, similar_notes


@pytest.fixture
def indexed(workspace):
    workspace.sync()
    return workspace


def test_a_note_vector_is_the_normalised_mean_of_its_chunk_vectors(indexed):
    store, model = indexed.store, indexed.embedder.name
    vectors = note_vectors(store, model)
    chunks = store.chunks_of("Notes/Sourdough.md")
    assert len(chunks) > 1
    rowids, matrix, _ = store.vectors(model)
    mine = matrix[np.isin(rowids, [c.rowid for c in chunks])]
    expected = mine.mean(axis=0) / np.linalg.norm(mine.mean(axis=0))
    assert np.allclose(vectors.matrix[vectors.row("Notes/Sourdough.md")], expected, atol=1e-6)
    assert np.allclose(np.linalg.norm(vectors.matrix, axis=1), 1.0, atol=1e-5)


def test_every_indexed_note_with_text_has_exactly_one_vector(indexed):
    vectors = note_vectors(indexed.store, indexed.embedder.name)
    with_chunks = {f.path for f in indexed.store.files() if indexed.store.chunks_of(f.path)}
    assert set(vectors.paths) == with_chunks and len(vectors.paths) == len(set(vectors.paths))


def test_similar_notes_are_best_first_exclude_the_note_itself_and_respect_the_limit(indexed):
    neighbours = similar_notes(indexed.store, indexed.embedder.name, "Notes/Sourdough.md", limit=3)
    assert len(neighbours) == 3 and all(isinstance(n, Neighbour) for n in neighbours)
    assert "Notes/Sourdough.md" not in [n.path for n in neighbours]
    assert [n.score for n in neighbours] == sorted((n.score for n in neighbours), reverse=True)


def test_a_copied_note_is_the_nearest_neighbour_and_a_duplicate_pair(indexed, vault):
    shutil.copy(vault / "Notes/SQLite.md", vault / "Notes/SQLite copy.md")
    indexed.sync()
    top = similar_notes(indexed.store, indexed.embedder.name, "Notes/SQLite.md", limit=1)
    assert top == [Neighbour("Notes/SQLite copy.md", 1.0)]
    pairs = duplicate_pairs(indexed.store, indexed.embedder.name)
    assert DuplicatePair("Notes/SQLite copy.md", "Notes/SQLite.md", 1.0) in pairs


def test_distinct_notes_are_not_duplicates_at_the_default_threshold_but_are_at_a_low_one(indexed):
    assert duplicate_pairs(indexed.store, indexed.embedder.name) == []
    loose = duplicate_pairs(indexed.store, indexed.embedder.name, threshold=-1.0)
    n = len(note_vectors(indexed.store, indexed.embedder.name))
    assert len(loose) == n * (n - 1) // 2
    assert all(p.a < p.b for p in loose)
    assert [p.score for p in loose] == sorted((p.score for p in loose), reverse=True)


def test_finding_duplicates_never_changes_the_vault(indexed, vault):
    shutil.copy(vault / "Notes/SQLite.md", vault / "Notes/SQLite copy.md")
    indexed.sync()
    before = sorted((p.relative_to(vault).as_posix(), p.read_bytes()) for p in vault.rglob("*.md"))
    duplicate_pairs(indexed.store, indexed.embedder.name, threshold=0.5)
    assert sorted((p.relative_to(vault).as_posix(), p.read_bytes()) for p in vault.rglob("*.md")) == before


def test_an_unknown_note_gets_an_error_that_names_the_fix(indexed):
    with pytest.raises(NoteError, match="not in the index.*python -m rag index"):
        similar_notes(indexed.store, indexed.embedder.name, "Notes/Nope.md")


def test_notes_without_vectors_yet_are_left_out_and_say_so(workspace):
    workspace.sync(embed=False)
    assert len(note_vectors(workspace.store, workspace.embedder.name)) == 0
    assert duplicate_pairs(workspace.store, workspace.embedder.name) == []
    with pytest.raises(NoteError, match="no vectors yet"):
        similar_notes(workspace.store, workspace.embedder.name, "Notes/SQLite.md")


def test_an_empty_index_has_no_similar_notes_or_duplicates(tmp_path):
    store = Store.open(tmp_path / "empty.db", create=True)
    try:
        assert len(note_vectors(store, "any")) == 0 and duplicate_pairs(store, "any") == []
    finally:
        store.close()


def test_cli_similar_and_duplicates_with_the_real_default_embedder(vault, tmp_path):
    shutil.copy(vault / "Notes/SQLite.md", vault / "Notes/SQLite copy.md")
    runner = CliRunner()
    common = ["--vault", str(vault), "--db", str(tmp_path / "cli.db")]
    assert runner.invoke(cli, ["index", *common], catch_exceptions=False).exit_code == 0
    near = runner.invoke(cli, ["similar", "Notes/SQLite.md", *common, "--json", "--limit", "2"], catch_exceptions=False)
    assert near.exit_code == 0, near.output
    assert json.loads(near.stdout)[0]["path"] == "Notes/SQLite copy.md"
    dupes = runner.invoke(cli, ["duplicates", *common, "--json"], catch_exceptions=False)
    assert {"a": "Notes/SQLite copy.md", "b": "Notes/SQLite.md"}.items() <= json.loads(dupes.stdout)[0].items()
    text = runner.invoke(cli, ["duplicates", *common, "--threshold", "0.9999999"], catch_exceptions=False).stdout
    assert "Notes/SQLite copy.md  <->  Notes/SQLite.md" in text
    missing = runner.invoke(cli, ["similar", "Notes/Nope.md", *common])
    assert missing.exit_code == 1 and "not in the index" in missing.output
