"""A chat server that sends nothing while its model reads the prompt (llama.cpp's server on a CPU does): does the
first question of a fresh install, with the default request_timeout of 60 s, get its answer? The test server plays
the model (tests/openai_server.py) with a first-token delay; `rag ask` runs as a user would, on the demo vault.

    python bench/silent_model.py [--delay 75]                 # this version
    PYTHONPATH=<a worktree of an older commit> python bench/silent_model.py   # an earlier one, to compare

Prints {"exit", "seconds", "last_line"}.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.openai_server import FakeOpenAI  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--delay", type=float, default=75.0, help="seconds the model reads before its first word")
    args = parser.parse_args()
    code = Path(os.environ.get("PYTHONPATH", "").split(os.pathsep)[0] or ROOT)
    with tempfile.TemporaryDirectory() as tmp, FakeOpenAI(models=("local",)) as server:
        server.delay_first_token = args.delay
        server.chat_handler = lambda body: "White bread is kept at 72% hydration [S1]."
        env = {k: v for k, v in os.environ.items() if not k.startswith(("RAG_", "OPENAI_"))}
        env.update(OPENAI_BASE_URL=server.base_url, RAG_CHAT_MODEL="local", RAG_VAULT=str(code / "rag" / "demo_vault"), RAG_DB=f"{tmp}/index.db")
        subprocess.run([sys.executable, "-m", "rag", "index"], env=env, capture_output=True, cwd=tmp, check=True)
        started = time.perf_counter()
        asked = subprocess.run(
            [sys.executable, "-m", "rag", "ask", "What hydration do I keep for white bread?"], env=env, capture_output=True, text=True, cwd=tmp
        )
        lines = (asked.stdout + asked.stderr).strip().splitlines()
        print(
            json.dumps(
                {"exit": asked.returncode, "seconds": round(time.perf_counter() - started, 1), "last_line": lines[-1][:200] if lines else ""},
                ensure_ascii=False,
            )
        )


if __name__ == "__main__":
    main()
