"""The index on a PostgreSQL server with pgvector (`RAG_DB=postgresql://…`): the same tables and methods as the SQLite
`Store`, for shared and large vaults — several app instances, agents and indexers at once.

Split as the SQLite store is: this core, `pg_keywords` (BM25), `pg_vectors` (the vector tables and HNSW) and
`pg_memory` (agent memory's counts), mixed in; with `pg_schema` (tables, migrations), the only modules that import
psycopg. Their records are `records`, shared with SQLite. Differences from SQLite, each for concurrency or scale:
- connections come from a pool, so threads read in parallel; writes are row-level transactions (a note's rows, under
  an advisory lock on its path), not one writer at a time;
- embedding claims its texts one by one (`embedding_claim`), so two indexers share the work and never embed a text
  twice, where SQLite takes turns under a lock file;
- keyword search computes FTS5's BM25 over `postings` (our stems, counted per chunk, weighted per field), so both
  backends rank alike; meaning search may go through pgvector's HNSW index (see `pg_vectors`).
"""

from __future__ import annotations

import collections
import contextlib
import hashlib
import logging

import psycopg
from psycopg.conninfo import conninfo_to_dict
from psycopg_pool import ConnectionPool

from rag.errors import ConfigError, DiskFull, IndexCorrupt, IndexMissing, RagError
from rag.index import pg_schema
from rag.index.common import CommonReads
from rag.index.pg_keywords import PgKeywordIndex, weighted_counts
from rag.index.pg_memory import PgMemoryStats
from rag.index.pg_vectors import PgVectorTables
from rag.index.records import (
    CHUNK_COLUMNS,
    FILE_COLUMNS,
    WORD_MODELS,
    FileInfo,
    FileState,
    NoteFields,
    PerChunk,
    StoredChunk,
    chunk_row,
    chunk_sounds,
    file_info,
    file_row,
)
from rag.index.store_space import byte_shares
from rag.text.stemming import fts_tokens

log = logging.getLogger(__name__)

POOL_SIZE = 8  # connections per process: the app's threads and the indexer read and write in parallel


