"""Token states kept at indexing (rag/index/sync.py `backfill`, rag/search/token_match.py `pack`): each chunk's states
come from the forward pass that embeds it, the token match reads them from the index instead of running the model
again, an index made before they were kept gets them at its next sync, and they go with their chunks."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from rag.config import load_settings
from rag.devtools.fake_embedder import FakeEmbedder
from rag.index import blobs
from rag.index.records import PerChunk
from rag.index.token_blobs import pack, unpack
from rag.search.token_match import TokenMatch
from rag.workspace import Workspace

NOTES = {
    "Final/Anthem.md": "# Final\n\nBefore the kickoff, the singer Maria Lopez performed the national anthem at the stadium.\n",
    "Final/Stadium.md": "# Final\n\nThe stadium was built in 1998 and holds seventy thousand people; its roof closes when it rains.\n",
    "Final/Coach.md": "# Final\n\nAfter the game, the winning coach thanked the fans and the city for their support.\n",
}
QUESTION = "Кто исполнил государственный гимн на стадионе?"


def _vault(tmp_path, notes=NOTES):
    vault = tmp_path / "vault"
    for path, text in notes.items():
        (vault / path).parent.mkdir(parents=True, exist_ok=True)
        (vault / path).write_text(text, encoding="utf-8")
    return vault


class TokenFake(FakeEmbedder):
    """The fake embedder with token states at the model seam: each word one token, a hashed unit row per layer.
    Records which texts it read for their states, and how (with the vectors, or alone)."""

    reads_tokens = True

    def __init__(self) -> None:
        super().__init__()
        self.states_read: list[tuple[str, str]] = []

    def _states(self, text: str) -> np.ndarray:
        words = [w.strip("?.,;#").lower() for w in text.split() if w.strip("?.,;#")] or ["empty"]
        rows = np.zeros((2, len(words), 32), np.float32)
        for i, w in enumerate(words):
            rows[:, i, int(hashlib.md5(w.encode()).hexdigest(), 16) % 32] = 1.0
        return rows

    def token_states(self, texts, *, query=False, leave_out=frozenset()):
        self.states_read.extend(("question" if query else "alone", t) for t in texts)
        return [self._states(t) for t in texts]

    def embed_passages_with_states(self, texts):
        self.states_read.extend(("with vectors", t) for t in texts)
        return self.embed_passages(texts), [self._states(t) for t in texts]


def test_packed_states_keep_every_row_to_within_4_bit_rounding():
    rng = np.random.default_rng(7)
    states = rng.normal(size=(1, 37, 512)).astype(np.float32)  # not e5's two layers (those: tests/test_token_code.py)
    states /= np.linalg.norm(states, axis=2, keepdims=True)
    blob = pack(states)
    back = unpack(blob)
    assert back.shape == states.shape and back.dtype == np.float32
    assert len(blob) == 16 + 37 * (4 + 512 // 2)  # sizes and bits, a scale and two components a byte per row
    cosines = np.sum(back * states, axis=2) / np.linalg.norm(back, axis=2)
    assert cosines.min() > 0.97  # 4 bits a component keep a row's direction (the match is a cosine)
    assert unpack(pack(np.zeros((1, 0, 512), np.float32))).shape == (1, 0, 512)  # a chunk without a word token


def test_unreadable_stored_states_leave_that_passage_out_of_the_match_and_nothing_else(caplog, monkeypatch):
    monkeypatch.setattr(blobs, "_warned", set())  # warned once a process: this test is a process of its own
    fake = TokenFake()
    match = TokenMatch(fake)
    good = pack(fake._states(NOTES["Final/Anthem.md"]))
    truncated, other_bits = good[:40], good[:12] + np.uint32(8).tobytes() + good[16:]
    for _ in range(2):
        scores = match.scores(QUESTION, {}, stored={1: good, 2: truncated, 3: other_bits})
        assert set(scores) == {1}
    assert caplog.text.count("Unreadable stored token states") == 1  # once, not once per search


@pytest.mark.both_backends
def test_indexing_keeps_each_chunks_states_from_the_pass_that_embeds_it_and_search_reads_them(tmp_path, index_location):
    fake = TokenFake()
    vault = _vault(tmp_path)
    settings = load_settings(vault=vault, db_path=index_location, env={"RAG_TOKEN_MATCH": "1"})
    with Workspace.open(settings, create=True, embedder=fake) as ws:
        report = ws.sync()
        rows = sorted(ws.store.chunk_paths(list(NOTES)))
        assert report.chunks_total == len(rows) == 3
        assert sorted(how for how, _ in fake.states_read) == ["with vectors"] * 3  # no second pass
        stored = ws.store.chunk_data(PerChunk.TOKEN_STATES, fake.name, rows)
        texts = ws.store.chunk_index_texts(rows)
        assert set(stored) == set(rows) and ws.store.missing_chunk_data(PerChunk.TOKEN_STATES, fake.name) == []
        for row in rows:
            assert np.allclose(unpack(stored[row]), fake._states(texts[row]), atol=1e-2)
        fake.states_read.clear()
        ranked = ws.retriever.token_ranking(QUESTION, rows)
        assert {row for row, _ in ranked} == set(rows)
        assert fake.states_read == [("question", QUESTION)]  # the passages came from the index

        (vault / "Final/Coach.md").unlink()
        ws.sync()
        assert len(ws.store.chunk_data(PerChunk.TOKEN_STATES, fake.name, rows)) == 2  # gone with its chunk
        assert ws.store.missing_chunk_data(PerChunk.TOKEN_STATES, fake.name) == []


@pytest.mark.both_backends
def test_an_index_made_without_token_states_gets_them_at_its_next_sync_with_the_match_on(tmp_path, index_location):
    fake = TokenFake()
    vault = _vault(tmp_path)
    with Workspace.open(load_settings(vault=vault, db_path=index_location, env={"RAG_TOKEN_MATCH": "0"}), create=True, embedder=fake) as ws:
        ws.sync()
        rows = sorted(ws.store.chunk_paths(list(NOTES)))
        assert fake.states_read == [] and ws.store.chunk_data(PerChunk.TOKEN_STATES, fake.name, rows) == {}
        assert len(ws.store.missing_chunk_data(PerChunk.TOKEN_STATES, fake.name)) == 3
        assert ws.status()["token_states_missing"] is None  # the match is off: nothing is missing
        # meanwhile the match reads the chunks as they were embedded
        assert {row for row, _ in ws.retriever.token_ranking(QUESTION, rows)} == set(rows)
        texts = ws.store.chunk_index_texts(rows)
        assert sorted(t for how, t in fake.states_read if how == "alone") == sorted(texts.values())
    fake.states_read.clear()
    fake.embedded.clear()
    later = load_settings(vault=vault, db_path=index_location, env={"RAG_TOKEN_MATCH": "1"}, embed_batch_size=1)
    with Workspace.open(later, embedder=fake) as ws:
        assert ws.status()["token_states_missing"] == 3  # what `rag status` reports before the sync
        progress = []
        report = ws.sync(progress=lambda stage, done, total: progress.append((stage, done, total)))
        assert fake.embedded == [] and report.chunks_embedded == 0  # the vectors stay
        assert sorted(t for how, t in fake.states_read if how == "alone") == sorted(texts.values())
        assert len(ws.store.chunk_data(PerChunk.TOKEN_STATES, fake.name, rows)) == 3 and ws.status()["token_states_missing"] == 0
        embed = [(done, total) for stage, done, total in progress if stage == "embed"]
        assert embed[-1][0] == embed[-1][1] > 0 and any(0 < done < total for done, total in embed)  # the reading shows
        fake.states_read.clear()
        ws.sync()
        assert fake.states_read == []  # once


def test_with_the_real_model_stored_states_are_the_model_reading_the_chunk_and_rank_as_it_does(tmp_path, real_embedder, monkeypatch):
    settings = load_settings(vault=_vault(tmp_path), db_path=tmp_path / "index.db", env={"RAG_TOKEN_MATCH": "1"})
    with Workspace.open(settings, create=True, embedder=real_embedder) as ws:
        ws.sync()
        rows = sorted(ws.store.chunk_paths(list(NOTES)))
        stored = ws.store.chunk_data(PerChunk.TOKEN_STATES, real_embedder.name, rows)
        texts = ws.store.chunk_index_texts(rows)
        assert set(stored) == set(rows)
        for row in rows:
            kept, fresh = unpack(stored[row]), real_embedder.token_states([texts[row]])[0]
            assert kept.shape == fresh.shape
            cosines = np.sum(kept * fresh, axis=2) / np.linalg.norm(kept, axis=2)
            # the fitted code (rag/embed/token_code.py: a bit for each of 256 components) keeps a row's direction roughly;
            # its cost to the ranking is measured there
            assert cosines.mean() > 0.6, cosines.mean()
        read = []
        original = real_embedder.token_states
        monkeypatch.setattr(real_embedder, "token_states", lambda texts, **kw: read.extend(texts) or original(texts, **kw))
        ranked = ws.retriever.token_ranking(QUESTION, rows)
        assert read == [QUESTION]
        paths = ws.store.chunk_paths(list(NOTES))
        assert paths[ranked[0][0]] == "Final/Anthem.md"


def test_the_engine_gives_vectors_and_states_from_one_pass_as_each_alone(real_embedder):
    texts = ["# Final\n\nThe singer performed the anthem.", "Гимн исполнили перед началом игры. " * 3, " ".join(["anthem"] * 600)]
    vectors, states = real_embedder.embed_passages_with_states(texts)
    assert np.allclose(vectors, real_embedder.embed_passages(texts), atol=1e-5)
    for got, alone in zip(states, real_embedder.token_states(texts)):
        assert got.shape == alone.shape and np.allclose(got, alone, atol=1e-5)
