"""Hostile input, third review: the index file itself. A vector blob truncated, zeroed, of random bytes or not a blob
at all, unreadable token states or meta values, and a `today` at the
calendar's ends. Every index here is built by the real code on a small vault and then damaged with sqlite3 (or
psycopg) directly; search keeps working with one warning, and the next `rag index` computes the bad rows again."""

from __future__ import annotations

import logging
import sqlite3
import time

import numpy as np
import pytest
from click.testing import CliRunner

from rag.cli import cli
from rag.config import load_settings
from rag.index import blobs, vocabulary
from rag.index.language_reference import reference_means
from rag.index.repair import drop_unreadable
from rag.index.sync import last_sync, skipped_notes
from rag.search.token_match import pack, stored_states
from rag.workspace import Workspace

QUESTION = "sourdough hydration levain"  # the fixture vault's Notes/Sourdough.md


@pytest.fixture(autouse=True)
def _fresh_warnings(monkeypatch):
    """Warnings about unreadable rows are logged once per process: each test is a process of its own here."""
    monkeypatch.setattr(blobs, "_warned", set())


@pytest.fixture
def built(settings, fake_embedder):
    """The fixture vault indexed by the real code (vectors included); returns the settings. The token match's
    aligned model is off (it alone takes seconds); its token states are checked as the embedder's are."""
    settings = settings.replace(token_match=False)
    with Workspace.open(settings, create=True, embedder=fake_embedder) as ws:
        ws.sync()
    return settings


@pytest.fixture
def cli_embedder(monkeypatch, fake_embedder):
    """The CLI on the fake embedder, without the aligned model (as `built`)."""
    monkeypatch.setattr("rag.workspace.make_embedder", lambda settings: fake_embedder)
    monkeypatch.setenv("RAG_TOKEN_MATCH", "false")
    return fake_embedder


def _sql(settings, statement: str, params=()) -> list[tuple]:
    with sqlite3.connect(settings.db_path) as db:
        return db.execute(statement, params).fetchall()


def _top_chunk_key(settings, fake_embedder) -> tuple[int, str]:
    """(rowid, vector key) of the passage meaning search ranks first for QUESTION."""
    with Workspace.open(settings, embedder=fake_embedder) as ws:
        rowid = ws.retriever.dense(QUESTION, 1).hits[0].chunk.rowid
    return rowid, _sql(settings, "SELECT vector_key FROM chunks WHERE rowid = ?", (rowid,))[0][0]


def _unusable_warnings(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING and r.getMessage().startswith("Unreadable stored")]


CORRUPTIONS = {
    "truncated": "substr(vector, 1, 100)",  # 100 bytes: 25 floats where the model writes 64
    "odd length": "substr(vector, 1, 101)",  # not even whole floats
    "zeroed": "zeroblob(length(vector))",
    "not finite": "X'" + "0000C07F" * 64 + "'",  # NaN, 64 times
    "random bytes": "randomblob(length(vector))",
    "text": "'hello'",  # a BLOB column holds text as gladly
}


@pytest.mark.parametrize("corruption", CORRUPTIONS)
def test_an_unusable_chunk_vector_is_left_out_of_search_with_one_warning_and_index_recomputes_it(built, fake_embedder, caplog, corruption):
    rowid, key = _top_chunk_key(built, fake_embedder)
    _sql(built, f"UPDATE embeddings SET vector = {CORRUPTIONS[corruption]} WHERE vector_key = ? AND model = ?", (key, fake_embedder.name))
    with caplog.at_level(logging.WARNING), Workspace.open(built, embedder=fake_embedder) as ws:
        for _ in range(3):
            dense = ws.retriever.dense(QUESTION, 5).hits
            assert dense and rowid not in {h.chunk.rowid for h in dense}  # the rest is searched, the bad row left out
            assert ws.retriever.hybrid(QUESTION, 5).hits[0].chunk.path == "Notes/Sourdough.md"  # keywords still find it
        assert len(_unusable_warnings(caplog)) == 1, caplog.text  # once, not once per search
        report = ws.sync()
    assert report.chunks_embedded == 1  # `rag index` noticed and embedded that one text again
    (blob,) = _sql(built, "SELECT vector FROM embeddings WHERE vector_key = ? AND model = ?", (key, fake_embedder.name))[0]
    assert blobs.vector_of(blob) is not None and len(blob) == 4 * fake_embedder.dim
    assert _top_chunk_key(built, fake_embedder)[0] == rowid