class PgStore(CommonReads, PgKeywordIndex, PgVectorTables, PgMemoryStats):
    """Owns a pool of connections to one database. Safe to share between threads."""

    has_ann_index = True  # pgvector's HNSW index per model (see `pg_vectors.nearest`)

    def __init__(self, url: str, pool: ConnectionPool) -> None:
        self.url = url
        self.location = display_url(url)  # what status and messages name as "the index"
        self._pool = pool
        self._ann_models: set[str] = set()

    @classmethod
    def open(cls, url: str, *, create: bool = False) -> PgStore:
        """Connect, and with `create` make or migrate the schema. Raises IndexMissing when the database has no index
        and `create` is off, ConfigError when the address is malformed, RagError when the server cannot be reached."""
        try:
            conninfo_to_dict(url)
        except psycopg.ProgrammingError as exc:
            why = str(exc).strip().split(' in URI: "')[0]  # libpq quotes the whole address, password included
            raise ConfigError(
                f"RAG_DB is not a PostgreSQL address libpq accepts ({why}); the form is postgresql://user@host:port/database?sslmode=require."
            ) from None
        with _translate(url):
            with psycopg.connect(url, autocommit=True, connect_timeout=10) as conn:
                pg_schema.check_identity(conn)
                if create:
                    _ensure_extension(conn, url)
                    pg_schema.migrate(conn)
                elif conn.execute("SELECT to_regclass('meta') IS NULL").fetchone()[0]:
                    raise IndexMissing(f"No index in {display_url(url)}. Run `python -m rag index` first.")
                else:
                    pg_schema.migrate(conn)
            pool = ConnectionPool(url, min_size=1, max_size=POOL_SIZE, kwargs={"autocommit": True}, configure=_configure, open=False)
            pool.open(wait=True, timeout=30)
        return cls(url, pool)

    def close(self) -> None:
        self._pool.close()

    def size_bytes(self) -> int:
        rows = self._read("SELECT COALESCE(SUM(pg_total_relation_size(to_regclass(t))), 0) FROM unnest(%s::text[]) t", (list(pg_schema.OUR_TABLES),))
        return int(rows[0][0])

    def size_by_part(self) -> dict[str, int]:
        """As `store_space.IndexSpace.size_by_part`: each table with its indexes and TOAST, the two shared ones split
        by their rows' bytes; "free" is the server's business (autovacuum)."""
        size = dict(
            self._read("SELECT t, COALESCE(pg_total_relation_size(to_regclass(t)), 0) FROM unnest(%s::text[]) t", (list(pg_schema.OUR_TABLES),))
        )
        words, _ = byte_shares(
            self._read("SELECT model LIKE %s, SUM(pg_column_size(vector) + LENGTH(vector_key)) FROM embeddings GROUP BY 1", (WORD_MODELS + "%",))
        )
        embedded = size.pop("embeddings", 0)
        kept = {kind.value: size.pop(kind.value, 0) for kind in PerChunk}
        return {
            "text": sum(size.values()),
            "vectors": round(embedded * (1 - words)),
            "vocabulary": round(embedded * words),
            **kept,
            "free": 0,
        }

    def compact(self) -> int:
        """Nothing: the server reclaims space itself (autovacuum)."""
        return 0

    @contextlib.contextmanager
    def embedding_claim(self, model: str, keys: list[str]):
        """Claim texts to embed: yields the keys no other process (or thread) is embedding now, and holds them until
        the block ends. Session advisory locks: the server frees them if this process dies."""
        locks = {_lock_id(model, key): key for key in dict.fromkeys(keys)}
        # A connection of its own, not the pool's: the work inside the claim takes pool connections, and claims from
        # many threads at once must not leave it none.
        with _translate(self.url), psycopg.connect(self.url, autocommit=True) as conn:
            got = [r[0] for r in conn.execute("SELECT k FROM unnest(%s::bigint[]) k WHERE pg_try_advisory_lock(k)", (list(locks),))]
            try:
                mine = set(got)
                yield [key for lock, key in locks.items() if lock in mine]
            finally:
                conn.execute("SELECT pg_advisory_unlock(k) FROM unnest(%s::bigint[]) k", (got,))

    @contextlib.contextmanager
    def transaction(self, *, searchable: bool = True):
        """One write transaction. `searchable` writes bump the generation (last, so its row lock is held only while
        committing); bookkeeping does not, so a no-change sync never forces a vector reload."""
        with self._pool.connection() as conn, _translate(self.url), conn.transaction():
            yield conn
            if searchable:
                # a value that is not a whole number (hand-edited) starts again at 1 rather than fail every write
                conn.execute(
                    "UPDATE meta SET value = (CASE WHEN value ~ '^-?[0-9]{1,18}$' THEN value::bigint + 1 ELSE 1 END)::text WHERE key = 'generation'"
                )

    def _read(self, query: str, params=(), *, binary: bool = False) -> list[tuple]:
        with self._pool.connection() as conn, _translate(self.url):
            return conn.cursor(binary=binary).execute(query, params).fetchall()

    # --- meta -------------------------------------------------------------------------------------------------

    def get_meta(self, key: str, default: str | None = None) -> str | None:
        rows = self._read("SELECT value FROM meta WHERE key = %s", (key,))
        return rows[0][0] if rows else default

    def set_meta(self, key: str, value: str, *, searchable: bool = False) -> None:
        with self.transaction(searchable=searchable) as db:
            db.execute("INSERT INTO meta(key, value) VALUES (%s, %s) ON CONFLICT (key) DO UPDATE SET value = excluded.value", (key, value))

    # --- files and chunks -------------------------------------------------------------------------------------

    def replace_file(
        self,
        state: FileState,
        info: FileInfo,
        chunks: list,
        stems: list[str],
        sentences: list[list] | None = None,
        *,
        fields: NoteFields = ("", "", ""),
        days: list | None = None,
    ) -> None:
        """Atomically replace one note's rows. Writers of other notes go on meanwhile; two writers of the same note
        take turns (an advisory lock on its path), so the later one replaces the earlier one's rows whole."""
        field_counts = [collections.Counter(fts_tokens(text)) for text in fields]
        with self.transaction() as db:
            db.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", ("file:" + state.path,))
            db.execute("DELETE FROM files WHERE path = %s", (state.path,))
            db.execute(
                "INSERT INTO files(path, sha256, mtime, size, title, tags, aliases, tier, project, frontmatter_error, indexed_at, description)"
                " VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s)",
                file_row(state, info),
            )
            postings, sound_postings, sentence_rows, day_rows = [], [], [], []
            for ordinal, (chunk, stem_text) in enumerate(zip(chunks, stems)):
                weighted, length = weighted_counts(collections.Counter(fts_tokens(stem_text)), field_counts)
                sounds = collections.Counter(fts_tokens(chunk_sounds(chunk, info)))
                rowid = db.execute(
                    "INSERT INTO chunks(id, path, ordinal, heading_path, start_line, end_line, start_char, end_char, text,"
                    " sha256, tokens, index_text, vector_key, script, day, day_source, terms, sounds)"
                    " VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s) RETURNING rowid",
                    (*chunk_row(chunk, state.path, ordinal, days[ordinal] if days else None), length, sum(sounds.values())),
                ).fetchone()[0]
                postings.extend((term, rowid, freq) for term, freq in weighted.items())
                sound_postings.extend((term, rowid, float(freq)) for term, freq in sounds.items())
                if sentences:
                    sentence_rows.extend((rowid, *row) for row in sentences[ordinal])
                if days and days[ordinal] is not None:
                    day_rows.extend((rowid, d.isoformat()) for d in days[ordinal].entries)
            _copy(db, "postings (term, chunk, freq)", postings)
            _copy(db, "sound_postings (term, chunk, freq)", sound_postings)
            _copy(db, "sentences (chunk, text, line, vector_key, script)", sentence_rows)
            _copy(db, "chunk_days (chunk, day)", day_rows)

    def merge_keyword_index(self) -> None:
        """After every note was rewritten: refresh the planner's statistics (PostgreSQL's autovacuum cleans up)."""
        with self._pool.connection() as conn, _translate(self.url):
            conn.execute("ANALYZE postings")
            conn.execute("ANALYZE sound_postings")

    def replace_sentences(self, rows: list[tuple[int, str | None, list]]) -> None:
        with self.transaction() as db:
            for rowid, chunk_script, sentences in rows:
                db.execute("UPDATE chunks SET script = %s WHERE rowid = %s", (chunk_script, rowid))
                db.execute("DELETE FROM sentences WHERE chunk = %s", (rowid,))
                _copy(db, "sentences (chunk, text, line, vector_key, script)", [(rowid, *row) for row in sentences])

    def touch_file(self, path: str, mtime: float, size: int, *, sha256: str) -> None:
        with self.transaction(searchable=False) as db:
            db.execute("UPDATE files SET mtime = %s, size = %s WHERE path = %s AND sha256 = %s", (mtime, size, path, sha256))

    def remove_files(self, paths: list[str]) -> None:
        """Row locks are enough here: a concurrent rewrite of the same note waits for this delete, or this for it."""
        with self.transaction() as db:
            db.execute("DELETE FROM files WHERE path = ANY(%s)", (list(paths),))

    def chunks_by_rowid(self, rowids: list[int]) -> dict[int, StoredChunk]:
        rows = self._read(f"SELECT {CHUNK_COLUMNS} FROM chunks c JOIN files f ON f.path = c.path WHERE c.rowid = ANY(%s)", (list(rowids),))
        return {r[0]: StoredChunk(*r) for r in rows}

    def chunks_of(self, path: str) -> list[StoredChunk]:
        rows = self._read(f"SELECT {CHUNK_COLUMNS} FROM chunks c JOIN files f ON f.path = c.path WHERE c.path = %s ORDER BY c.ordinal", (path,))
        return [StoredChunk(*r) for r in rows]

    def file_info(self, path: str) -> FileInfo | None:
        rows = self._read(f"SELECT {FILE_COLUMNS} FROM files WHERE path = %s", (path,))
        return file_info(rows[0]) if rows else None

    def files(self) -> list[FileInfo]:
        return [file_info(r) for r in self._read(f'SELECT {FILE_COLUMNS} FROM files ORDER BY path COLLATE "C"')]

    # --- status -----------------------------------------------------------------------------------------------

    def counts(self, model: str) -> dict:
        files, chunks, with_vectors, sentences, sentence_vectors = self._read(
            "SELECT (SELECT COUNT(*) FROM files), (SELECT COUNT(*) FROM chunks),"
            " (SELECT COUNT(*) FROM chunks c JOIN embeddings e ON e.vector_key = c.vector_key AND e.model = %(m)s),"
            " (SELECT COUNT(*) FROM sentences),"
            " (SELECT COUNT(*) FROM sentences s JOIN embeddings e ON e.vector_key = s.vector_key AND e.model = %(m)s)",
            {"m": model},
        )[0]
        return {
            "notes": files,
            "chunks": chunks,
            "vectors_present": with_vectors,
            "vectors_missing": chunks - with_vectors,
            "sentences": sentences,
            "sentence_vectors_missing": sentences - sentence_vectors,
        }


