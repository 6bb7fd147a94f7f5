"""Sentence vectors: which sentences get one, how sync keeps them (edits, deletes, the setting, older indexes),
and how a chunk's meaning score uses its best sentence. Real SQLite and files; the fake embedder, and the real one
for a cross-language search."""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest

from rag.index import text_rows, vocabulary
from rag.index.language_reference import reference_texts
from rag.index.records import FileInfo, FileState
from rag.index.store import Store
from rag.search.vectors import VectorIndex
from rag.text import sentences
from rag.workspace import Workspace

from .test_sync import consistency


def rows(db_path) -> list[tuple[str, str, int]]:
    db = sqlite3.connect(db_path)
    try:
        return db.execute(f"SELECT c.path, {text_rows.SENTENCE_TEXT}, s.line FROM {text_rows.SENTENCES} ORDER BY c.path, s.line").fetchall()
    finally:
        db.close()


# --- which sentences -------------------------------------------------------------------------------------------


def test_each_heading_and_sentence_of_three_words_or_more_gets_a_vector_with_its_line():
    text = "# Pump schedule notes\n\nThe pump runs at night. It stops at six.\nOk.\n\n## Valve\n\n- Check the **valve** weekly\n\n```\n# not a heading in code\n```\n"
    units = sentences.for_vectors(text, first_line=5)
    assert [(t, line) for t, line, _, _ in units] == [
        ("Pump schedule notes", 5),
        ("The pump runs at night.", 7),
        ("It stops at six.", 7),
        ("Check the valve weekly", 12),
    ]  # "Ok." and "Valve" are too short; emphasis is dropped as in extractive answers; code is not prose
    assert units[1][2] == sentences.vector_key("The pump runs at night.")


def test_a_chunk_of_one_sentence_has_its_vector_and_a_repeat_is_embedded_once():
    # the reader reads a one-sentence note by its sentence's vector: without it, the note could never be quoted
    assert [t for t, *_ in sentences.for_vectors("# Note\n\nJust one sentence here.\n")] == ["Just one sentence here."]
    assert [(t, line) for t, line, *_ in sentences.for_vectors("Same words here.\n\nSame words here.\n")] == [("Same words here.", 1)]


# --- sync ------------------------------------------------------------------------------------------------------


@pytest.fixture
def with_sentences(settings):
    return settings.replace(sentence_vectors=True)


def test_first_sync_embeds_chunks_then_sentences(with_sentences, fake_embedder):
    with Workspace.open(with_sentences, create=True, embedder=fake_embedder) as ws:
        report = ws.sync()
        counts = ws.store.counts(fake_embedder.name)
        words = len(vocabulary.word_vectors(ws.store, fake_embedder)[0])
    assert report.chunks_embedded == report.chunks_total and report.sentences_embedded > 0
    reference = sum(map(len, reference_texts().values()))  # the language reference, then the vocabulary, come last
    assert len(fake_embedder.embedded) == report.chunks_embedded + report.sentences_embedded + reference + words
    sentences = fake_embedder.embedded[report.chunks_embedded : report.chunks_embedded + report.sentences_embedded]
    assert all(not t.startswith(("# ", "About me\n")) for t in sentences)  # chunks first
    assert counts["sentences"] >= report.sentences_embedded and counts["sentence_vectors_missing"] == 0
    assert ("Notes/Sourdough.md", "I keep the dough at 72% hydration for white bread and 80% for whole wheat.", 14) in rows(with_sentences.db_path)


def test_editing_one_sentence_embeds_its_chunk_and_that_sentence_only(with_sentences, vault, fake_embedder):
    with Workspace.open(with_sentences, create=True, embedder=fake_embedder) as ws:
        ws.sync()
        note = vault / "Notes" / "Sourdough.md"
        note.write_text(note.read_text(encoding="utf-8").replace("80% for whole wheat", "82% for whole wheat"), encoding="utf-8")
        fake_embedder.embedded.clear()
        report = ws.sync()
    assert (report.chunks_embedded, report.sentences_embedded) == (1, 1)
    assert fake_embedder.embedded[1] == "I keep the dough at 72% hydration for white bread and 82% for whole wheat."
    assert consistency(with_sentences.db_path)["orphan_vectors"] == 0  # the old sentence's vector is gone


