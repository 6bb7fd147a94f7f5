"""Fit the projection the vault's vocabulary is stored in (rag/index/vocabulary.py): the principal directions of
single words as the default model embeds them, on the notes of the dev vaults (bench/dev_vaults.py builds them in
$RAG_DEV_VAULTS), never on an eval set. Writes rag/index/word_projection.npz (the mean, the first --dims directions
as float16, the model's name) and prints how much of the words' variance they keep. None is shipped: 128 directions
lost ranking and an answer across languages (rag/index/word_projection.py says what was measured).

    python bench/word_projection_fit.py [--vaults $RAG_DEV_VAULTS] [--dims 128] [--write]

Each vault's words are read as the index reads them (`vocabulary.vault_forms` over its notes, every form of each
stem, as questions write them) and embedded as the index embeds them (`vocabulary.full_vectors`): ~23,000 words, a
few minutes on 2 cores.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

import numpy as np

from rag.config import load_settings
from rag.embed.embedders import make_embedder
from rag.index import vocabulary, word_projection

ROOT = Path(__file__).resolve().parents[1]
DIMS = 256  # 128 lost XQuAD ru2en 0.003 nDCG@10 and a holdout answer (rag/index/word_projection.py)
VAULTS = ("diplodoc-en", "diplodoc-ru", "jsinfo-en", "jsinfo-ru", "chats")


def vault_words(folder: Path) -> list[str]:
    texts = [p.read_text(encoding="utf-8") for p in sorted(folder.rglob("*.md"))]
    if not texts:
        raise SystemExit(f"No notes in {folder} (build the dev vaults with bench/dev_vaults.py)")
    return [w for forms in vocabulary.vault_forms(texts).values() for w in forms]


def fit(vectors: np.ndarray, dims: int) -> tuple[np.ndarray, np.ndarray, float]:
    """(mean, directions [dim × dims], share of the variance they keep) of the rows."""
    mean = vectors.mean(axis=0)
    _, singular, vt = np.linalg.svd(vectors - mean, full_matrices=False)
    kept = float((singular[:dims] ** 2).sum() / (singular**2).sum())
    return mean.astype(np.float32), vt[:dims].T.astype(np.float32), kept


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--vaults", type=Path, default=Path(os.environ.get("RAG_DEV_VAULTS", ROOT.parent / "dev-vaults")))
    parser.add_argument("--dims", type=int, default=DIMS)
    parser.add_argument("--write", action="store_true", help=f"write {word_projection.PROJECTION.relative_to(ROOT)}")
    args = parser.parse_args()
    embedder = make_embedder(load_settings(env={}))
    words = sorted({w for name in VAULTS for w in vault_words(args.vaults / name)})
    vectors = np.vstack([vocabulary.full_vectors(embedder, words[i : i + 256]) for i in range(0, len(words), 256)])
    mean, directions, kept = fit(vectors, args.dims)
    print(json.dumps({"model": embedder.name, "words": len(words), "dims": args.dims, "variance kept": round(kept, 4)}))
    if args.write:
        np.savez_compressed(word_projection.PROJECTION, mean=mean, directions=directions.astype(np.float16), model=np.array(embedder.name))
        print(f"wrote {word_projection.PROJECTION}")


if __name__ == "__main__":
    main()
