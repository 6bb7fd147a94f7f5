"""Time and peak memory of importing a synthetic ~150 MB Claude.ai conversations.json (not run in CI).

    python bench/import_memory.py [--mb 150] [--no-naive]

Writes the export (Cyrillic escaped as \\uXXXX, both message schemas, inline artifacts) into a temp dir,
then runs each measurement in a fresh child process so peak RSS belongs to that step alone:
  idle   - Python with rag.importers imported (the floor)
  import - import_export("claude-ai", …) into an empty vault
  reimport - the same import again (every note unchanged: parse, render, compare, no writes)
  naive  - json.load of the same file (what a non-streaming importer would need at least)
Prints one JSON object with seconds, peak RSS (MB) and the ratios import/naive.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PARAGRAPH = ("Закваска любит тепло: при 26 °C она поднимается за четыре часа. Sourdough likes warmth; at 26 °C it doubles in about four hours. ") * 3
ARTIFACT = (
    '<antArtifact identifier="bake" type="application/vnd.ant.code" language="python" title="Таймер">\n'
    + "def bake(minutes):\n    return minutes * 60\n" * 10
    + "</antArtifact>"
)


def _message(i: int, j: int, day: str) -> dict:
    sender = "human" if j % 2 == 0 else "assistant"
    text = PARAGRAPH + (f"\n\n{ARTIFACT}" if sender == "assistant" and j % 4 == 1 else "")
    message = {
        "uuid": f"m-{i}-{j}",
        "sender": sender,
        "text": text,
        "created_at": f"{day}T10:{j % 60:02d}:00Z",
        "updated_at": f"{day}T10:{j % 60:02d}:00Z",
        "attachments": [],
        "files": [],
    }
    if i % 2:  # the newer schema: content blocks next to the text
        message["content"] = [{"type": "thinking", "thinking": "Считаю."}, {"type": "text", "text": text}]
    return message


def write_export(path: Path, megabytes: int) -> int:
    """Write conversations until the file passes `megabytes`; returns how many."""
    target = megabytes * 1_000_000
    count = 0
    with open(path, "w", encoding="utf-8") as out:
        out.write("[")
        while out.tell() < target:
            day = f"2024-{1 + count % 12:02d}-{1 + count % 28:02d}"
            conv = {
                "uuid": f"conv-{count:07d}",
                "name": f"Хлеб и закваска, часть {count}",
                "created_at": f"{day}T10:00:00Z",
                "updated_at": f"{day}T12:00:00Z",
                "account": {"uuid": "acc"},
                "chat_messages": [_message(count, j, day) for j in range(12)],
            }
            out.write(("," if count else "") + json.dumps(conv, ensure_ascii=True))
            count += 1
        out.write("]")
    return count


def _child(step: str, source: str, vault: str) -> None:
    from rag.importers import import_export

    started = time.perf_counter()
    result: dict = {}
    if step in ("import", "reimport"):
        report = import_export("claude-ai", Path(source), Path(vault))
        result = {k: v for k, v in report.to_json().items() if k != "errors"} | {"errors": len(report.errors)}
    elif step == "naive":
        with open(source, encoding="utf-8") as handle:
            result = {"conversations": len(json.load(handle))}
    seconds = time.perf_counter() - started
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux reports KiB
    print(json.dumps({"seconds": round(seconds, 2), "peak_rss_mb": round(peak_mb, 1), **result}))


def _run(step: str, source: Path, vault: Path) -> dict:
    out = subprocess.run([sys.executable, __file__, "--child", step, str(source), str(vault)], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=150)
    parser.add_argument("--no-naive", action="store_true")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(*args.child)
        return
    with tempfile.TemporaryDirectory() as tmp:
        source, vault = Path(tmp) / "conversations.json", Path(tmp) / "vault"
        vault.mkdir()
        conversations = write_export(source, args.mb)
        result = {
            "file_mb": round(source.stat().st_size / 1e6, 1),
            "conversations": conversations,
            "idle": _run("idle", source, vault),
            "import": _run("import", source, vault),
            "reimport": _run("reimport", source, vault),
        }
        if not args.no_naive:
            result["naive"] = _run("naive", source, vault)
            result["rss_ratio_import_to_naive"] = round(result["import"]["peak_rss_mb"] / result["naive"]["peak_rss_mb"], 3)
        result["import_rss_above_idle_mb"] = round(result["import"]["peak_rss_mb"] - result["idle"]["peak_rss_mb"], 1)
        print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
