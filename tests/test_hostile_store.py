"""Hostile input, third review: the index file itself. A vector blob truncated, zeroed, of random bytes or not a blob
at all, unreadable token states or meta values, a full disk in the middle of `rag index`, and a `today` at the
calendar's ends. Every index here is built by the real code on a small vault and then damaged with sqlite3 (or
psycopg) directly; search keeps working with one warning, and the next `rag index` computes the bad rows again."""

from __future__ import annotations

import errno
import logging
import re
import sqlite3
import threading
import time

import numpy as np
import pytest
from click.testing import CliRunner

from rag.cli import cli
from rag.config import load_settings
from rag.errors import DiskFull
from rag.index import blobs, vocabulary, word_code
from rag.index.language_reference import reference_means
from rag.index.records import PerChunk
from rag.index.repair import drop_unreadable
from rag.index.store import Store
from rag.index.sync_state import last_sync, skipped_notes
from rag.index.token_blobs import pack, stored_states
from rag.live import LiveIndex
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
    "truncated": "substr(vector, 1, 40)",  # 40 bytes: a scale and 36 steps where the model writes 64
    "one byte short": "substr(vector, 1, length(vector) - 1)",
    "zeroed": "zeroblob(length(vector))",
    "not finite": "CAST(X'0000C07F' || substr(vector, 5) AS BLOB)",  # a NaN scale before the right steps
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
    assert blobs.codes_of([blob])[1][0] and len(blob) == blobs.code_width(fake_embedder.dim)
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
    model = vocabulary.words_model(fake_embedder)
    word = _sql(built, "SELECT vector_key FROM embeddings WHERE model = ? ORDER BY vector_key LIMIT 1", (model,))[0][0]
    _sql(built, "UPDATE embeddings SET vector = substr(vector, 1, 20) WHERE vector_key = ? AND model = ?", (word, model))
    with caplog.at_level(logging.WARNING), Workspace.open(built, embedder=fake_embedder) as ws:
        words, matrix = vocabulary.word_vectors(ws.store, fake_embedder)
        assert word not in words and matrix.shape == (len(words), fake_embedder.dim)
        assert len(_unusable_warnings(caplog)) == 1
        ws.sync()
    assert _sql(built, "SELECT length(vector) FROM embeddings WHERE vector_key = ? AND model = ?", (word, model)) == [
        (word_code.width(fake_embedder.dim),)
    ]


def test_unreadable_token_states_are_left_out_once_and_read_again_by_index(built, fake_embedder, caplog):
    states = np.random.default_rng(0).standard_normal((2, 7, 8)).astype(np.float32)
    states /= np.linalg.norm(states, axis=2, keepdims=True)
    keys = [k for (k,) in _sql(built, "SELECT vector_key FROM chunks ORDER BY rowid LIMIT 3")]
    with Workspace.open(built, embedder=fake_embedder) as ws:
        ws.store.put_chunk_data(PerChunk.TOKEN_STATES, "reader", {k: pack(states) for k in keys})
    nan_scale = bytearray(pack(states))
    nan_scale[16:20] = np.float32(np.nan).tobytes()
    _sql(built, "UPDATE token_states SET data = substr(data, 1, 40) WHERE vector_key = ? AND model = 'reader'", (keys[0],))
    _sql(built, "UPDATE token_states SET data = ? WHERE vector_key = ? AND model = 'reader'", (bytes(nan_scale), keys[1]))
    with caplog.at_level(logging.WARNING), Workspace.open(built, embedder=fake_embedder) as ws:
        rows = dict(_sql(built, "SELECT c.rowid, c.vector_key FROM chunks c WHERE c.vector_key IN (?,?,?)", keys))
        stored = ws.store.chunk_data(PerChunk.TOKEN_STATES, "reader", list(rows))
        for _ in range(2):
            readable = stored_states(stored, layers=2, dim=8, model="reader")
            assert {rows[r] for r in readable} == {keys[2]}
            assert stored_states(stored, layers=2, dim=16, model="reader") == {}  # another model's width: not compared
        assert len(_unusable_warnings(caplog)) == 1
        assert drop_unreadable(ws.store, fake_embedder) == 2
        assert set(ws.store.missing_chunk_data(PerChunk.TOKEN_STATES, "reader", embedded_by=fake_embedder.name)) >= {keys[0], keys[1]}