def test_a_deleted_note_takes_its_sentences_and_their_vectors_along(with_sentences, vault, fake_embedder):
    with Workspace.open(with_sentences, create=True, embedder=fake_embedder) as ws:
        ws.sync()
        (vault / "Notes" / "Sourdough.md").unlink()
        ws.sync()
    assert not [r for r in rows(with_sentences.db_path) if r[0] == "Notes/Sourdough.md"]
    assert consistency(with_sentences.db_path)["orphan_vectors"] == 0


def test_turning_sentence_vectors_on_splits_the_stored_chunks_and_off_drops_them(settings, fake_embedder):
    with Workspace.open(settings, create=True, embedder=fake_embedder) as ws:
        ws.sync()  # an index without sentence rows, like one made before they existed
    assert rows(settings.db_path) == []
    fake_embedder.embedded.clear()
    with Workspace.open(settings.replace(sentence_vectors=True), embedder=fake_embedder) as ws:
        report = ws.sync()
    assert report.files_unchanged == 11 and report.chunks_embedded == 0 and report.sentences_embedded == len(fake_embedder.embedded) > 0
    assert rows(settings.db_path)
    with Workspace.open(settings, embedder=fake_embedder) as ws:
        ws.sync()
    assert rows(settings.db_path) == [] and consistency(settings.db_path)["orphan_vectors"] == 0


def test_a_new_splitter_version_re_splits_and_reuses_the_vectors_of_unchanged_sentences(with_sentences, fake_embedder, monkeypatch):
    with Workspace.open(with_sentences, create=True, embedder=fake_embedder) as ws:
        ws.sync()
        before = rows(with_sentences.db_path)
        monkeypatch.setattr(sentences, "VERSION", "test-next")
        fake_embedder.embedded.clear()
        report = ws.sync()
        assert ws.store.get_meta("sentences") == "test-next"
    assert rows(with_sentences.db_path) == before and report.sentences_embedded == 0 == len(fake_embedder.embedded)


# --- scoring ---------------------------------------------------------------------------------------------------


def _unit(*values: float) -> np.ndarray:
    v = np.asarray(values, np.float32)
    return v / np.linalg.norm(v)


def test_a_chunk_scores_by_its_own_cosine_and_its_best_sentence(tmp_path):
    store = Store.open(tmp_path / "i.db", create=True)
    chunk = type("C", (), {})

    def add(path: str, key: str, units: list[tuple[str, int, str]]) -> None:
        c = chunk()
        c.id, c.heading_path, c.start_line, c.end_line, c.start_char, c.end_char = path, path, 1, 1, 0, 1
        c.text = c.sha256 = c.index_text = path
        c.tokens, c.vector_key = 1, key
        store.replace_file(FileState(path, path, 0.0, 1), FileInfo(path, path, None, (), (), 2, None), [c], [""], [units])

    add("a.md", "ka", [("s1", 1, "ka1", "latin"), ("s2", 1, "ka2", "latin")])
    add("b.md", "kb", [])
    add("c.md", "kc", [("s3", 1, "kc1", "latin"), ("s4", 1, "kc2", "latin")])  # its chunk has no vector: its sentences are ignored
    query = _unit(1, 0, 0)
    vectors = {"ka": _unit(0.5, 1, 0), "ka1": _unit(0, 1, 0), "ka2": _unit(1, 0.2, 0), "kb": _unit(1, 1.2, 0), "kc1": _unit(1, 0, 0)}
    store.put_vectors("m", list(vectors), np.vstack(list(vectors.values())))
    scored = dict(VectorIndex(store, "m", sentence_weight=1.0).search(query, 10))
    rowid = {r[0]: r[1] for r in store._read("SELECT path, rowid FROM chunks")}
    assert set(scored) == {rowid["a.md"], rowid["b.md"]}
    a = (float(vectors["ka"] @ query) + float(vectors["ka2"] @ query)) / 2
    # the index keeps vectors as int8 codes (rag/index/blobs.py): cosines within their rounding
    assert scored[rowid["a.md"]] == pytest.approx(a, abs=3e-3)
    assert scored[rowid["b.md"]] == pytest.approx(float(vectors["kb"] @ query), abs=3e-3)  # no sentences: its own cosine
    assert scored[rowid["a.md"]] > scored[rowid["b.md"]]  # a's best sentence lifts it above b
    plain = dict(VectorIndex(store, "m", sentence_weight=0.0).search(query, 10))
    assert plain[rowid["a.md"]] < plain[rowid["b.md"]]
    store.close()