def test_an_unusable_sentence_vector_is_left_out_and_recomputed(vault, tmp_path, fake_embedder, caplog):
    settings = load_settings(vault=vault, db_path=tmp_path / "s.db", env={}, sentence_vectors=True, token_match=False)
    with Workspace.open(settings, create=True, embedder=fake_embedder) as ws:
        ws.sync()
    key = _sql(settings, "SELECT vector_key FROM sentences WHERE vector_key NOT IN (SELECT vector_key FROM chunks) LIMIT 1")[0][0]
    _sql(settings, "UPDATE embeddings SET vector = substr(vector, 1, 7) WHERE vector_key = ?", (key,))
    with caplog.at_level(logging.WARNING), Workspace.open(settings, embedder=fake_embedder) as ws:
        assert ws.retriever.dense(QUESTION, 5).hits
        assert len(_unusable_warnings(caplog)) == 1
        assert ws.sync().sentences_embedded == 1


def test_a_vocabulary_vector_of_another_width_is_left_out_and_recomputed(built, fake_embedder, caplog):
    model = vocabulary.words_model(fake_embedder.name)
    word = _sql(built, "SELECT vector_key FROM embeddings WHERE model = ? ORDER BY vector_key LIMIT 1", (model,))[0][0]
    _sql(built, "UPDATE embeddings SET vector = substr(vector, 1, 128) WHERE vector_key = ? AND model = ?", (word, model))
    with caplog.at_level(logging.WARNING), Workspace.open(built, embedder=fake_embedder) as ws:
        words, matrix = vocabulary.word_vectors(ws.store, fake_embedder.name)
        assert word not in words and matrix.shape == (len(words), fake_embedder.dim)
        assert len(_unusable_warnings(caplog)) == 1
        ws.sync()
    assert _sql(built, "SELECT length(vector) FROM embeddings WHERE vector_key = ? AND model = ?", (word, model)) == [(4 * fake_embedder.dim,)]


def test_unreadable_token_states_are_left_out_once_and_read_again_by_index(built, fake_embedder, caplog):
    states = np.random.default_rng(0).standard_normal((2, 7, 8)).astype(np.float32)
    states /= np.linalg.norm(states, axis=2, keepdims=True)
    keys = [k for (k,) in _sql(built, "SELECT vector_key FROM chunks ORDER BY rowid LIMIT 3")]
    with Workspace.open(built, embedder=fake_embedder) as ws:
        ws.store.put_token_states("reader", {k: pack(states) for k in keys})
    nan_scale = bytearray(pack(states))
    nan_scale[16:20] = np.float32(np.nan).tobytes()
    _sql(built, "UPDATE token_states SET states = substr(states, 1, 40) WHERE vector_key = ? AND model = 'reader'", (keys[0],))
    _sql(built, "UPDATE token_states SET states = ? WHERE vector_key = ? AND model = 'reader'", (bytes(nan_scale), keys[1]))
    with caplog.at_level(logging.WARNING), Workspace.open(built, embedder=fake_embedder) as ws:
        rows = dict(_sql(built, "SELECT c.rowid, c.vector_key FROM chunks c WHERE c.vector_key IN (?,?,?)", keys))
        stored = ws.store.chunk_token_states("reader", list(rows))
        for _ in range(2):
            readable = stored_states(stored, layers=2, dim=8, model="reader")
            assert {rows[r] for r in readable} == {keys[2]}
            assert stored_states(stored, layers=2, dim=16, model="reader") == {}  # another model's width: not compared
        assert len(_unusable_warnings(caplog)) == 1
        assert drop_unreadable(ws.store, fake_embedder) == 2
        assert set(ws.store.missing_token_keys("reader", embedded_by=fake_embedder.name)) >= {keys[0], keys[1]}


@pytest.mark.parametrize("stored", ["not json", '{"1": [1, 2], "2": [3]}', '{"1": ["NaN"], "2": [1]}', "[]"])
def test_an_unreadable_language_reference_is_ignored_by_search_and_recomputed_by_index(built, fake_embedder, caplog, stored):
    key = f"language_means:{fake_embedder.name}"
    _sql(built, "UPDATE meta SET value = ? WHERE key = ?", (stored, key))
    with caplog.at_level(logging.WARNING), Workspace.open(built, embedder=fake_embedder) as ws:
        assert ws.retriever.dense(QUESTION, 3).hits
        assert ws.retriever.hybrid("Когда мы ездили на Байкал?", 3).hits
        assert any("language reference" in r.getMessage() for r in caplog.records)
        ws.sync()
        assert set(reference_means(ws.store, fake_embedder.name, dim=fake_embedder.dim)) == {1, 2}


