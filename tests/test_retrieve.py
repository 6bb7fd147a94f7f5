"""Retrieval: stemming in both languages, FTS escaping, reciprocal rank fusion, and channels that say why."""

from __future__ import annotations

import math

import pytest

from rag.search.fusion import keyword_weight, rrf, zscore_fusion
from rag.text import stemming
from rag.workspace import Workspace

pytestmark = pytest.mark.both_backends  # the index's behaviour, in SQLite and in PostgreSQL


def test_rrf_matches_a_hand_computed_example():
    # doc 7: rank 1 in A, rank 3 in B → 1/61 + 1/63; doc 8: rank 2 in A → 1/62; doc 9: rank 1 in B → 1/61
    scores = rrf([[7, 8], [9, 5, 7]], k=60)
    assert scores[7] == pytest.approx(1 / 61 + 1 / 63)
    assert scores[8] == pytest.approx(1 / 62)
    assert scores[9] == pytest.approx(1 / 61)
    assert scores[5] == pytest.approx(1 / 62)
    assert max(scores, key=scores.get) == 7


def test_zscore_fusion_matches_a_hand_computed_example():
    # channel A scores 3, 1 → mean 2, std 1 → z = +1, −1
    # channel B scores 0.9, 0.5, 0.1 → mean 0.5, std √(0.32/3) → z = ±1.2247, 0
    fused = zscore_fusion([[(7, 3.0), (8, 1.0)], [(9, 0.9), (7, 0.5), (5, 0.1)]], [1.0, 2.0])
    zb = 0.4 / math.sqrt(0.32 / 3)
    assert fused[7] == pytest.approx(1 + 2 * 0)
    assert fused[8] == pytest.approx(-1 + 2 * -zb)  # missing from B → B's lowest z
    assert fused[9] == pytest.approx(-1 + 2 * zb)  # missing from A → A's lowest z (−1)
    assert fused[5] == pytest.approx(-1 + 2 * -zb)


def test_zscore_fusion_gives_a_lone_candidate_credit_and_unscorable_items_a_neutral_score():
    fused = zscore_fusion([[(1, 5.0)], [(2, 0.9), (3, 0.7)]], [1.0, 1.0], unscorable=[set(), {1}])
    assert fused[1] == pytest.approx(2.0 + 0.0)  # z = 2 alone in keyword; no vector → neutral 0, not the floor
    assert fused[2] == pytest.approx(0.0 + 1.0)
    assert fused[3] == pytest.approx(0.0 - 1.0)


def test_a_note_without_vectors_yet_still_ranks_by_its_keyword_match(workspace, vault, fake_embedder):
    workspace.sync()
    (vault / "Notes" / "Axolotl.md").write_text("# Axolotl\n\nThe axolotl can regrow its limbs.\n", encoding="utf-8")
    workspace.sync(embed=False)
    hits = workspace.retriever.hybrid("axolotl regrow limbs", k=3).hits
    assert "Notes/Axolotl.md" in [h.chunk.path for h in hits]


def test_keyword_weight_is_low_when_the_query_words_are_not_in_the_index():
    assert keyword_weight(["hydrat", "bread"], 100, {"hydrat": 3, "bread": 10}) == 1.0
    assert keyword_weight(["столиц", "2015"], 100, {"2015": 40}) == 0.0  # under half of the query visible: left out
    assert keyword_weight(["hydrat", "bread", "wheat"], 100, {"hydrat": 3, "bread": 10}) == pytest.approx(
        ((math.log(101 / 3.5) + math.log(101 / 10.5)) / (math.log(101 / 3.5) + math.log(101 / 10.5) + math.log(101 / 0.5))) ** 1.5
    )
    assert keyword_weight([], 100, {}) == 0.0


def test_a_cross_language_question_is_not_drowned_by_accidental_keyword_matches(settings, vault, real_embedder):
    (vault / "Notes" / "Numbers.md").write_text("# Inventory\n\nWarehouse stock count for 2025: nine pallets of red bricks.\n", encoding="utf-8")
    with Workspace.open(settings, create=True, embedder=real_embedder) as ws:
        ws.sync()
        question = "How many days did the 2025 trip to Olkhon island take?"
        assert ws.retriever.keyword(question).hits[0].chunk.path == "Notes/Numbers.md"  # "2025" is all BM25 can match
        assert ws.retriever.dense(question).hits[0].chunk.path == "Notes/Байкал.md"
        assert ws.retriever.hybrid(question, k=3).hits[0].chunk.path == "Notes/Байкал.md"
        settings_rrf = settings.replace(fusion="rrf")
        from rag.search.retrieve import Retriever

        assert Retriever(settings_rrf, ws.store, real_embedder).hybrid(question, k=3).hits[0].chunk.path == "Notes/Numbers.md"  # plain RRF is drowned