def test_one_matching_sentence_in_a_long_note_lifts_it_for_a_cross_language_question(tmp_path, real_embedder):
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "Поход.md").write_text(
        "# Поход на Эльбрус\n\nМы вышли из лагеря в четыре утра. Погода была ясной, ветер слабым. "
        "На седловине сделали долгий привал и пили чай. Проводник рассказывал о ледниках и трещинах. "
        "Ключи от машины я оставил в кармане синего рюкзака. Спуск занял почти весь день.\n",
        encoding="utf-8",
    )
    (vault / "Keys.md").write_text("# Home\n\nThe spare house keys are with the neighbour. Car insurance renews in May.\n", encoding="utf-8")
    (vault / "Packing.md").write_text("# Packing list\n\nBlue backpack, tent, stove, two litres of water per person.\n", encoding="utf-8")
    from rag.config import load_settings

    settings = load_settings(vault=vault, db_path=tmp_path / "i.db", env={})
    assert settings.sentence_vectors  # on by default
    with Workspace.open(settings, create=True, embedder=real_embedder) as ws:
        report = ws.sync()
        assert report.sentences_embedded >= 6
        hits = ws.retriever.dense("Where did I leave the car keys?", 3).hits
    assert hits[0].chunk.path == "Поход.md"


def test_extractive_answers_read_the_indexed_sentence_vectors_instead_of_embedding_again(with_sentences, fake_embedder, monkeypatch):
    from rag.answer.ask import ask
    from rag.search import text_vectors

    monkeypatch.setattr(text_vectors, "_CACHE", text_vectors._Cache())  # nothing remembered from other tests
    with Workspace.open(with_sentences, create=True, embedder=fake_embedder) as ws:
        ws.sync()
        fake_embedder.embedded.clear()
        answer = ask(ws, "What hydration do I keep for white bread?")
    assert "72% hydration for white bread" in answer.text
    assert rows(with_sentences.db_path)  # the index holds sentence vectors ...
    assert fake_embedder.embedded == []  # ... and the reader only reads them: an answer never waits for the model


def test_the_setting_comes_from_env_or_rag_toml_and_a_bad_value_names_the_setting(tmp_path):
    from rag.config import load_settings
    from rag.errors import ConfigError

    assert load_settings(vault=tmp_path, env={"RAG_SENTENCE_VECTORS": "0"}).sentence_vectors is False
    assert load_settings(vault=tmp_path, env={"RAG_SENTENCE_VECTORS": "yes"}).sentence_vectors is True
    toml = tmp_path / "rag.toml"
    toml.write_text("sentence_vectors = false\nsentence_weight = 2.0\n", encoding="utf-8")
    from_file = load_settings(vault=tmp_path, config_file=toml, env={})
    assert (from_file.sentence_vectors, from_file.sentence_weight) == (False, 2.0)
    with pytest.raises(ConfigError, match="sentence_vectors must be true or false"):
        load_settings(vault=tmp_path, env={"RAG_SENTENCE_VECTORS": "maybe"})


def test_a_table_row_is_read_back_into_its_cells_with_their_columns():
    # the claim check reads a run of rows as a list only when their specifics share a column (support.listed)
    for header, cells, expected in (
        (["Signal", "ESP32 pin", "Notes"], ["Soil moisture #1", "GPIO32", ""], [("Signal", "Soil moisture #1"), ("ESP32 pin", "GPIO32")]),
        ([], ["Flights", "46 800"], [("0", "Flights"), ("1", "46 800")]),
    ):
        assert sentences.row_cells(sentences.row_text(header, cells)) == expected
