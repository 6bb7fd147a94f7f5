"""Fit the code of e5's token states (rag/embed/token_code.py) on ordinary notes, none of an evaluation set.

    python bench/token_code.py [--vaults $RAG_DEV_VAULTS] [--pieces 600] [--out rag/embed/token_code.npz]

Reads the development vaults (javascript.info and Diplodoc in English and Russian, the imported chats: bench/
dev_vaults.py) and the demo vault, cut into pieces of a few paragraphs (600-1,500 characters, about a chunk), a
seeded sample of `--pieces` of them through the model (`token_states`, as indexing keeps them: 600 pieces are ~88k
word tokens, ~9 min on two busy cores), then per layer and per run of components k-means with 256 centroids (seeded,
k-means++-free: random tokens as the start, 15 rounds on 40k tokens). Writes float16 centroids and the fit's number
(`version`, kept in each blob's header: bump it whenever the centroids change, or older blobs would be misread).
"""

from __future__ import annotations

import argparse
import os
import random
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
VAULTS = ("diplodoc-en", "diplodoc-ru", "jsinfo-en", "jsinfo-ru", "chats")
PARTS = 16  # runs of 24 components per layer: one byte each, 32 B a token for two layers
ROUNDS = 15
FIT_TOKENS = 40_000
VERSION = 1


def pieces(folders: list[Path], count: int) -> list[str]:
    """A seeded sample of `count` pieces of a few paragraphs each."""
    found = []
    for folder in folders:
        for path in sorted(folder.rglob("*.md")):
            piece = ""
            for paragraph in (p.strip() for p in path.read_text(encoding="utf-8", errors="replace").split("\n\n")):
                if len(paragraph) > 80:
                    piece = f"{piece}\n\n{paragraph}" if piece else paragraph
                    if len(piece) > 600:
                        found.append(piece[:1500])
                        piece = ""
    random.Random(0).shuffle(found)
    return found[:count]


def kmeans(points: np.ndarray, k: int, rounds: int, rng: np.random.Generator) -> np.ndarray:
    centroids = points[rng.choice(len(points), k, replace=False)].copy()
    for _ in range(rounds):
        nearest = ((centroids * centroids).sum(1)[None] - 2 * points @ centroids.T).argmin(1)
        counts = np.bincount(nearest, minlength=k)
        sums = np.zeros_like(centroids)
        np.add.at(sums, nearest, points)
        empty = counts == 0  # a centroid nothing chose starts again at a random token
        centroids = np.where(empty[:, None], points[rng.integers(len(points), size=k)], sums / np.maximum(counts, 1)[:, None])
    return centroids


def fit(states: np.ndarray) -> np.ndarray:
    """[layers, tokens, dim] → centroids [layers, PARTS, 256, dim / PARTS]."""
    rng = np.random.default_rng(1)
    layers, tokens, dim = states.shape
    run = dim // PARTS
    books = np.empty((layers, PARTS, 256, run), np.float32)
    for layer in range(layers):
        sample = states[layer, rng.choice(tokens, min(FIT_TOKENS, tokens), replace=False)]
        for part in range(PARTS):
            books[layer, part] = kmeans(sample[:, part * run : (part + 1) * run], 256, ROUNDS, rng)
    return books


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--vaults", type=Path, default=Path(os.environ.get("RAG_DEV_VAULTS", ROOT.parent / "dev-vaults")))
    parser.add_argument("--pieces", type=int, default=600)
    parser.add_argument("--states", type=Path, help="Keep the sampled states here (.npy), and read them from there next time.")
    parser.add_argument("--out", type=Path, default=ROOT / "rag" / "embed" / "token_code.npz")
    args = parser.parse_args()
    if args.states and args.states.exists():
        states = np.load(args.states).astype(np.float32)
    else:
        from rag.embed.embedders import LocalEmbedder

        texts = pieces([args.vaults / v for v in VAULTS] + [ROOT / "rag" / "demo_vault"], args.pieces)
        started, model = time.perf_counter(), LocalEmbedder()
        read = [s for i in range(0, len(texts), 16) for s in model.token_states(texts[i : i + 16])]
        states = np.concatenate(read, axis=1)
        print(f"{len(texts)} pieces, {states.shape[1]} tokens read in {time.perf_counter() - started:.0f} s")
        if args.states:
            np.save(args.states, states.astype(np.float16))
    started = time.perf_counter()
    books = fit(states)
    np.savez_compressed(args.out, centroids=books.astype(np.float16), version=np.int32(VERSION))
    print(f"{args.out}: {books.shape} centroids fitted in {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
