"""How long `python -m rag mcp` takes to answer `initialize` and `tools/list` over real stdio, when a vault of N
generated notes has never been indexed (the server must index all of it), against an empty vault (nothing to do).

    python bench/mcp_handshake.py [--notes 1000] [--runs 3] [--json]

Raw JSON-RPC lines over the subprocess's pipes, timed from spawn (Python start-up and imports included). The baseline
in the same run is the empty vault, so the ratio says how much pending indexing delays the handshake (about 1.0).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EN = "the sensor logs readings every five minutes and the controller stores them in sqlite with wal mode".split()
RU = "мы ездили на байкал в марте чтобы посмотреть на прозрачный лёд потом добрались до острова ольхон".split()


def make_vault(root: Path, notes: int, seed: int = 7) -> None:
    rnd = random.Random(seed)
    for i in range(notes):
        words = EN if i % 2 else RU
        folder = root / (f"Projects/P{i % 10}/Decisions" if i % 7 == 0 else f"Notes/Topic{i % 20}")
        folder.mkdir(parents=True, exist_ok=True)
        body = "\n".join(" ".join(rnd.choice(words) for _ in range(60)) + "\n" for _ in range(4))
        (folder / f"note-{i:04d}.md").write_text(f"# Note {i}\n\n{body}", encoding="utf-8")


def handshake(vault: Path, db: Path) -> dict:
    """Seconds from spawn to the initialize response, to the tools/list response, and the status right after."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "rag", "mcp", "--vault", str(vault), "--db", str(db)],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        encoding="utf-8",
    )
    try:
        send(
            proc,
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}},
            },
        )
        receive(proc)
        initialized = time.perf_counter() - started
        send(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        send(proc, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        tools = receive(proc)["result"]["tools"]
        listed = time.perf_counter() - started
        send(proc, {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "knowledge_status", "arguments": {}}})
        status = receive(proc)["result"]["structuredContent"]
    finally:
        proc.stdin.close()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
    return {
        "initialize_s": initialized,
        "tools_list_s": listed,
        "tools": len(tools),
        "indexing": status["indexing"],
        "notes_indexed": status["notes"],
    }


def send(proc: subprocess.Popen, message: dict) -> None:
    proc.stdin.write(json.dumps(message, ensure_ascii=False) + "\n")
    proc.stdin.flush()


def receive(proc: subprocess.Popen) -> dict:
    while True:
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError("the server closed stdout")
        message = json.loads(line)
        if "id" in message:
            return message


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--notes", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        vault, empty = Path(tmp) / "vault", Path(tmp) / "empty"
        make_vault(vault, args.notes)
        empty.mkdir()
        cold = [handshake(vault, Path(tmp) / f"cold-{i}.db") for i in range(args.runs)]
        base = [handshake(empty, Path(tmp) / f"empty-{i}.db") for i in range(args.runs)]
    result = {
        "notes": args.notes,
        "runs": args.runs,
        "cold_initialize_s": _median(cold, "initialize_s"),
        "cold_tools_list_s": _median(cold, "tools_list_s"),
        "empty_initialize_s": _median(base, "initialize_s"),
        "empty_tools_list_s": _median(base, "tools_list_s"),
        "cold_status_right_after": [(c["indexing"], c["notes_indexed"]) for c in cold],
    }
    result["ratio_tools_list_cold_vs_empty"] = round(result["cold_tools_list_s"] / result["empty_tools_list_s"], 2)
    print(json.dumps(result, ensure_ascii=False) if args.json else "\n".join(f"{k}: {v}" for k, v in result.items()))


def _median(runs: list[dict], key: str) -> float:
    return round(statistics.median(r[key] for r in runs), 3)


if __name__ == "__main__":
    main()