def test_when_meaning_finds_the_answer_in_the_other_language_same_language_keyword_matches_do_not_bury_it(settings, vault, real_embedder):
    # Most of the question's words are in an English note, so BM25 can see the query (high coverage) and ranks it
    # first; the answer is in the Russian note only.
    (vault / "Notes" / "Trips.md").write_text(
        "# Trips\n\nHow many days of leave do I take for a trip? Island trips take days of planning.\n", encoding="utf-8"
    )
    with Workspace.open(settings, create=True, embedder=real_embedder) as ws:
        ws.sync()
        question = "How many days did the trip to Olkhon island take?"
        assert ws.retriever.keyword(question).hits[0].chunk.path == "Notes/Trips.md"
        assert ws.retriever.dense(question).hits[0].chunk.path == "Notes/Байкал.md"
        terms = stemming.query_terms(question)
        assert keyword_weight(terms, *ws.store.document_frequencies(terms)) > 0.5  # coverage alone would trust BM25
        assert ws.retriever.hybrid(question, k=3).hits[0].chunk.path == "Notes/Байкал.md"


def test_rrf_weights_scale_each_channel():
    scores = rrf([[1], [2]], k=0, weights=[2.0, 0.5])
    assert scores == {1: 2.0, 2: 0.5}


def test_russian_and_english_words_are_stemmed_by_their_script():
    assert stemming.query_terms("столицы России") == stemming.query_terms("столица россией")
    assert stemming.query_terms("running runs") == ["run"]
    assert stemming.stem("ёлки") == stemming.stem("елки")
    assert stemming.index_text("Hydration 72%") == "hydrat 72"


def test_stop_words_are_dropped_from_queries_unless_nothing_else_is_left():
    assert stemming.query_terms("what is the hydration of my bread") == ["hydrat", "bread"]
    assert stemming.query_terms("что это") == [stemming.stem(w) for w in ("что", "это")]


@pytest.mark.parametrize("query", ['"', "*", "AND", "NEAR(", "-", "a OR b NOT c", "col:term", "^start", '"unclosed', "(((", ""])
def test_fts_syntax_in_query_does_not_crash(workspace, query):
    workspace.sync()
    workspace.retriever.keyword(query)
    workspace.retriever.hybrid(query)


def test_keyword_search_finds_russian_word_forms(workspace):
    workspace.sync()
    hits = workspace.retriever.keyword("сколько стоили билеты на самолет").hits
    assert hits[0].chunk.path == "Notes/Байкал.md"
    assert "38 000" in hits[0].chunk.text


def test_keyword_search_finds_english_word_forms(workspace):
    workspace.sync()
    hits = workspace.retriever.keyword("baked loaves").hits
    assert hits and hits[0].chunk.path == "Notes/Sourdough.md"


def test_hybrid_hits_carry_each_channels_rank(workspace):
    workspace.sync()
    result = workspace.retriever.hybrid("hydration whole wheat", k=5)
    assert result.channels == ("bm25", "dense") and result.notice is None
    top = result.hits[0]
    assert top.chunk.path == "Notes/Sourdough.md"
    assert top.bm25_rank == 1 and top.dense_rank is not None
    assert [h.score for h in result.hits] == sorted((h.score for h in result.hits), reverse=True)


def test_hits_have_path_heading_and_one_based_lines(workspace):
    workspace.sync()
    hit = workspace.retriever.keyword("quokka").hits[0]
    assert (hit.chunk.path, hit.chunk.heading_path, hit.chunk.start_line, hit.chunk.end_line) == ("Notes/Windows.md", "Windows note", 1, 4)


def test_dense_alone_says_so_when_there_are_no_vectors(workspace):
    workspace.sync(embed=False)
    result = workspace.retriever.hybrid("hydration")
    assert result.channels == ("bm25",)
    assert "No vectors yet" in result.notice
    assert result.hits


def test_tier_one_notes_get_a_small_boost(workspace, vault):
    text = "# Flux\n\nThe flux capacitor needs 1.21 gigawatts.\n"
    (vault / "Daily").mkdir()
    (vault / "Daily" / "a.md").write_text(text, encoding="utf-8")
    (vault / "Memory" / "b.md").write_text(text, encoding="utf-8")
    workspace.sync()
    first, second = workspace.retriever.hybrid("flux capacitor gigawatts", k=2).hits
    assert (first.chunk.path, second.chunk.path) == ("Memory/b.md", "Daily/a.md")
    assert first.score > second.score


def test_search_results_stop_at_the_relevance_floor_and_say_how_many_were_left_out():
    from rag.search.results import RELEVANCE_FLOOR, Hit, SearchResult, relevant

    chunk = object()
    hits = tuple(Hit(chunk, score) for score in (2.4, 1.3, RELEVANCE_FLOOR, 0.4, -0.2))
    cut = relevant(SearchResult(hits, ("bm25", "dense"), fused="zscore", pool=100))
    assert [h.score for h in cut.hits] == [2.4, 1.3, RELEVANCE_FLOOR] and cut.hidden == 2
    # Other scales (RRF, one channel alone) have no such floor: the results come whole.
    assert relevant(SearchResult(hits, ("bm25", "dense"), fused="rrf", pool=100)).hits == hits
    assert relevant(SearchResult(hits, ("bm25", "dense"), fused="zscore", pool=3)).hits == hits  # three notes: z says little
    assert relevant(SearchResult(hits, ("bm25",))).hits == hits