@pytest.mark.both_backends
def test_unreadable_token_states_are_dropped_on_either_backend_and_readable_ones_kept(settings, fake_embedder):
    states = np.ones((2, 3, 4), np.float32) / 2
    with Workspace.open(settings.replace(token_match=False), create=True, embedder=fake_embedder) as ws:
        ws.sync()
        keys = ws.store.missing_chunk_data(PerChunk.TOKEN_STATES, "reader", embedded_by=fake_embedder.name)[:3]
        ws.store.put_chunk_data(PerChunk.TOKEN_STATES, "reader", {keys[0]: pack(states), keys[1]: pack(states)[:-1], keys[2]: b"\x00" * 16})
        assert drop_unreadable(ws.store, fake_embedder) == 2
        assert ws.store.known_chunk_data(PerChunk.TOKEN_STATES, "reader", keys) == {keys[0]}


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


# --- a full disk --------------------------------------------------------------------------------------------------


@pytest.fixture
def full_disk(monkeypatch):
    """`full_disk(pages)`: every index opened from now on can grow by `pages` pages only (SQLite's max_page_count:
    a write past it fails as on a full disk, "database or disk is full")."""
    opened = Store.open.__func__

    def limit(pages: int) -> None:
        def open_small(cls, path, *, create=False):
            store = opened(cls, path, create=create)
            used = store._conn.execute("PRAGMA page_count").fetchone()[0]
            store._conn.execute(f"PRAGMA max_page_count = {used + pages}")
            return store

        monkeypatch.setattr(Store, "open", classmethod(open_small))

    yield limit
    monkeypatch.setattr(Store, "open", classmethod(opened))


def _many_notes(vault, n: int = 40) -> None:
    for i in range(n):
        (vault / f"Bulk {i}.md").write_text(f"# Bulk {i}\n\n" + " ".join(f"term{i}x{j} okapi" for j in range(150)) + "\n", encoding="utf-8")


def _one_line_disk_full(result) -> str:
    assert result.exit_code == 1, (result.output, result.exception)
    error = result.output.strip().splitlines()[-1]
    assert error.startswith("Error: The disk is full: indexing stopped, and the index is intact (")
    assert error.endswith("Free space and run `python -m rag index` again.")
    assert "Traceback" not in result.output and "cannot rollback" not in result.output
    return error


def test_a_full_disk_while_reading_notes_ends_index_in_one_line_and_the_index_still_searches(vault, tmp_path, cli_embedder, full_disk):
    _many_notes(vault)
    args = ["--vault", str(vault), "--db", str(tmp_path / "full.db")]
    full_disk(8)
    error = _one_line_disk_full(CliRunner().invoke(cli, ["index", *args]))
    assert "notes indexed" in error and " 0 notes indexed" not in error  # the notes read before it are kept
    full_disk(100_000)  # space freed
    found = CliRunner().invoke(cli, ["search", "okapi", *args])
    assert found.exit_code == 0 and "Bulk" in found.output
    assert CliRunner().invoke(cli, ["index", *args]).exit_code == 0


def test_a_full_disk_while_embedding_ends_index_in_one_line(vault, tmp_path, cli_embedder, full_disk):
    _many_notes(vault, 200)  # vectors are small (int8 codes): enough of them not to fit in the pages the text left free
    args = ["--vault", str(vault), "--db", str(tmp_path / "full.db")]
    with Workspace.open(load_settings(vault=vault, db_path=tmp_path / "full.db"), create=True, embedder=cli_embedder) as ws:
        ws.sync(embed=False)  # the text, as the command reads it: what is left to write is vectors
        notes = ws.store.counts(cli_embedder.name)["notes"]
    full_disk(0)
    error = _one_line_disk_full(CliRunner().invoke(cli, ["index", *args]))
    embedded, chunks = map(int, re.search(rf"\({notes} notes indexed, (\d+) of (\d+) passages embedded\)", error).groups())
    assert embedded < chunks  # the batches written before stay; the rest waits for space
    full_disk(100_000)
    assert CliRunner().invoke(cli, ["search", "okapi", "--mode", "bm25", *args]).exit_code == 0
    done = CliRunner().invoke(cli, ["index", "--json", *args])
    assert done.exit_code == 0 and '"vectors_missing": 0' in done.output


