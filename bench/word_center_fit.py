"""Fit the mean word the vault's vocabulary is coded around (rag/index/word_code.py): the mean of single words as the
default model embeds them, on the notes of the dev vaults (bench/dev_vaults.py builds them in $RAG_DEV_VAULTS), never
on an eval set. Writes rag/index/word_center.npz (the mean, the model's name).

    python bench/word_center_fit.py [--vaults $RAG_DEV_VAULTS] [--write]
    python bench/word_center_fit.py --index DB [DB ...] [--write]   # the vocabularies of dev vaults' indexes

Each vault's words are read as the index reads them (`vocabulary.vault_forms` over its notes, every form of each
stem) and embedded as the index embeds them (`vocabulary.full_vectors`): ~24,000 words, a few minutes on 2 cores.
`--index` reads them from indexes of the dev vaults instead (any stored form of the vocabulary; the shipped file was
fitted so, from the indexes `rag eval` built of diplodoc-en/ru, jsinfo-en/ru and chats: 24,013 words).
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
from pathlib import Path

import numpy as np

from rag.config import load_settings
from rag.embed.embedders import make_embedder
from rag.index import blobs, vocabulary, word_code
from rag.index.records import WORD_MODELS

ROOT = Path(__file__).resolve().parents[1]
VAULTS = ("diplodoc-en", "diplodoc-ru", "jsinfo-en", "jsinfo-ru", "chats")


def vault_words(folder: Path) -> list[str]:
    texts = [p.read_text(encoding="utf-8") for p in sorted(folder.rglob("*.md"))]
    if not texts:
        raise SystemExit(f"No notes in {folder} (build the dev vaults with bench/dev_vaults.py)")
    return [w for forms in vocabulary.vault_forms(texts).values() for w in forms]


def embedded_words(vaults: Path, embedder) -> np.ndarray:
    words = sorted({w for name in VAULTS for w in vault_words(vaults / name)})
    return np.vstack([vocabulary.full_vectors(embedder, words[i : i + 256]) for i in range(0, len(words), 256)])


def stored_words(path: Path, model: str) -> np.ndarray:
    """The full word vectors of `model` an index's vocabulary holds (float32 rows or int8 codes)."""
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        rows = db.execute("SELECT model, vector FROM embeddings WHERE model LIKE ? AND model LIKE ?", (WORD_MODELS + "%", "%:" + model)).fetchall()
    found = [blobs.matrix_of([v for m, v in rows if m == WORD_MODELS + model])[0]]
    found += [blobs.codes_of([v for m, v in rows if m == f"{WORD_MODELS}s:{model}"])[0]]
    return np.vstack([m for m in found if m.size])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--vaults", type=Path, default=Path(os.environ.get("RAG_DEV_VAULTS", ROOT.parent / "dev-vaults")))
    parser.add_argument("--index", type=Path, nargs="*", help="read the words from these indexes of dev vaults")
    parser.add_argument("--write", action="store_true", help=f"write {word_code.CENTER.relative_to(ROOT)}")
    args = parser.parse_args()
    embedder = make_embedder(load_settings(env={}))
    vectors = np.vstack([stored_words(p, embedder.name) for p in args.index]) if args.index else embedded_words(args.vaults, embedder)
    mean = vectors.mean(axis=0).astype(np.float32)
    spread = float(np.linalg.norm(vectors - mean, axis=1).mean())
    print(
        json.dumps(
            {"model": embedder.name, "words": len(vectors), "mean norm": round(float(np.linalg.norm(mean)), 4), "difference norm": round(spread, 4)}
        )
    )
    if args.write:
        np.savez_compressed(word_code.CENTER, mean=mean, model=np.array(embedder.name))
        print(f"wrote {word_code.CENTER}")


if __name__ == "__main__":
    main()