def display_url(url: str) -> str:
    """The server and database of a connection string, without its password: for messages and status."""
    try:
        parts = conninfo_to_dict(url)
    except psycopg.ProgrammingError:
        return "postgresql://(unreadable address)"
    user = f"{parts['user']}@" if parts.get("user") else ""
    port = f":{parts['port']}" if parts.get("port") else ""
    return f"postgresql://{user}{parts.get('host', '')}{port}/{parts.get('dbname', '')}"


def _copy(db, target: str, rows: list[tuple]) -> None:
    if not rows:
        return
    with db.cursor().copy(f"COPY {target} FROM STDIN") as copy:
        for row in rows:
            copy.write_row(row)


def _lock_id(model: str, key: str) -> int:
    return int.from_bytes(hashlib.sha256(f"embed\0{model}\0{key}".encode()).digest()[:8], "big", signed=True)


def _configure(conn) -> None:
    from pgvector.psycopg import register_vector

    register_vector(conn)


def _ensure_extension(conn, url: str) -> None:
    try:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    except psycopg.Error as exc:
        raise RagError(
            f"The database {display_url(url)} cannot enable pgvector ({exc}). Install pgvector on the server and run"
            " `CREATE EXTENSION vector;` as a superuser in that database once, or use a server image that has it"
            " (docs/postgres.md)."
        ) from exc


@contextlib.contextmanager
def _translate(url: str):
    """psycopg failures → errors a person can act on."""
    try:
        yield
    except psycopg.errors.DiskFull as exc:  # before OperationalError, its parent: the address is not what is wrong
        raise DiskFull(
            f"The disk of the PostgreSQL server at {display_url(url)} is full: the write was undone. Free space there and try again."
        ) from exc
    except psycopg.OperationalError as exc:
        why = " ".join(str(exc).split()).rstrip(".?")  # libpq's text spans lines and ends in a question
        fix = (
            "Create the database first (`createdb`, or CREATE DATABASE as its owner), or point RAG_DB at an existing one."
            if "does not exist" in why
            else "Check RAG_DB (postgresql://user:password@host:port/database) and that the server is running."
        )
        raise RagError(f"Cannot use the PostgreSQL index at {display_url(url)}: {why}. {fix}") from exc
    except psycopg.errors.DataCorrupted as exc:
        raise IndexCorrupt(
            f"The PostgreSQL index at {display_url(url)} is damaged ({exc}). Restore it from a backup or drop its tables and re-index."
        ) from exc