def test_a_failed_write_is_undone_once_and_its_own_error_surfaces(settings, fake_embedder, full_disk):
    with Workspace.open(settings, create=True, embedder=fake_embedder) as ws:
        ws.sync(embed=False)
    full_disk(0)
    store = Store.open(settings.db_path)
    big = np.ones((50, 4096), np.float32) / 64
    with pytest.raises(DiskFull, match="The disk is full"):
        store.put_vectors("big", [f"k{i}" for i in range(50)], big)
    assert not store._conn.in_transaction
    store.set_meta("after", "still writable")  # the connection is not left inside a transaction
    assert store.get_meta("after") == "still writable"
    store.close()


def test_no_space_for_the_lock_file_beside_the_index_is_the_same_one_line(vault, tmp_path, cli_embedder, monkeypatch):
    import builtins

    opened = builtins.open

    def no_space(file, *args, **kwargs):
        if str(file).endswith(".lock"):  # the embedding lock, created beside the index on first use
            raise OSError(errno.ENOSPC, "No space left on device", str(file))
        return opened(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", no_space)
    _one_line_disk_full(CliRunner().invoke(cli, ["index", "--vault", str(vault), "--db", str(tmp_path / "full.db")]))


@pytest.mark.both_backends
def test_a_full_disk_on_either_backend_is_one_line_that_names_it(settings, fake_embedder):
    with Workspace.open(settings, create=True, embedder=fake_embedder) as ws:
        full = "DO $$ BEGIN RAISE EXCEPTION 'could not extend file' USING ERRCODE = 'disk_full'; END $$"
        with pytest.raises(DiskFull, match="disk .*is full"), ws.store.transaction() as db:
            if settings.db_url:  # a real server error, SQLSTATE 53100
                db.execute(full)
            else:
                db.execute(f"PRAGMA max_page_count = {db.execute('PRAGMA page_count').fetchone()[0]}")
                db.executemany("INSERT INTO meta(key, value) VALUES (?, ?)", [(f"filler{i}", "x" * 2000) for i in range(200)])
        assert ws.store.get_meta("filler0") is None  # undone
        ws.store.set_meta("after", "written")  # and the store still writes
        assert ws.store.get_meta("after") == "written"


def test_a_full_disk_in_the_background_indexer_is_reported_and_retried(settings, fake_embedder, full_disk):
    settings = settings.replace(token_match=False)
    _many_notes(settings.vault, 10)
    with Workspace.open(settings, create=True, embedder=fake_embedder) as ws:
        ws.sync(embed=False)
    full_disk(0)
    live = LiveIndex(settings, embedder=fake_embedder).start()
    try:
        deadline = time.monotonic() + 20
        while "disk is full" not in (live.progress().error or "") and time.monotonic() < deadline:
            time.sleep(0.05)
        assert "The disk is full" in (live.progress().error or ""), live.progress()
        assert live._thread.is_alive()  # it waits to retry, it did not die
        assert live.workspace().retriever.keyword("okapi", 3).hits
    finally:
        live.close(timeout=10)
    assert not any(t.name == "rag-indexer" and t.is_alive() for t in threading.enumerate())


# --- today at the calendar's ends ----------------------------------------------------------------------------------


@pytest.mark.parametrize("today", ["0001-01-01", "9999-12-31"])
def test_search_with_today_at_the_calendars_ends_reads_no_range_rather_than_fail(built, cli_embedder, today):
    args = ["--vault", str(built.vault), "--db", str(built.db_path)]
    for question in ("the year before last", "sourdough last winter", "в позапрошлом году", "recently", "when did I last bake"):
        result = CliRunner().invoke(cli, ["search", question, *args], env={"RAG_TODAY": today})
        assert result.exit_code == 0, (question, result.output, result.exception)
    answered = CliRunner().invoke(cli, ["ask", "what did I bake the year before last?", *args], env={"RAG_TODAY": today, "RAG_CHAT_MODEL": ""})
    assert answered.exit_code == 0, (answered.output, answered.exception)
