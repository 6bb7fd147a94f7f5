"""The vocabulary kept small: a row per stem (in fewer values where a projection file is there:
rag/index/word_projection.py); a vocabulary written by the earlier code (a row per word under `words:<model>`) keeps
serving until the next sync converts it, without embedding a word."""

from __future__ import annotations

import json

import numpy as np

from rag.config import load_settings
from rag.index import repair, vocabulary, word_projection
from rag.index.records import WORD_MODELS
from rag.text import stemming
from rag.workspace import Workspace

SEASON = {
    "Football/Defense.md": "# Panthers season\n\nThe defense intercepted the ball 24 times and recovered 11 fumbles.\n",
    "Football/Offense.md": "# Panthers season\n\nThe offense scored 500 points, the most in the league; scoring is its job.\n",
    "Football/Coach.md": "# Panthers season\n\nThe head coach signed a new contract before the playoffs.\n",
}
QUESTION = "Сколько раз защита перехватила мяч?"


def _settings(tmp_path):
    vault = tmp_path / "vault"
    for path, text in SEASON.items():
        (vault / path).parent.mkdir(parents=True, exist_ok=True)
        (vault / path).write_text(text, encoding="utf-8")
    return load_settings(vault=vault, db_path=tmp_path / "index.db", env={}, sentence_vectors=False)


def _as_written_before(ws, embedder) -> list[str]:
    """The index's vocabulary as the earlier code wrote it: every content word its own full vector under
    `words:<model>`, and a stamp without a form; the words."""
    words = sorted({w for _, text, _ in ws.store.chunk_texts() for w in vocabulary.content_words(text)})
    model = vocabulary.words_model(embedder)
    ws.store.drop_vectors(model, ws.store.vector_keys(model))
    ws.store.put_vectors(WORD_MODELS + embedder.name, words, vocabulary.full_vectors(embedder, words))
    ws.store.set_meta(f"vocabulary:{embedder.name}", json.dumps({"added": len(words), "at": 0}))
    return words


def _first_path(ws, question: str) -> str:
    every = [r for r, _ in ws.retriever.dense_ranking(question, 10)]
    ranking = ws.retriever.lexicon_ranking(question, every)
    return ws.store.chunks_by_rowid([ranking[0][0]])[ranking[0][0]].path


def test_a_vocabulary_of_a_row_per_word_serves_then_the_next_sync_converts_it_without_embedding(tmp_path, fake_embedder):
    with Workspace.open(_settings(tmp_path), create=True, embedder=fake_embedder) as ws:
        ws.sync()
        fresh = dict(zip(*vocabulary.word_vectors(ws.store, fake_embedder)))
        words = _as_written_before(ws, fake_embedder)
        assert "scored" in words and "scoring" in words  # two rows for one stem, before
        every = [r for r, _ in ws.retriever.keyword_ranking("panthers season", 10)]
        assert ws.retriever.lexicon_ranking(QUESTION, every) != []  # still read, as written
        embedded = len(fake_embedder.embedded)
        ws.sync()
        assert len(fake_embedder.embedded) == embedded  # converted, not embedded again
        keys, matrix = vocabulary.word_vectors(ws.store, fake_embedder)
        assert keys == sorted({stemming.stem(w) for w in words}) and "score" in keys
        assert np.allclose(matrix, np.vstack([fresh[k] for k in keys]))  # what a new index holds
        assert ws.store.vector_keys(WORD_MODELS + fake_embedder.name) == []  # the rows per word are gone
        assert ws.retriever.lexicon_ranking(QUESTION, every) != []
        embedded = len(fake_embedder.embedded)  # the question's words were embedded just now
        ws.sync()
        assert len(fake_embedder.embedded) == embedded  # and it stays current


def test_with_the_real_model_a_row_per_stem_still_finds_the_paragraph(tmp_path, real_embedder, monkeypatch):
    with Workspace.open(_settings(tmp_path), create=True, embedder=real_embedder) as ws:
        ws.sync()
        keys, matrix = vocabulary.word_vectors(ws.store, real_embedder)
        assert matrix.shape == (len(keys), vocabulary.width(real_embedder)) and "intercept" in keys and "scored" not in keys
        assert repair.drop_unreadable(ws.store, real_embedder) == 0  # `rag index` keeps them: their width is right
        assert _first_path(ws, QUESTION) == "Football/Defense.md"

        _as_written_before(ws, real_embedder)
        assert _first_path(ws, QUESTION) == "Football/Defense.md"  # the earlier vocabulary, full vectors
        asked = []
        monkeypatch.setattr(real_embedder, "embed_queries", lambda texts: asked.append(texts) or np.zeros((len(texts), 384), np.float32))
        ws.sync()
        assert asked == []  # converted: each stem takes its word's vector
        monkeypatch.undo()
        converted, projected = vocabulary.word_vectors(ws.store, real_embedder)
        # the same words' vectors (the engine and batch of the embedding move their last digits: cosine ~0.99)
        assert converted == keys and np.einsum("ij,ij->i", projected, matrix).min() > 0.95
        assert _first_path(ws, QUESTION) == "Football/Defense.md"


def test_a_projection_file_keeps_the_vocabulary_in_fewer_values_and_the_next_sync_re_keys_it(tmp_path, fake_embedder, monkeypatch):
    dim = fake_embedder.dim
    projection = tmp_path / "projection.npz"
    directions = np.linalg.qr(np.random.default_rng(0).standard_normal((dim, 8)))[0].astype(np.float16)
    np.savez(projection, mean=np.zeros(dim, np.float32), directions=directions, model=np.array(fake_embedder.name))
    with Workspace.open(_settings(tmp_path), create=True, embedder=fake_embedder) as ws:
        ws.sync()
        assert vocabulary.word_vectors(ws.store, fake_embedder)[1].shape[1] == dim
        monkeypatch.setattr(word_projection, "PROJECTION", projection)
        word_projection._fitted.cache_clear()
        try:
            assert vocabulary.width(fake_embedder) == 8
            ws.sync()  # another form: the vocabulary is kept again in the new width
            keys, matrix = vocabulary.word_vectors(ws.store, fake_embedder)
            assert matrix.shape == (len(keys), 8) and np.allclose(np.linalg.norm(matrix, axis=1), 1) and "intercept" in keys
            every = [r for r, _ in ws.retriever.keyword_ranking("panthers season", 10)]
            assert ws.retriever.lexicon_ranking(QUESTION, every) != []  # the question's words projected alike
            assert repair.drop_unreadable(ws.store, fake_embedder) == 0
        finally:
            monkeypatch.undo()
            word_projection._fitted.cache_clear()
