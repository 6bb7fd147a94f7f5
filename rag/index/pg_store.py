"""The index on a PostgreSQL server with pgvector (`RAG_DB=postgresql://…`): the same tables and methods as the SQLite
`Store`, for shared and large vaults — several app instances, agents and indexers at once.

Split as the SQLite store is: this core (the pool, transactions, claims, meta, errors), `pg_notes` (the notes' files,
chunks and sentences), `pg_keywords` (BM25), `pg_vectors` (the vector tables and HNSW) and `pg_memory` (agent
memory's counts), mixed in; with `pg_schema` (tables, migrations), the only modules that import
psycopg. Their records are `records`, shared with SQLite. Differences from SQLite, each for concurrency or scale:
- connections come from a pool, so threads read in parallel; writes are row-level transactions (a note's rows, under
  an advisory lock on its path), not one writer at a time;
- embedding claims its texts one by one (`embedding_claim`), so two indexers share the work and never embed a text
  twice, where SQLite takes turns under a lock file;
- keyword search computes FTS5's BM25 over `postings` (our stems, counted per chunk, weighted per field), so both
  backends rank alike; meaning search may go through pgvector's HNSW index (see `pg_vectors`).
"""

from __future__ import annotations

import contextlib
import hashlib
import logging

import psycopg
from psycopg.conninfo import conninfo_to_dict
from psycopg_pool import ConnectionPool

from rag.errors import ConfigError, DiskFull, IndexCorrupt, IndexMissing, RagError
from rag.index import pg_schema
from rag.index.common import CommonReads
from rag.index.pg_keywords import PgKeywordIndex
from rag.index.pg_memory import PgMemoryStats
from rag.index.pg_notes import PgNoteTables
from rag.index.pg_vectors import PgVectorTables
from rag.index.records import (
    WORD_MODELS,
    PerChunk,
)
from rag.index.store_space import byte_shares

log = logging.getLogger(__name__)

POOL_SIZE = 8  # connections per process: the app's threads and the indexer read and write in parallel


class PgStore(CommonReads, PgNoteTables, PgKeywordIndex, PgVectorTables, PgMemoryStats):
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

    # --- maintenance ------------------------------------------------------------------------------------------

    def merge_keyword_index(self) -> None:
        """After every note was rewritten: refresh the planner's statistics (PostgreSQL's autovacuum cleans up)."""
        with self._pool.connection() as conn, _translate(self.url):
            conn.execute("ANALYZE postings")
            conn.execute("ANALYZE sound_postings")


def display_url(url: str) -> str:
    """The server and database of a connection string, without its password: for messages and status."""
    try:
        parts = conninfo_to_dict(url)
    except psycopg.ProgrammingError:
        return "postgresql://(unreadable address)"
    user = f"{parts['user']}@" if parts.get("user") else ""
    port = f":{parts['port']}" if parts.get("port") else ""
    return f"postgresql://{user}{parts.get('host', '')}{port}/{parts.get('dbname', '')}"


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
