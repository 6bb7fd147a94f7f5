"""A cross-language search's question read through the model once: its vector and its token states (the token match,
rag/search/token_match.py) from one forward pass, the same numbers as each alone, and searches ranked as before."""

from __future__ import annotations

import numpy as np
import pytest

from rag.config import load_settings
from rag.embed.e5_onnx import OnnxE5
from rag.search import text_vectors
from rag.search.token_match import TokenMatch
from rag.text import stemming
from rag.workspace import Workspace
from tests.test_languages import _demo_questions

NOTES = {
    "Final/Anthem.md": "# Final\n\nBefore the kickoff, the singer Maria Lopez performed the national anthem at the stadium.\n",
    "Final/Stadium.md": "# Final\n\nThe stadium was built in 1998 and holds seventy thousand people; its roof closes when it rains.\n",
}


QUESTIONS = ["Кто исполнил гимн перед финалом?", "How much salt per kilogram of cabbage?", " ".join(["гимн"] * 600)]


def test_a_questions_vector_and_token_states_from_one_pass_are_those_of_each_alone(real_embedder):
    engine = real_embedder._query_engine()  # the engine questions are embedded by (float32 ONNX)
    for question in QUESTIONS:
        vectors, states = engine.embed_with_states([question], query=True, leave_out=stemming.STOP_WORDS)
        assert np.array_equal(vectors, engine.embed([question], query=True))
        alone = engine.token_states([question], query=True, leave_out=stemming.STOP_WORDS)[0]
        assert states[0].shape == alone.shape and np.array_equal(states[0], alone)


def test_the_embedders_question_vector_and_states_are_those_it_gives_each_alone(real_embedder):
    for question in QUESTIONS[:2]:
        vector, states = real_embedder.embed_query_with_states(question, leave_out=stemming.STOP_WORDS)
        assert np.array_equal(vector, real_embedder.embed_query(question))
        alone = real_embedder.token_states([question], query=True, leave_out=stemming.STOP_WORDS)[0]
        assert states.shape == alone.shape and np.array_equal(states, alone)


@pytest.fixture(scope="module")
def float32_embedder():
    """The default model on ONNX in float32 alone (a CPU without fast int8): one engine embeds questions and reads
    tokens."""
    from rag.embed.embedders import LocalEmbedder

    return LocalEmbedder("onnx-fp32")


def _notes_settings(tmp_path):
    vault = tmp_path / "vault"
    for path, text in NOTES.items():
        (vault / path).parent.mkdir(parents=True, exist_ok=True)
        (vault / path).write_text(text, encoding="utf-8")
    return load_settings(vault=vault, db_path=tmp_path / "index.db", env={"RAG_TOKEN_MATCH": "1"})


def _texts_read(monkeypatch) -> list[str]:
    """Every text the model reads from now on (for vectors or token states), nothing cached before."""
    text_vectors._CACHE.clear()
    read: list[str] = []
    embed, read_states = OnnxE5.embed, OnnxE5._read
    monkeypatch.setattr(OnnxE5, "embed", lambda self, texts, **kw: read.extend(texts) or embed(self, texts, **kw))
    monkeypatch.setattr(OnnxE5, "_read", lambda self, texts, **kw: read.extend(texts) or read_states(self, texts, **kw))
    return read


def test_a_cross_language_search_reads_its_question_through_the_model_once(tmp_path, float32_embedder, monkeypatch):
    real_embedder = float32_embedder
    question = "Какая певица исполнила гимн на стадионе перед матчем?"
    settings = _notes_settings(tmp_path)
    with Workspace.open(settings, create=True, embedder=real_embedder) as ws:
        ws.sync()
        read = _texts_read(monkeypatch)
        hits = ws.retriever.hybrid(question, 5).hits
        assert read.count(question) == 1
        assert hits[0].chunk.path == "Final/Anthem.md"
        assert ws.retriever.tokens._questions[question].shape[1] > 0  # the token match had the question's states


def test_a_same_language_search_reads_its_question_once_with_any_engine(tmp_path, real_embedder, monkeypatch):
    question = "Who performed the national anthem at the stadium?"
    settings = _notes_settings(tmp_path)
    with Workspace.open(settings, create=True, embedder=real_embedder) as ws:
        ws.sync()
        read = _texts_read(monkeypatch)
        assert ws.retriever.hybrid(question, 5).hits[0].chunk.path == "Final/Anthem.md"
        assert read == [question]


def _ranked(ws, questions):
    text_vectors._CACHE.clear()
    ws.retriever.tokens = TokenMatch(ws.embedder)
    return [[(h.chunk.rowid, h.score) for h in ws.retriever.hybrid(q, 10).hits] for q in questions]


def test_the_demo_questions_rank_the_same_with_the_question_read_once_or_twice(demo, monkeypatch):
    questions = [q for q, _ in _demo_questions()]
    assert len(questions) == 12
    once = _ranked(demo, questions)
    monkeypatch.setattr(TokenMatch, "reads_with_vector", property(lambda self: False))
    twice = _ranked(demo, questions)
    for a, b in zip(once, twice):
        assert [r for r, _ in a] == [r for r, _ in b]
        assert np.allclose([s for _, s in a], [s for _, s in b], rtol=0, atol=1e-9)


@pytest.fixture(autouse=True)
def _fresh_query_vectors():
    yield
    text_vectors._CACHE.clear()  # other tests' searches embed their questions as before


def test_a_fresh_engine_judges_only_the_pieces_of_what_it_reads(real_embedder):
    """Which tokens are words (letters or digits) is judged per piece met, not for the 250k pieces of the vocabulary
    before a fresh process's first question (0.21 CPU s); the states are the same."""
    fresh = OnnxE5(real_embedder._weights, real_embedder._tokens(), int8=False)
    states = fresh.token_states(["Кто исполнил гимн — и где?"], query=True)[0]
    assert 0 < len(fresh._wordy) < 20
    alone = real_embedder._query_engine().token_states(["Кто исполнил гимн — и где?"], query=True)[0]
    assert np.array_equal(states, alone)
