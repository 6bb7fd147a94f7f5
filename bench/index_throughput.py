"""Indexing throughput vs the embedder's own throughput on the same texts (chunks, then sentences), in the same process.

    python bench/index_throughput.py [VAULT] [--json]      # VAULT defaults to ../shared/eval-data/qa/xquad/vault-ru

Runs the real default embedder (`LocalEmbedder`, loaded once, outside the timings): the embedder alone on the
chunk and sentence texts that indexing embeds (same order, same batch size as `sync.backfill`), then a full index of the vault
from scratch (walk, read, chunk with the model's token counts, SQLite, FTS5, embedding, bookkeeping), then the
embedder alone again. The baseline is the mean of the two embedder-alone runs, so a load change during the run
hits both sides. `ratio` = indexing chunks/s ÷ embedder chunks/s (target ≥ 0.9). Because the two embedder-alone
runs can differ by 20 % on a busy machine, `model_share` gives the same answer without that noise: the time spent
inside `embed_passages` during the indexing run ÷ the indexing run's time (both measured in the same seconds).
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

from rag.config import load_settings
from rag.index.embed import LocalEmbedder
from rag.index.store import Store
from rag.index.sync import sync

DEFAULT_VAULT = Path(__file__).resolve().parent.parent.parent / "shared/eval-data/qa/xquad/vault-ru"


class Timed:
    """The embedder, with the seconds spent in `embed_passages` added up."""

    def __init__(self, embedder: LocalEmbedder) -> None:
        self._embedder, self.seconds = embedder, 0.0
        self.name, self.dim, self.window, self.count_tokens = embedder.name, embedder.dim, embedder.window, embedder.count_tokens

    def embed_passages(self, texts: list[str]):
        started = time.perf_counter()
        try:
            return self._embedder.embed_passages(texts)
        finally:
            self.seconds += time.perf_counter() - started

    def embed_query(self, text: str):
        return self._embedder.embed_query(text)


def embed_alone(embedder: LocalEmbedder, texts: list[str], batch_size: int) -> float:
    started = time.perf_counter()
    for i in range(0, len(texts), batch_size):
        embedder.embed_passages(texts[i : i + batch_size])
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("vault", type=Path, nargs="?", default=DEFAULT_VAULT)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    embedder = LocalEmbedder()
    with tempfile.TemporaryDirectory() as tmp:
        settings = load_settings(vault=args.vault, db_path=Path(tmp) / "index.db", env={})
        batch = settings.embed_batch_size
        # The texts indexing will embed, in its order: index once without vectors to learn them (chunking is
        # deterministic). Its time is everything indexing does but embed (walk, read, chunk, SQLite, FTS5).
        probe = Store.open(Path(tmp) / "probe.db", create=True)
        started = time.perf_counter()
        sync(load_settings(vault=args.vault, db_path=Path(tmp) / "probe.db", env={}), probe, embedder, embed=False)
        text_only_s = time.perf_counter() - started
        chunk_keys = probe.missing_vector_keys(embedder.name)  # chunks first, then sentences, as `sync.backfill`
        texts = [text for _, text in probe.index_texts(chunk_keys + probe.missing_sentence_keys(embedder.name))]
        probe.close()
        embedder.embed_passages(texts[:batch])  # warm-up: first-call allocations belong to neither side
        before = embed_alone(embedder, texts, batch)
        store = Store.open(settings.db_path, create=True)
        timed = Timed(embedder)
        started = time.perf_counter()
        report = sync(settings, store, timed)
        index_s = time.perf_counter() - started
        store.close()
        after = embed_alone(embedder, texts, batch)
    embed_s = (before + after) / 2
    assert report.chunks_embedded + report.sentences_embedded == len(texts), (report, len(texts))
    result = {
        "vault": str(args.vault),
        "notes": report.files_added,
        "chunks": report.chunks_total,
        "texts_embedded": len(texts),
        "sentences_embedded": report.sentences_embedded,
        "index_s": round(index_s, 2),
        "embedder_alone_s": round(embed_s, 2),
        "text_only_index_s": round(text_only_s, 2),
        "embedder_alone_runs_s": [round(before, 2), round(after, 2)],
        "index_chunks_per_s": round(len(texts) / index_s, 2),
        "embedder_chunks_per_s": round(len(texts) / embed_s, 2),
        "ratio": round(embed_s / index_s, 3),
        "model_share": round(timed.seconds / index_s, 3),
        "load_avg": os.getloadavg(),
    }
    print(json.dumps(result) if args.json else "\n".join(f"{k}: {v}" for k, v in result.items()))


if __name__ == "__main__":
    main()
