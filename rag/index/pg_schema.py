"""The index's PostgreSQL schema: numbered migrations (meta `schema_version`), the mark that makes a database ours,
and pgvector's HNSW index per embedding model. Used by `pg_store` when it connects.

The tables mirror the SQLite ones (rag/index/schema.py) with two differences: keyword search reads `postings`
(stem, chunk, weighted count; the stems are ours, rag/text/stemming.py) instead of an FTS5 table, and vectors are
pgvector `vector` values. Migrations run inside one transaction under an advisory lock, so two processes starting
at once do not both migrate.
"""

from __future__ import annotations

import hashlib

from psycopg import sql

from rag.errors import IndexForeign, IndexNewer

MARK = "ask-your-vault"  # meta `application`: this database holds our index
MIGRATION_LOCK = 0x52414756  # advisory lock key while migrating ("RAGV", as SQLite's application_id)
OUR_TABLES = (
    "meta",
    "files",
    "chunks",
    "postings",
    "sentences",
    "embeddings",
    "memory_stats",
    "memory_facts",
    "sound_postings",
    "token_states",
    "sentence_readings",
)
MIGRATIONS = [
    """
    CREATE EXTENSION IF NOT EXISTS vector;
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE files (
        path TEXT PRIMARY KEY, sha256 TEXT NOT NULL, mtime DOUBLE PRECISION NOT NULL, size BIGINT NOT NULL,
        title TEXT, tags TEXT NOT NULL DEFAULT '[]', aliases TEXT NOT NULL DEFAULT '[]',
        tier INTEGER NOT NULL DEFAULT 2, project TEXT, frontmatter_error TEXT, indexed_at DOUBLE PRECISION NOT NULL,
        description TEXT
    );
    CREATE TABLE chunks (
        rowid BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, id TEXT NOT NULL UNIQUE,
        path TEXT NOT NULL REFERENCES files(path) ON DELETE CASCADE, ordinal INTEGER NOT NULL,
        heading_path TEXT NOT NULL, start_line INTEGER NOT NULL, end_line INTEGER NOT NULL,
        start_char INTEGER NOT NULL, end_char INTEGER NOT NULL, text TEXT NOT NULL, sha256 TEXT NOT NULL,
        tokens INTEGER NOT NULL, index_text TEXT NOT NULL, vector_key TEXT NOT NULL, script TEXT,
        terms INTEGER NOT NULL  -- keyword tokens over all fields: BM25's document length
    );
    CREATE INDEX chunks_path ON chunks(path, ordinal);
    CREATE INDEX chunks_vector_key ON chunks(vector_key);
    CREATE TABLE postings (
        term TEXT NOT NULL, chunk BIGINT NOT NULL REFERENCES chunks(rowid) ON DELETE CASCADE,
        freq DOUBLE PRECISION NOT NULL,  -- occurrences, each weighted by its field (schema.BM25_RANK)
        PRIMARY KEY (term, chunk)
    );
    CREATE INDEX postings_chunk ON postings(chunk);
    CREATE TABLE sentences (
        rowid BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        chunk BIGINT NOT NULL REFERENCES chunks(rowid) ON DELETE CASCADE, line INTEGER NOT NULL,
        text TEXT NOT NULL, vector_key TEXT NOT NULL, script TEXT
    );
    CREATE INDEX sentences_chunk ON sentences(chunk);
    CREATE INDEX sentences_vector_key ON sentences(vector_key);
    CREATE TABLE embeddings (
        vector_key TEXT NOT NULL, model TEXT NOT NULL, dim INTEGER NOT NULL, vector vector NOT NULL,
        PRIMARY KEY (vector_key, model)
    );
    CREATE TABLE memory_stats (fact_id TEXT PRIMARY KEY, recalled INTEGER NOT NULL DEFAULT 0, last_recalled DOUBLE PRECISION);
    INSERT INTO meta(key, value) VALUES ('generation', '0'), ('application', 'ask-your-vault');
    """,
    # 2: agent memory's fact table (as SQLite's migration 7): one row per fact note as last read.
    """
    CREATE TABLE memory_facts (
        path TEXT PRIMARY KEY, sha256 TEXT NOT NULL, record TEXT NOT NULL, hrr BYTEA NOT NULL,
        model TEXT, meaning BYTEA
    );
    """,
    # 3: the day each passage is from (as SQLite's migration 8).
    """
    ALTER TABLE chunks ADD COLUMN day TEXT;
    ALTER TABLE chunks ADD COLUMN day_source TEXT;
    CREATE INDEX chunks_day ON chunks(day);
    CREATE TABLE chunk_days (chunk BIGINT NOT NULL REFERENCES chunks(rowid) ON DELETE CASCADE, day TEXT NOT NULL);
    CREATE INDEX chunk_days_day ON chunk_days(day, chunk);
    CREATE INDEX chunk_days_chunk ON chunk_days(chunk);
    """,
    # 4: the keyword channel between scripts (as SQLite's migration 9): each chunk's sounds, counted like postings,
    # and their number (its BM25 length). Filled by the next sync.
    """
    ALTER TABLE chunks ADD COLUMN sounds INTEGER NOT NULL DEFAULT 0;
    CREATE TABLE sound_postings (
        term TEXT NOT NULL, chunk BIGINT NOT NULL REFERENCES chunks(rowid) ON DELETE CASCADE, freq DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (term, chunk)
    );
    CREATE INDEX sound_postings_chunk ON sound_postings(chunk);
    """,
    """
    CREATE TABLE token_states (
        vector_key TEXT NOT NULL, model TEXT NOT NULL, states BYTEA NOT NULL, PRIMARY KEY (vector_key, model)
    );
    """,
    # the aligned model's sentence readings in their own table, as SQLite's migration 12
    """
    ALTER TABLE token_states RENAME COLUMN states TO data;
    CREATE TABLE sentence_readings (
        vector_key TEXT NOT NULL, model TEXT NOT NULL, data BYTEA NOT NULL, PRIMARY KEY (vector_key, model)
    );
    INSERT INTO sentence_readings(vector_key, model, data) SELECT vector_key, model, data FROM token_states WHERE model = 'use-multilingual-v3';
    DELETE FROM token_states WHERE model = 'use-multilingual-v3';
    """,
    # a fact's reading by the aligned model beside its meaning vector, as SQLite's migration 14
    """
    ALTER TABLE memory_facts ADD COLUMN reading BYTEA;
    """,
]


