"""What a sync costs when nothing changed, vs a bare `os.scandir` walk of the same tree; then one edited paragraph.

    python bench/sync_cost.py [--notes 10000] [--repeat 7] [--json]

Generates a vault of N notes (100 per folder, three sections each), indexes it once, then times no-change syncs
and bare walks alternately (`ratio` = sync / walk, medians, same process). Finally one paragraph of one note is
edited and synced: exactly one chunk must be embedded.

The embedder is a cheap deterministic stand-in (hash-seeded unit vectors, word-count tokens), not the real model:
this benchmark measures sync bookkeeping (walk, stat comparison, SQLite reads and writes), and embedding 10,000
notes with the real model would take most of an hour on two cores. It counts the texts it is asked to embed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from rag.config import load_settings
from rag.index.store import Store
from rag.index.sync import sync

WORDS = "sourdough levain hydration sqlite wal index vector query moscow kazan baikal train ticket garden tomato".split()


class CountingEmbedder:
    """Deterministic and cheap: a unit vector seeded by the text's hash. Counts texts embedded."""

    name, dim, window = "bench-counting", 384, 512

    def __init__(self) -> None:
        self.texts_embedded = 0

    def count_tokens(self, text: str) -> int:
        return len(text.split()) * 4 // 3 + 1

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        self.texts_embedded += len(texts)
        return np.vstack([self.embed_query(t) for t in texts]) if texts else np.zeros((0, self.dim), np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        seed = int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "little")
        v = np.random.default_rng(seed).standard_normal(self.dim).astype(np.float32)
        return v / np.linalg.norm(v)


def paragraph(i: int, j: int) -> str:
    words = [WORDS[(i * 7 + j * 3 + k) % len(WORDS)] for k in range(110)]
    return f"Note {i} section {j}: " + " ".join(words) + "."


def make_vault(root: Path, n: int) -> None:
    for i in range(n):
        folder = root / f"folder{i // 100:03d}"
        folder.mkdir(exist_ok=True)
        body = "\n\n".join(f"## Section {j}\n\n{paragraph(i, j)}" for j in range(3))
        (folder / f"note{i:05d}.md").write_text(f"# Note {i}\n\n{body}\n", encoding="utf-8")


def bare_walk(root: str) -> int:
    """The least a sync must do: list every folder and stat every note."""
    found, stack = 0, [root]
    while stack:
        with os.scandir(stack.pop()) as it:
            for entry in it:
                if entry.is_dir():
                    if not entry.name.startswith("."):
                        stack.append(entry.path)
                elif entry.name.endswith(".md"):
                    st = entry.stat()
                    found += st.st_size > 0
    return found


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        vault, db = Path(tmp) / "vault", Path(tmp) / "index.db"
        vault.mkdir()
        make_vault(vault, args.notes)
        settings = load_settings(vault=vault, db_path=db, env={})
        store = Store.open(db, create=True)
        embedder = CountingEmbedder()
        started = time.perf_counter()
        first = sync(settings, store, embedder)
        initial_s = time.perf_counter() - started
        sync_times, walk_times = [], []
        for _ in range(args.repeat):
            started = time.perf_counter()
            report = sync(settings, store, embedder)
            sync_times.append(time.perf_counter() - started)
            assert report.files_unchanged == args.notes and report.chunks_embedded == 0, report
            started = time.perf_counter()
            assert bare_walk(str(vault)) == args.notes
            walk_times.append(time.perf_counter() - started)
        target = args.notes // 2
        edited = vault / f"folder{target // 100:03d}" / f"note{target:05d}.md"
        text = edited.read_text(encoding="utf-8")
        edited.write_text(text.replace("section 1:", "section 1 (edited):"), encoding="utf-8")
        before = embedder.texts_embedded
        started = time.perf_counter()
        edit = sync(settings, store, embedder)
        edit_s = time.perf_counter() - started
        store.close()
    sync_s, walk_s = statistics.median(sync_times), statistics.median(walk_times)
    result = {
        "notes": args.notes,
        "chunks": first.chunks_total,
        "initial_index_s": round(initial_s, 1),
        "no_change_sync_s": round(sync_s, 4),
        "bare_walk_s": round(walk_s, 4),
        "ratio": round(sync_s / walk_s, 2),
        "edit_sync_s": round(edit_s, 4),
        "edit_chunks_embedded": edit.chunks_embedded,
        "edit_embed_calls_texts": embedder.texts_embedded - before,
        "edit_files_updated": edit.files_updated,
        "load_avg": os.getloadavg(),
    }
    print(json.dumps(result) if args.json else "\n".join(f"{k}: {v}" for k, v in result.items()))


if __name__ == "__main__":
    main()
