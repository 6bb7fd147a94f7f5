"""The index on PostgreSQL + pgvector (`RAG_DB=postgresql://…`), against a real server (tests/postgres.py): chosen by the
address, refused with a clear message when unreachable or foreign, ranking exactly like SQLite, HNSW search agreeing
with the exact scan, and writers that share the database without losing or doubling anything.

The index's general behaviour (sync, search, filters, similar notes, model change, two processes at once) runs on
both backends in those tests' own modules (marked `both_backends`)."""

from __future__ import annotations

import threading

import psycopg
import pytest
from click.testing import CliRunner

from rag.cli import cli
from rag.config import load_settings
from rag.errors import IndexForeign, IndexMissing, IndexNewer, RagError
from rag.index.pg_store import PgStore
from rag.index.records import FileInfo, FileState
from rag.workspace import Workspace

from .fakes import FakeEmbedder

QUERIES = ["sourdough hydration", "quokka", "Windows", "бабушка пирог", "zanzibar okapi", "the", "nothing-like-this-anywhere"]


def test_a_server_address_in_rag_db_selects_postgresql_and_hides_its_password(vault):
    settings = load_settings(vault=vault, env={"RAG_DB": "postgresql://ann:s3cret@db.example:5433/notes"})
    assert settings.db_url == "postgresql://ann:s3cret@db.example:5433/notes"
    assert settings.db_path.name == "index.db" and "ask-your-vault" in str(settings.db_path)  # the vault's own files stay local
    assert "s3cret" not in repr(settings)


def test_an_unreachable_server_is_one_sentence_naming_rag_db_without_the_password():
    with pytest.raises(RagError, match="Check RAG_DB") as caught:
        PgStore.open("postgresql://ann:s3cret@127.0.0.1:9/notes?connect_timeout=3", create=True)
    assert "s3cret" not in str(caught.value) and "postgresql://ann@127.0.0.1:9/notes" in str(caught.value)


@pytest.mark.parametrize("url", ["postgresql://ann:s3cret@db.example/notes?bogus_option=1", "postgresql://ann:s3cret@[::1/notes"])
def test_a_malformed_address_is_one_line_naming_the_form_without_the_password(url):
    with pytest.raises(RagError, match="postgresql://user@host:port/database") as caught:
        PgStore.open(url, create=True)
    assert "s3cret" not in str(caught.value) and "\n" not in str(caught.value)


def test_a_database_that_does_not_exist_says_to_create_it(pg_server):
    from .postgres import database_uri

    with pytest.raises(RagError, match="Create the database first") as caught:
        PgStore.open(database_uri(pg_server.uri, "no_such_database"), create=True)
    assert "\n" not in str(caught.value)


def test_an_empty_database_without_create_says_to_run_index(pg_server):
    with pytest.raises(IndexMissing, match="python -m rag index"):
        PgStore.open(pg_server.new_database())


def test_tables_of_another_program_are_refused_and_left_untouched(pg_server):
    url = pg_server.new_database()
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE TABLE files (name TEXT)")
        conn.execute("INSERT INTO files VALUES ('invoice.pdf')")
    with pytest.raises(IndexForeign, match="not an index of Ask your vault"):
        PgStore.open(url, create=True)
    with psycopg.connect(url) as conn:
        assert conn.execute("SELECT name FROM files").fetchall() == [("invoice.pdf",)]
        assert conn.execute("SELECT to_regclass('chunks')").fetchone()[0] is None


def test_a_newer_schema_is_refused(pg_server):
    url = pg_server.new_database()
    PgStore.open(url, create=True).close()
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    with pytest.raises(IndexNewer, match="newer version"):
        PgStore.open(url)