@pytest.mark.parametrize("value", ["garbage", "nan", "inf", "1e300", "-5"])
def test_a_garbled_last_sync_is_unknown_and_no_command_fails(built, cli_embedder, value):
    """Unknown: the next reading command checks the vault for changes (and writes the time anew)."""
    _sql(built, "UPDATE meta SET value = ? WHERE key = 'last_sync'", (value,))
    args = ["--vault", str(built.vault), "--db", str(built.db_path)]
    for command in (["status"], ["status", "--json"], ["search", "sourdough"]):
        result = CliRunner().invoke(cli, [*command, *args])
        assert result.exit_code == 0, (command, result.output, result.exception)
    assert CliRunner().invoke(cli, ["index", *args]).exit_code == 0
    with Workspace.open(built, embedder=cli_embedder) as ws:
        assert abs(last_sync(ws.store) - time.time()) < 60  # written anew by the sync


def test_a_garbled_generation_is_read_as_zero_and_the_next_write_makes_it_a_number(built, fake_embedder, caplog):
    _sql(built, "UPDATE meta SET value = '1.0e+23x' WHERE key = 'generation'")
    with caplog.at_level(logging.WARNING), Workspace.open(built, embedder=fake_embedder) as ws:
        assert ws.store.generation() == 0 and ws.retriever.hybrid(QUESTION, 3).hits
        assert any("generation" in r.getMessage() for r in caplog.records)
        (built.vault / "Notes" / "New.md").write_text("# New\n\nAn okapi census.\n", encoding="utf-8")
        ws.sync()
        assert ws.store.generation() > 0
        assert ws.retriever.dense("okapi census", 1).hits[0].chunk.path == "Notes/New.md"  # the cache followed


def test_a_garbled_skipped_notes_list_is_read_again_and_written_anew(built, fake_embedder):
    (built.vault / "Notes" / "Binary.md").write_bytes(b"\x00\x01\x02 not text")
    with Workspace.open(built, embedder=fake_embedder) as ws:
        ws.sync()
        assert "Notes/Binary.md" in skipped_notes(ws.store)
    _sql(built, "UPDATE meta SET value = '{\"Notes/Binary.md\": 5' WHERE key = 'skipped_notes'")
    with Workspace.open(built, embedder=fake_embedder) as ws:
        assert skipped_notes(ws.store) == {} and ws.status()["skipped"] == []
        report = ws.sync()
        assert [p for p, _ in report.skipped] == ["Notes/Binary.md"]
        assert "Notes/Binary.md" in skipped_notes(ws.store)


@pytest.mark.both_backends
def test_a_zeroed_vector_and_a_garbled_generation_on_either_backend(settings, fake_embedder, caplog):
    settings = settings.replace(token_match=False)
    with Workspace.open(settings, create=True, embedder=fake_embedder) as ws:
        ws.sync()
        rowid = ws.retriever.dense(QUESTION, 1).hits[0].chunk.rowid
    if settings.db_url:
        import psycopg

        with psycopg.connect(settings.db_url, autocommit=True) as db:
            db.execute(
                "UPDATE embeddings SET vector = array_fill(0, ARRAY[%s])::real[]::vector"
                " WHERE model = %s AND vector_key = (SELECT vector_key FROM chunks WHERE rowid = %s)",
                (fake_embedder.dim, fake_embedder.name, rowid),
            )
            db.execute("UPDATE meta SET value = 'garbage' WHERE key = 'generation'")
    else:
        _sql(
            settings,
            "UPDATE embeddings SET vector = zeroblob(length(vector)) WHERE vector_key = (SELECT vector_key FROM chunks WHERE rowid = ?)",
            (rowid,),
        )
        _sql(settings, "UPDATE meta SET value = 'garbage' WHERE key = 'generation'")
    with caplog.at_level(logging.WARNING), Workspace.open(settings, embedder=fake_embedder) as ws:
        for _ in range(2):
            assert rowid not in {h.chunk.rowid for h in ws.retriever.dense(QUESTION, 5).hits}
        assert len(_unusable_warnings(caplog)) == 1
        assert ws.sync().chunks_embedded == 1
        assert ws.store.generation() > 0
    with Workspace.open(settings, embedder=fake_embedder) as ws:
        assert ws.retriever.dense(QUESTION, 1).hits[0].chunk.rowid == rowid


# --- today at the calendar's ends ----------------------------------------------------------------------------------


@pytest.mark.parametrize("today", ["0001-01-01", "9999-12-31"])
def test_search_with_today_at_the_calendars_ends_reads_no_range_rather_than_fail(built, cli_embedder, today):
    args = ["--vault", str(built.vault), "--db", str(built.db_path)]
    for question in ("the year before last", "sourdough last winter", "в позапрошлом году", "recently", "when did I last bake"):
        result = CliRunner().invoke(cli, ["search", question, *args], env={"RAG_TODAY": today})
        assert result.exit_code == 0, (question, result.output, result.exception)
    answered = CliRunner().invoke(cli, ["ask", "what did I bake the year before last?", *args], env={"RAG_TODAY": today, "RAG_CHAT_MODEL": ""})
    assert answered.exit_code == 0, (answered.output, answered.exception)
