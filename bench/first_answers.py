"""The first questions a new user asks a real chat model with the default settings (12,000 characters of context,
request_timeout 60 s): each one answered, or ended by a timeout, and how long it took. With `--busy N`, N processes
keep the cores busy meanwhile, as the app's first indexing does on a fresh install.

    bash ../shared/tools/local-llm.sh
    OPENAI_BASE_URL=http://127.0.0.1:8765/v1 OPENAI_API_KEY=x RAG_CHAT_MODEL=local RAG_EVAL_DATA=DATA \\
        python bench/first_answers.py [--set fastapi-en] [--n 4] [--busy 2] [--db-dir /tmp/rag-eval]

Each line: {"id", "ok", "seconds", "chars"} or {"id", "ok": false, "seconds", "error"}. Not for CI.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import time
from pathlib import Path

from rag.answer.ask import ask
from rag.chat.configured import make_chat_model
from rag.config import load_settings
from rag.errors import ChatError
from rag.workspace import Workspace

sys.path.insert(0, str(Path(__file__).resolve().parent))

from offline_answers import SETS, index_path, questions  # noqa: E402


def _spin() -> None:
    while True:
        pass


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", default="fastapi-en")
    parser.add_argument("--n", type=int, default=4)
    parser.add_argument("--busy", type=int, default=0, help="processes keeping the cores busy meanwhile")
    parser.add_argument("--db-dir", type=Path, default=Path("/tmp/rag-eval"))
    args = parser.parse_args()
    qa = SETS[args.set]
    settings = load_settings(vault=qa.vault, db_path=index_path(args.set, args.db_dir))
    if not settings.chat_model:
        sys.exit("Set RAG_CHAT_MODEL and OPENAI_BASE_URL to a real model (see the docstring).")
    with Workspace.open(settings, create=True) as ws:
        ws.sync()
        hogs = [multiprocessing.Process(target=_spin, daemon=True) for _ in range(args.busy)]
        for hog in hogs:
            hog.start()
        try:
            for item in questions(qa, args.n):
                chat = make_chat_model(settings)
                started = time.perf_counter()
                try:
                    answer = ask(ws, item["question"], chat=chat)
                    row = {"id": item["id"], "ok": True, "seconds": round(time.perf_counter() - started, 1), "chars": answer.context.chars}
                except ChatError as exc:
                    row = {"id": item["id"], "ok": False, "seconds": round(time.perf_counter() - started, 1), "error": str(exc)[:160]}
                finally:
                    chat.close()
                print(json.dumps(row, ensure_ascii=False), flush=True)
        finally:
            for hog in hogs:
                hog.terminate()


if __name__ == "__main__":
    main()