def test_keyword_ranking_is_sqlite_fts5_bm25_to_the_last_digit(vault, tmp_path, pg_server, fake_embedder):
    """Same notes, same query: the same chunks in the same order with the same scores (title fields weighted too)."""
    (vault / "Sourdough again.md").write_text("---\naliases: [levain]\n---\n# Sourdough again\n\nHydration notes.\n", encoding="utf-8")
    lite = load_settings(vault=vault, db_path=tmp_path / "i.db", env={}, sentence_vectors=False)
    server = lite.replace(db_url=pg_server.new_database())
    with Workspace.open(lite, create=True, embedder=fake_embedder) as a, Workspace.open(server, create=True, embedder=FakeEmbedder()) as b:
        a.sync(), b.sync()
        for query in [*QUERIES, "levain", "Sourdough again"]:
            ranked = [[(h.chunk.id, h.score) for h in ws.retriever.keyword(query, 20).hits] for ws in (a, b)]
            assert [i for i, _ in ranked[0]] == [i for i, _ in ranked[1]], query
            assert [s for _, s in ranked[0]] == pytest.approx([s for _, s in ranked[1]], rel=1e-9), query
        terms = ["sourdough", "hydrat", "absent"]
        assert a.store.document_frequencies(terms) == b.store.document_frequencies(terms)


def test_hnsw_search_finds_what_the_exact_scan_finds_with_the_real_model(vault, pg_server, real_embedder):
    """Above `pg_exact_below` meaning search asks pgvector's HNSW index for candidates and scores them exactly: on the
    fixture vault (sentence vectors on, English and Russian notes) it returns the exact scan's ranking."""
    settings = load_settings(vault=vault, db_path=pg_server.new_database(), env={})
    with Workspace.open(settings, create=True, embedder=real_embedder) as exact:
        exact.sync()
        with Workspace.open(settings.replace(pg_exact_below=0), embedder=real_embedder) as ann:
            assert len(ann.retriever.vectors) == len(exact.retriever.vectors) > 0
            assert ann.retriever.vectors._ann is not None and exact.retriever.vectors._ann is None  # the two paths
            for query in ["how wet is the dough", "пирог бабушки", "where do quokkas live", "Windows line endings"]:
                want, got = exact.retriever.dense_ranking(query, 10), ann.retriever.dense_ranking(query, 10)
                assert [r for r, _ in got] == [r for r, _ in want], query
                assert [s for _, s in got] == pytest.approx([s for _, s in want], abs=1e-5)
                assert [h.chunk.id for h in ann.retriever.hybrid(query, 5).hits] == [h.chunk.id for h in exact.retriever.hybrid(query, 5).hits]


def test_the_hnsw_query_uses_the_index(pg_server, fake_embedder, vault):
    settings = load_settings(vault=vault, db_path=pg_server.new_database(), env={})
    with Workspace.open(settings, create=True, embedder=fake_embedder) as ws:
        ws.sync()
    with psycopg.connect(settings.db_url, autocommit=True) as conn:
        conn.execute("SET enable_seqscan = off")  # a tiny table: make the planner show whether the index can serve
        vector = "[" + ",".join(["0.125"] * fake_embedder.dim) + "]"
        plan = "\n".join(
            r[0]
            for r in conn.execute(
                f"EXPLAIN SELECT vector_key FROM embeddings WHERE model = '{fake_embedder.name}'"
                f" ORDER BY vector::vector({fake_embedder.dim}) <=> '{vector}'::vector({fake_embedder.dim}) LIMIT 10"
            )
        )
    assert "embeddings_hnsw_" in plan


def _note(path: str, version: int, chunks: int):
    from rag.index.chunking import Chunk

    texts = [f"version {version} part {i} of {path}" for i in range(chunks)]
    made = [
        Chunk(f"{path}#{version}-{i}", path, path, i + 1, i + 1, 0, len(t), t, f"h{version}-{i}", 5, t, f"k{version}-{i}")
        for i, t in enumerate(texts)
    ]
    state = FileState(path, f"sha{version}", float(version), 10)
    info = FileInfo(path, f"sha{version}", path, (), (), 2, None)
    return state, info, made, [t.lower() for t in texts]


