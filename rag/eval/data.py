"""Where the evaluation data is (BEIR-style retrieval sets, QA sets with gold lines, chat exports): $RAG_EVAL_DATA,
else `eval-data` in a `shared` folder beside the checkout (where our development machines keep it). Only the bench
scripts and `rag eval` read it; nothing of it is copied into the repository."""

from __future__ import annotations

import os
from pathlib import Path

_BESIDE = Path(__file__).resolve().parents[2].parent / "shared" / "eval-data"
EVAL_DATA = Path(os.environ["RAG_EVAL_DATA"]).expanduser() if os.environ.get("RAG_EVAL_DATA") else _BESIDE
