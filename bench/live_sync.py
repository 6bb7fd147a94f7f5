"""Live sync: the throttled check before reads on an unchanged vault, and how soon a saved note is found.

    python bench/live_sync.py [--notes 10000] [--repeat 7] [--saves 5] [--json]

1. Generates a vault of N notes (as `bench/sync_cost.py` does), indexes it with a cheap stand-in embedder, then
   times the check a read triggers (`LiveIndex.fresh()` with the interval elapsed: walk, stat comparison, no
   embedding) against a bare `os.scandir` walk of the same tree, alternately, medians; `ratio` = check / walk.
2. With the real default embedder and the watcher (`rag.index.watch`) on a small vault: saves a new note and times until
   keyword search finds it and until meaning search finds it (median over `--saves` notes).
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from sync_cost import CountingEmbedder, bare_walk, make_vault  # the sibling script (bench/ is the script folder)

from rag.config import load_settings
from rag.index.watch import Watcher
from rag.live import LiveIndex
from rag.workspace import Workspace

FACTS = [
    ("axolotl", "The axolotl regrows lost limbs within weeks.", "which amphibian can regenerate its legs"),
    ("okapi", "The okapi lives in the rainforest of Congo and looks like a striped giraffe.", "a forest giraffe relative with stripes"),
    ("pangolin", "Pangolins are covered in keratin scales and roll into a ball.", "scaly mammal that curls up when threatened"),
    ("quokka", "Quokkas live on Rottnest Island near Perth.", "small marsupial on an island off Western Australia"),
    ("kakapo", "The kakapo is a flightless, nocturnal parrot from New Zealand.", "a parrot that cannot fly"),
]


def check_cost(notes: int, repeat: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        vault = Path(tmp) / "vault"
        vault.mkdir()
        make_vault(vault, notes)
        settings = load_settings(vault=vault, db_path=Path(tmp) / "index.db", env={})
        with LiveIndex(settings, embedder=CountingEmbedder(), interval=0) as live:
            live.reindex()
            checks, walks = [], []
            for _ in range(repeat):
                started = time.perf_counter()
                live.fresh()
                checks.append(time.perf_counter() - started)
                started = time.perf_counter()
                assert bare_walk(str(vault)) == notes
                walks.append(time.perf_counter() - started)
    check, walk = statistics.median(checks), statistics.median(walks)
    return {"notes": notes, "no_change_check_s": round(check, 4), "bare_walk_s": round(walk, 4), "ratio": round(check / walk, 2)}


def save_to_found(saves: int) -> dict:
    from rag.embed.embedders import LocalEmbedder

    embedder = LocalEmbedder()
    keyword_s, meaning_s = [], []
    with tempfile.TemporaryDirectory() as tmp:
        vault = Path(tmp) / "vault"
        vault.mkdir()
        make_vault(vault, 50)
        settings = load_settings(vault=vault, db_path=Path(tmp) / "index.db", env={})
        with Workspace.open(settings, create=True, embedder=embedder) as ws:
            ws.sync()
            with Watcher(settings, lambda: ws.sync() is not None):
                time.sleep(0.5)
                for word, text, question in FACTS[:saves]:
                    saved = time.perf_counter()
                    (vault / f"{word}.md").write_text(f"# {word.title()}\n\n{text}\n", encoding="utf-8")
                    keyword_s.append(_until(lambda: ws.retriever.keyword(word, 5).hits) - saved)
                    found = lambda: any(h.chunk.path == f"{word}.md" for h in ws.retriever.dense(question, 3).hits)  # noqa: E731
                    meaning_s.append(_until(found) - saved)
    return {
        "debounce_s": settings.watch_debounce,
        "saves": len(keyword_s),
        "save_to_keyword_s": round(statistics.median(keyword_s), 3),
        "save_to_meaning_s": round(statistics.median(meaning_s), 3),
        "save_to_meaning_max_s": round(max(meaning_s), 3),
    }


def _until(condition, timeout: float = 60.0) -> float:
    deadline = time.perf_counter() + timeout
    while not condition():
        if time.perf_counter() > deadline:
            raise SystemExit("timed out waiting for the saved note to be found")
        time.sleep(0.01)
    return time.perf_counter()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--saves", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = {**check_cost(args.notes, args.repeat), **save_to_found(min(args.saves, len(FACTS)))}
    print(json.dumps(result) if args.json else "\n".join(f"{k}: {v}" for k, v in result.items()))


if __name__ == "__main__":
    main()