def test_two_writers_rewriting_one_note_leave_one_whole_version(pg_server):
    """Writers of one note take turns (never a duplicate-key error, never a mix of two versions); writers of other
    notes are not held up by them."""
    url = pg_server.new_database()
    stores = [PgStore.open(url, create=True), PgStore.open(url)]
    errors: list[Exception] = []

    def write(store: PgStore, first: int) -> None:
        try:
            for version in range(first, first + 40, 2):
                store.replace_file(*_note("shared.md", version, chunks=1 + version % 4))
                store.replace_file(*_note(f"own-{first}.md", version, chunks=2))
        except Exception as exc:  # noqa: BLE001 - the test reports any failure
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(store, first)) for store, first in zip(stores, (0, 1))]
    [t.start() for t in threads]
    [t.join() for t in threads]
    assert errors == []
    chunks = stores[0].chunks_of("shared.md")
    versions = {c.id.split("#")[1].split("-")[0] for c in chunks}
    assert len(versions) == 1 and len(chunks) == 1 + int(versions.pop()) % 4  # one whole version
    assert {f.path for f in stores[0].files()} == {"shared.md", "own-0.md", "own-1.md"}
    assert stores[0].bm25(["version"], 100) and len(stores[0].bm25(["version"], 100)) == len(chunks) + 4
    [s.close() for s in stores]


def test_recall_counts_from_many_threads_lose_no_increment(pg_server):
    url = pg_server.new_database()
    stores = [PgStore.open(url, create=True)] + [PgStore.open(url) for _ in range(3)]
    threads = [threading.Thread(target=lambda s=s: [s.count_recalls(["a", "b"]) for _ in range(25)]) for s in stores]
    [t.start() for t in threads]
    [t.join() for t in threads]
    counts = stores[0].recall_counts(["a", "b", "c"])
    assert {k: v[0] for k, v in counts.items()} == {"a": 100, "b": 100}
    [s.close() for s in stores]


def test_cli_indexes_searches_and_reports_a_server_index(vault, pg_server):
    url = pg_server.new_database()
    runner = CliRunner()
    run = lambda *args: runner.invoke(cli, [*args, "--vault", str(vault), "--db", url], catch_exceptions=False)  # noqa: E731
    assert run("index").exit_code == 0
    found = run("search", "sourdough hydration")
    assert found.exit_code == 0 and "Sourdough.md" in found.output
    status = run("status")
    assert status.exit_code == 0 and "postgresql://postgres@" in status.output and "Chunks:" in status.output


def test_the_app_builds_answers_and_reports_a_server_index(app, pg_server, monkeypatch):
    from tests.app_harness import answers, ask, shown, texts

    monkeypatch.setenv("RAG_DB", pg_server.new_database())
    at = app()
    at.run()  # the sidebar's status is a fragment: drawn on the run after indexing ended
    assert not at.exception and "Index up to date" in texts(at.sidebar.caption)
    assert "72%" in answers(ask(at, "What hydration do I keep for white bread?"))
    at.switch_page("app_pages/index.py").run()
    assert "postgresql://postgres@" in shown(at.markdown) + shown(at.caption)


def test_a_large_index_finds_new_text_at_once_and_its_count_follows_in_the_background(vault, pg_server, fake_embedder):
    from .waiting import wait_for

    settings = load_settings(vault=vault, db_path=pg_server.new_database(), env={}, sentence_vectors=False, pg_exact_below=0)
    with Workspace.open(settings, create=True, embedder=fake_embedder) as ws:
        ws.sync()
        before = len(ws.retriever.vectors)
        (vault / "Okapi.md").write_text("# Okapi\n\nThe okapi census counted forty okapis.\n", encoding="utf-8")
        ws.sync()
        assert ws.retriever.dense_ranking("okapi census", 3)[0][0] in {c.rowid for c in ws.store.chunks_of("Okapi.md")}  # HNSW: current
        wait_for(lambda: len(ws.retriever.vectors) == before + 1, timeout=10)
