"""The index's size: vectors kept as int8 codes (an index made before converted in place, nothing embedded again),
the file compacted when a change left it mostly empty, and its size by part in `rag status`."""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest

from rag.config import load_settings
from rag.embed import aligned
from rag.index import blobs
from rag.index.backfill import backfill
from rag.index.records import PerChunk
from rag.index.store import Store
from rag.workspace import Workspace
from tests.old_schema import as_schema_11, as_schema_12, words_as_int8

QUESTIONS = [
    "How long does the sourdough rise?",
    "Когда мы ездили на Байкал?",
    "Which sensor measures the soil?",
    "What did we decide about storage?",
]


def test_vectors_are_kept_as_int8_codes_and_meaning_search_ranks_as_with_float32(demo, real_embedder):
    widths = {n for (n,) in demo.store._read("SELECT DISTINCT length(vector) FROM embeddings WHERE model = ?", (real_embedder.name,))}
    assert widths == {blobs.code_width(real_embedder.dim)}  # a quarter of float32's 4 bytes a component, and a scale
    rowids, stored, _ = demo.store.vectors(real_embedder.name)
    texts = demo.store.chunk_index_texts([int(r) for r in rowids])
    exact = real_embedder.embed_passages([texts[int(r)] for r in rowids])  # float32 (the int8 engine's batches differ)
    assert np.einsum("ij,ij->i", stored, exact).min() > 0.99
    coded, kept = blobs.codes_of(blobs.encode(exact))
    assert kept.all() and np.abs(np.einsum("ij,ij->i", coded, exact) - 1).max() < 2e-3  # within the code's rounding
    for question in QUESTIONS:
        asked = real_embedder.embed_query(question)
        assert list(np.argsort(-(coded @ asked))[:5]) == list(np.argsort(-(exact @ asked))[:5]), question


def _as_float32_index_of_schema_10(path) -> dict[tuple[str, str], np.ndarray]:
    """Rewrite an index's vectors the way schema 10 kept them (float32), one of them damaged; the vectors by key."""
    as_schema_11(path)
    db = sqlite3.connect(path)
    words_as_int8(db)
    rows = db.execute("SELECT vector_key, model, vector FROM embeddings").fetchall()
    matrix, kept = blobs.codes_of([r[2] for r in rows])
    assert kept.all()
    vectors = {(k, m): v for (k, m, _), v in zip(rows, matrix)}
    db.executemany("UPDATE embeddings SET vector = ? WHERE vector_key = ? AND model = ?", [(v.tobytes(), k, m) for (k, m), v in vectors.items()])
    damaged = rows[0][:2]
    db.execute("UPDATE embeddings SET vector = zeroblob(length(vector)) WHERE vector_key = ? AND model = ?", damaged)
    db.execute("PRAGMA user_version = 10")
    db.commit()
    db.close()
    return {k: v for k, v in vectors.items() if k != damaged}


def test_sentence_readings_move_to_their_own_table_and_nothing_is_read_again(vault, tmp_path, fake_embedder):
    settings = load_settings(vault=vault, db_path=tmp_path / "i.db", env={})
    with Workspace.open(settings, create=True, embedder=fake_embedder) as ws:
        ws.sync()
        rows = [int(r) for r in ws.store.vectors(fake_embedder.name)[0]]
        readings = ws.store.chunk_data(PerChunk.SENTENCE_READINGS, aligned.MODEL, rows)
        assert len(readings) == len(rows) > 0
    as_schema_12(settings.db_path)
    with sqlite3.connect(settings.db_path) as db:
        assert db.execute("SELECT COUNT(*) FROM token_states WHERE model = ?", (aligned.MODEL,)).fetchone()[0] == len(rows)
    with Workspace.open(settings, embedder=fake_embedder) as ws:  # migration 13 runs on open
        assert ws.store.chunk_data(PerChunk.SENTENCE_READINGS, aligned.MODEL, rows) == readings
        assert ws.store.chunk_data(PerChunk.TOKEN_STATES, aligned.MODEL, rows) == {}  # none left under its name
        assert ws.store._read("SELECT COUNT(*) FROM token_states WHERE model = ?", (aligned.MODEL,)) == [(0,)]
        assert ws.store.missing_chunk_data(PerChunk.SENTENCE_READINGS, aligned.MODEL, embedded_by=fake_embedder.name) == []
        done = backfill(ws.store, fake_embedder, batch_size=8)
        assert ws.store.size_by_part()["sentence_readings"] > 0
    assert (done.chunks, done.sentences, done.token_states, done.aligned, done.error) == (0, 0, 0, 0, None)


def test_an_index_made_before_keeps_its_vectors_as_codes_and_embeds_nothing_again(vault, tmp_path, fake_embedder):
    settings = load_settings(vault=vault, db_path=tmp_path / "i.db", env={})
    with Workspace.open(settings, create=True, embedder=fake_embedder) as ws:
        ws.sync()
    before = _as_float32_index_of_schema_10(settings.db_path)
    with Workspace.open(settings, embedder=fake_embedder) as ws:  # migration 11 runs on open
        rows = ws.store._read("SELECT vector_key, model, vector FROM embeddings")
        assert {len(v) for _, _, v in rows} == {blobs.code_width(fake_embedder.dim)}
        matrix, kept = blobs.codes_of([v for _, _, v in rows])
        assert kept.all() and len(rows) == len(before)  # the damaged float32 vector was dropped, not converted
        for (key, model, _), vector in zip(rows, matrix):
            assert float(vector @ before[key, model]) > 0.999
        fake_embedder.embedded.clear()
        report = ws.sync()
    assert len(fake_embedder.embedded) == 1  # only the damaged one's text is embedded again
    assert report.chunks_embedded + report.sentences_embedded <= 1


def test_index_gives_back_the_space_a_large_deletion_left_and_only_then(vault, tmp_path, fake_embedder):
    settings = load_settings(vault=vault, db_path=tmp_path / "i.db", env={}, token_match=False)
    notes = vault / "Many"
    notes.mkdir()
    for i in range(80):
        text = " ".join(f"Line {i}.{j} is about the garden, the bread and thing {i * 100 + j}." for j in range(60))
        (notes / f"note {i}.md").write_text(f"# Note {i}\n\n{text}\n", encoding="utf-8")
    with Workspace.open(settings, create=True, embedder=fake_embedder) as ws:
        ws.sync()
        assert ws.store.compact() == 0  # nothing free: not rewritten
        for path in notes.iterdir():
            path.unlink()
        ws.sync()
        parts = ws.store.size_by_part()
        assert parts["free"] > 0.25 * sum(parts.values())
        before = Store.size_bytes(ws.store)
        freed = ws.store.compact()
        assert freed > 0 and ws.store.size_bytes() <= before - freed // 2
        assert ws.store.size_by_part()["free"] == 0 and ws.store.compact() == 0
        assert ws.retriever.hybrid("garden", 3).hits  # the notes left are searched as before


@pytest.mark.both_backends
def test_the_index_says_its_size_by_part_on_both_backends(workspace):
    workspace.sync()
    parts = workspace.store.size_by_part()
    assert set(parts) == {"text", "vectors", "vocabulary", "token_states", "sentence_readings", "free"}
    assert parts["text"] > 0 and parts["vectors"] > 0 and parts["vocabulary"] > 0
    assert workspace.store.compact() == 0  # nothing to give back: a fresh index (and PostgreSQL's is autovacuum's)
