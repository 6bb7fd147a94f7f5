"""The vocabulary kept small: a row per stem, in SQLite a 4-bit code of its difference from the mean word
(rag/index/word_code.py); a vocabulary written by earlier code (a row per word under `words:<model>`, or int8 codes of
whole vectors under `words:s:<model>`) keeps serving until the next sync converts it, without embedding a word."""

from __future__ import annotations

import json
import sqlite3

import numpy as np
import pytest

from rag.config import load_settings
from rag.index import repair, vocabulary, word_code
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
        # what a new index holds, but for the rounding of the int8 rows converted
        assert np.einsum("ij,ij->i", matrix, np.vstack([fresh[k] for k in keys])).min() > 0.99
        assert ws.store.vector_keys(WORD_MODELS + fake_embedder.name) == []  # the rows per word are gone
        assert ws.retriever.lexicon_ranking(QUESTION, every) != []
        embedded = len(fake_embedder.embedded)  # the question's words were embedded just now
        ws.sync()
        assert len(fake_embedder.embedded) == embedded  # and it stays current


def test_with_the_real_model_a_row_per_stem_still_finds_the_paragraph(tmp_path, real_embedder, monkeypatch):
    with Workspace.open(_settings(tmp_path), create=True, embedder=real_embedder) as ws:
        ws.sync()
        keys, matrix = vocabulary.word_vectors(ws.store, real_embedder)
        assert matrix.shape == (len(keys), real_embedder.dim) and "intercept" in keys and "scored" not in keys
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


def _as_written_by_int8_codes(ws, embedder) -> dict[str, np.ndarray]:
    """The index's vocabulary as the code before 4-bit word codes wrote it: a row per stem, an int8 code of the whole
    vector, under `words:s:<model>`; {stem: vector} as a fresh index holds it."""
    keys, matrix = vocabulary.word_vectors(ws.store, embedder)
    forms = vocabulary.vault_forms(text for _, text, _ in ws.store.chunk_texts())
    whole = vocabulary.full_vectors(embedder, [forms[k][0] for k in keys])
    ws.store.drop_vectors(vocabulary.words_model(embedder), keys)
    ws.store.put_vectors(f"{WORD_MODELS}s:{embedder.name}", keys, whole)
    ws.store.set_meta(f"vocabulary:{embedder.name}", json.dumps({"form": f"{WORD_MODELS}s:{embedder.name}", "added": len(keys), "at": 0}))
    return dict(zip(keys, matrix))


def _row_sizes(settings, model: str) -> set[int]:
    with sqlite3.connect(settings.db_path) as db:
        return {n for (n,) in db.execute("SELECT length(vector) FROM embeddings WHERE model = ?", (model,))}


def test_the_vocabulary_is_kept_in_4_bit_codes_and_one_of_int8_codes_serves_then_is_converted(tmp_path, real_embedder, monkeypatch):
    settings = _settings(tmp_path)
    with Workspace.open(settings, create=True, embedder=real_embedder) as ws:
        ws.sync()
        model = vocabulary.words_model(real_embedder)
        assert _row_sizes(settings, model) == {word_code.width(real_embedder.dim)} == {196}  # int8 codes: 388
        fresh = _as_written_by_int8_codes(ws, real_embedder)
        assert _row_sizes(settings, f"{WORD_MODELS}s:{real_embedder.name}") == {388}
        assert _first_path(ws, QUESTION) == "Football/Defense.md"  # read as is, before any sync
        monkeypatch.setattr(real_embedder, "embed_queries", lambda texts: pytest.fail(f"embedded {texts}"))
        ws.sync()  # converted: each stem's int8 vector coded anew, nothing embedded
        monkeypatch.undo()
        assert ws.store.vector_keys(f"{WORD_MODELS}s:{real_embedder.name}") == []
        keys, matrix = vocabulary.word_vectors(ws.store, real_embedder)
        assert keys == sorted(fresh) and _row_sizes(settings, model) == {196}
        assert np.einsum("ij,ij->i", matrix, np.vstack([fresh[k] for k in keys])).min() > 0.99
        assert repair.drop_unreadable(ws.store, real_embedder) == 0
        assert _first_path(ws, QUESTION) == "Football/Defense.md"


def test_word_codes_rebuild_unit_vectors_and_refuse_damaged_ones():
    rng = np.random.default_rng(0)
    mid = rng.standard_normal(384).astype(np.float32)
    mid *= 0.9 / np.linalg.norm(mid)
    words = mid + 0.4 * rng.standard_normal((50, 384)).astype(np.float32) / np.sqrt(384)
    words /= np.linalg.norm(words, axis=1, keepdims=True)
    codes = word_code.encode(words, mid)
    assert {len(c) for c in codes} == {word_code.width(384)} == {196}
    zeroed, short, noise = bytes(196), codes[1][:100], rng.bytes(196)
    matrix, kept = word_code.decode([*codes, zeroed, short, noise, "text"], mid)
    assert kept.tolist() == [True] * 50 + [False] * 4
    assert np.allclose(np.linalg.norm(matrix, axis=1), 1, atol=1e-5)
    assert np.einsum("ij,ij->i", matrix, words).min() > 0.99
