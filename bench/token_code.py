"""Fit the code of e5's token states (rag/embed/token_code.py) on ordinary notes, none of an evaluation set.

    python bench/token_code.py [--vaults $RAG_DEV_VAULTS] [--pieces 600] [--states sample.npy] [--out rag/embed/token_code.npz]

Reads the development vaults (javascript.info and Diplodoc in English and Russian, the imported chats: bench/
dev_vaults.py) and the demo vault, cut into pieces of a few paragraphs (600-1,500 characters, about a chunk), a
seeded sample of `--pieces` of them through the model (`token_states`, as indexing keeps them: 600 pieces are ~88k
word tokens, ~9 min on two busy cores; `--states` keeps them for the next run), then per layer each component's mean,
its mean distance from it, and the KEPT components of most variance (a second). Writes them and the fit's number
(`version`, kept in each blob's header: bump it whenever the fit changes, or older blobs would be misread).
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
KEPT = 256  # components per layer kept, one bit each: 32 B a layer, 64 B a token for two layers
VERSION = 2  # 1 was a product code (16 runs of 24 components, k-means), measured short and never the default


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


def fit(states: np.ndarray) -> dict[str, np.ndarray]:
    """[layers, tokens, dim] → per layer the components' means [layers, dim], mean distances from them [layers, dim]
    and the KEPT components of most variance [layers, KEPT] (ascending)."""
    mean = states.mean(axis=1)
    deviation = states - mean[:, None]
    kept = np.sort(np.argsort(-(deviation**2).mean(axis=1), axis=1)[:, :KEPT], axis=1)
    return {"mean": mean, "spread": np.abs(deviation).mean(axis=1), "kept": kept.astype(np.uint16)}


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
    fitted = fit(states)
    np.savez_compressed(args.out, mean=fitted["mean"], spread=fitted["spread"], kept=fitted["kept"], version=np.int32(VERSION))
    print(f"{args.out}: {states.shape[1]} tokens, {KEPT} of {states.shape[2]} components kept a layer")


if __name__ == "__main__":
    main()