def migrate(conn) -> None:
    """Bring the database to the latest schema. `conn` is in autocommit mode; each run is one transaction."""
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
        check_identity(conn)
        version = _version(conn)
        if version > len(MIGRATIONS):
            raise IndexNewer(f"The index was written by a newer version (schema {version}). Upgrade Ask your vault.")
        for number in range(version, len(MIGRATIONS)):
            for statement in MIGRATIONS[number].split(";"):
                if statement.strip():
                    conn.execute(statement)
            conn.execute(
                "INSERT INTO meta(key, value) VALUES ('schema_version', %s) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (str(number + 1),),
            )


def check_identity(conn) -> None:
    """Refuse a database whose tables of our names belong to another program (nothing is changed then)."""
    present = {
        r[0] for r in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND tablename = ANY(%s)", (list(OUR_TABLES),))
    }
    if not present:
        return
    mark = conn.execute("SELECT value FROM meta WHERE key = 'application'").fetchone() if "meta" in present else None
    if mark is None or mark[0] != MARK:
        raise IndexForeign(
            f"The database already has tables named {', '.join(sorted(present))} that are not an index of Ask your vault. "
            "Point RAG_DB at another database (or add ?options=-csearch_path%3Dother_schema); these are left untouched."
        )


def _version(conn) -> int:
    exists = conn.execute("SELECT to_regclass('meta') IS NOT NULL").fetchone()[0]
    if not exists:
        return 0
    row = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    return int(row[0]) if row else 0


def ann_index_name(model: str) -> str:
    return "embeddings_hnsw_" + hashlib.sha256(model.encode()).hexdigest()[:12]


# The HNSW graph's build: pgvector's default m = 16 links per node, and ef_construction 200 instead of 64. With 64 the
# graph's recall@10 levels off below 0.99 however wide the search (100k clustered vectors: 0.975 at ef_search 100,
# 0.992 at 800; 1M: 0.899 and 0.985); with 200, 0.995 and 1.000 at 100k, 0.980 and 1.000 at 1M, for a build ~2–3×
# longer (1M: 32 min on 2 cores) and the same size and query time (bench/postgres_latency.py).
ANN_INDEX_OPTIONS = {"m": 16, "ef_construction": 200}


def ensure_ann_index(conn, model: str, dim: int) -> None:
    """pgvector's HNSW index (cosine) over one model's vectors: a partial index on the vectors cast to the model's
    dimension (a `vector` column without one cannot be indexed). Built once, then kept up to date by every insert."""
    name = ann_index_name(model)
    if conn.execute("SELECT to_regclass(%s) IS NOT NULL", (name,)).fetchone()[0]:
        return
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
        conn.execute(
            sql.SQL(
                "CREATE INDEX IF NOT EXISTS {} ON embeddings USING hnsw ((vector::vector({})) vector_cosine_ops) WITH ({}) WHERE model = {}"
            ).format(
                sql.Identifier(name),
                sql.Literal(int(dim)),
                sql.SQL(", ").join(sql.SQL("{} = {}").format(sql.Identifier(k), sql.Literal(v)) for k, v in ANN_INDEX_OPTIONS.items()),
                sql.Literal(model),
            )
        )
